"""Import-name arithmetic: what module a relative import names (the analysis, the fork index,
the write guard and the index of a released wheel all ask it)."""

from __future__ import annotations


def resolve_relative(module: str | None, level: int, current: str | None, is_package: bool) -> str | None:
    """The absolute module of ``from <level dots><module> import ...`` written in the module
    ``current`` (a package's ``__init__`` when ``is_package``), as Python resolves it; None
    where Python raises ImportError: a relative import beyond the top-level package, or in
    a module with no known package. The one resolver of relative imports (issue 29)."""
    if level == 0:
        return module
    package = current if is_package else (current or "").rpartition(".")[0]
    if not package:
        return None
    bits = package.rsplit(".", level - 1)
    if len(bits) < level:
        return None
    return f"{bits[0]}.{module}" if module else bits[0]
