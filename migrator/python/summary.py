"""A module's summary for the fork index, from its analysis (kept apart so that the index
stands below the analysis: the analysis reads the index, the summary reads both)."""

from __future__ import annotations

import ast
from pathlib import Path

from migrator import catalog
from migrator.python.analysis import Analysis
from migrator.python.forkindex import ModuleSummary, _fallbacks, package_root
from migrator.python.names import all_names, function_definitions, parameter_names


def summarize(analysis: Analysis, path: str, complete: bool = True) -> ModuleSummary | None:
    """The module-level facts of one analysed file (None for a script outside a package);
    ``complete``: False where the analysis saw a masked parse."""
    module = analysis.module_name
    if module == "__main__":
        return None
    binds: dict[str, tuple[str, int]] = {}
    for name, binding in analysis.module_imports.items():
        if not binding.guarded:
            binds[name] = (binding.qualname or "", binding.line)
    classes = {q: (info.bases, info.node.lineno) for q, info in analysis.classes.items()
               if q.count(".") == module.count(".") + 1}
    attributes = {q: dict(info.attr_types) for q, info in analysis.classes.items() if info.attr_types}
    star: list[str] = []
    imported: list[tuple[str, str]] = []
    for info in analysis.import_froms:
        names = info.statement.names
        if any(alias.name == "*" for alias in names):
            star.append(info.module)
        imported.extend((info.module, alias.name) for alias in names if alias.name != "*")
    return ModuleSummary(path, package_root(Path(path).resolve(), module), module, binds, classes, attributes, tuple(star),
                         all_names(analysis.tree), _fallbacks(analysis.tree), tuple(imported), dict(analysis.returns),
                         tuple(sorted(analysis.wanted)), complete, own_members(analysis), member_uses(analysis))


def member_uses(analysis: Analysis) -> tuple[str, ...]:
    """The names of ``catalog.sglang_meaning_members()`` the module reads as attributes and the
    keywords of ``catalog.sglang_meaning_parameters()`` it spells."""
    uses = catalog.sglang_meaning_members().intersection(analysis.attributes_by_name)
    uses |= {keyword for keyword in catalog.sglang_meaning_parameters() if keyword in analysis.source}
    return tuple(sorted(uses))


def own_members(analysis: Analysis) -> tuple[tuple[str, str, int], ...]:
    """(member, class qualname, line) of the methods and properties the module's classes define
    under a name whose safe fix assumes sglang's meaning (``catalog.SGLANG_MEANING_CODES``), and
    (keyword, function, line) of its functions taking a keyword such a fix drops."""
    members = catalog.sglang_meaning_members()
    found = [(statement.name, qualname, statement.lineno) for qualname, info in analysis.classes.items()
             for statement in info.node.body
             if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.name in members]
    keywords = [k for k in catalog.sglang_meaning_parameters() if k in analysis.source]  # the walk only where spelled
    if keywords:
        for node in function_definitions(analysis.tree):
            arguments = parameter_names(node.args)
            found += [(k, f"{analysis.module_name}.{node.name}", node.lineno) for k in keywords if k in arguments]
    return tuple(sorted(found))
