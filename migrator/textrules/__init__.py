"""Rules for files that are not Python: one module per file type, chosen by file name.

``handler_for(path)`` is the engine's entry point; a handler is
``(path, data, options) -> FileResult`` (see :func:`migrator.textrules._core.run`).

=================  ==============================================================
file               module
=================  ==============================================================
``*.sh`` ``*.bash`` ``*.zsh`` ``*.ksh``, ``.envrc``, extensionless files with a
                   ``sh``/``bash``/``zsh`` shebang: :mod:`.shell`
``Dockerfile``, ``Dockerfile.*``, ``*.dockerfile``, ``Containerfile``: :mod:`.dockerfile`
``*.yaml`` ``*.yml``: :mod:`.yaml`
``.env``, ``.env.*``, ``*.env``: :mod:`.dotenv`
``*.toml``: :mod:`.toml`
``*.json`` (also ``.jsonc``, devcontainer files): :mod:`.jsonfile` (report only)
``*.md`` ``*.markdown``: :mod:`.markdown`
``*.ipynb``: :mod:`.notebook`
=================  ==============================================================

Modules are imported only when a file of their type is processed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from importlib import import_module

Handler = Callable[[str, bytes, object], object]

_SUFFIXES = {
    ".sh": "shell", ".bash": "shell", ".zsh": "shell", ".ksh": "shell",
    ".dockerfile": "dockerfile", ".containerfile": "dockerfile",
    ".yaml": "yaml", ".yml": "yaml",
    ".env": "dotenv",
    ".toml": "toml",
    ".json": "jsonfile", ".jsonc": "jsonfile",
    ".md": "markdown", ".markdown": "markdown",
    ".ipynb": "notebook",
}
_SHEBANG = re.compile(rb"^#!\s*\S*?(?:/|env\s+)(?:ba|z|k|da)?sh\b")


def module_for(path: str) -> str | None:
    """Name of the module that handles ``path``, or None."""
    name = os.path.basename(path)
    lower = name.lower()
    if lower in ("dockerfile", "containerfile") or lower.startswith(("dockerfile.", "containerfile.")):
        return "dockerfile"
    if lower == ".env" or (lower.startswith(".env.") and not lower.endswith((".py", ".json", ".yaml", ".yml"))):
        return "dotenv"
    if lower == ".envrc":
        return "shell"
    suffix = os.path.splitext(lower)[1]
    if suffix in _SUFFIXES:
        return _SUFFIXES[suffix]
    if not suffix:
        try:
            with open(path, "rb") as fh:
                head = fh.read(64)
        except OSError:
            return None
        if _SHEBANG.match(head):
            return "shell"
    return None


def handler_for(path: str) -> Handler | None:
    """The handler for ``path`` (decided by name, extension or shebang), or None."""
    module = module_for(path)
    if module is None:
        return None
    return import_module(f"migrator.textrules.{module}").handle
