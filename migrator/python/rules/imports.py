"""Import statements of removed or renamed modules, classes and functions.

Catches every import form: ``import a.b.c``, ``import a.b.c as x``, ``from a.b import X``,
``from a.b import X as Y`` and relative imports inside a fork of SGLang itself
(``from .dflash_worker import DFlashWorker``), because the module path is resolved against
the file's own package. Renames follow ``--target-version`` (DFM303/DFM305 move between
modules across releases). Names that lost their module to another one while their
neighbours in the same ``from`` statement stay get a TODO (splitting an import is left to
a human); removed names with no replacement (DFM104) get a TODO, and where only functions
use them, an unsafe fix that moves the import into those functions (``migrator.python.deferred_import``).

Imports inside ``try: <new> except ImportError: <old>`` guards are left alone. A renamed
name that other fork modules import from this one (``migrator.python.forkindex``) or that
``__all__`` lists keeps its local name (``DFlashWorkerV2 as DFlashWorker``), so that every
importer stays correct without its own fix.
"""

from __future__ import annotations

import ast

from migrator import catalog
from migrator.base.model import Finding, Fix, InsertComment, InsertStatementAfter, RemoveImportName, Replace, Span
from migrator.catalog.target import label
from migrator.python.analysis import ImportedName, ImportFromInfo, rename_qualname
from migrator.python.deferred_import import movable, move_into_functions, name_cut
from migrator.python.fallbacks import resolves
from migrator.python.names import TRY_STATEMENTS
from migrator.python.rules.context import Examples, Rule, RuleContext


def _replace_span(ctx: RuleContext, span: tuple[int, int, int, int], text: str, entry: catalog.Entry) -> None:
    ctx.replace_span(Span.of(*span), text, entry)


def check(ctx: RuleContext) -> None:
    analysis = ctx.analysis
    for imported in analysis.imports:
        if imported.guarded:
            continue
        entry = ctx.entry_named(imported.qualname)
        if entry is None:
            continue
        new = rename_qualname(imported.qualname, ctx.target)
        if entry.replacement_for(ctx.target) is None or new == imported.qualname:
            ctx.todo(imported.statement, entry)
        else:
            _replace_span(ctx, imported.name_span, new, entry)
    for info in analysis.import_froms:
        if not info.guarded and not (len(ctx.releases) > 1 and _adaptive(ctx, info)):
            _check_from(ctx, info)


def _adaptive(ctx: RuleContext, info: ImportFromInfo) -> bool:
    """Where no single spelling of an absolute ``from`` import serves every release of the
    target (DFM305's function moves in 0.5.23), replace it with a ``try:`` importing each
    spelling, newest first, ``except ImportError:`` the next: each release then gets a
    spelling that exists there (``migrator.python.release_fit``). Only a statement that stands
    alone on its lines, outside any ``try``, every release having some spelling; True when
    done."""
    analysis = ctx.analysis
    statement = info.statement
    if info.level or len(statement.names) != len(info.names) or not info.names:
        return False
    entries = [ctx.entry_named(imported.qualname) for imported in info.names]
    if not any(entries):
        return False
    texts: dict[str, list[str]] = {}
    for release in reversed(ctx.releases):
        parts: dict[str, list[str]] = {}
        for imported in info.names:
            new = rename_qualname(imported.qualname, release)
            if not resolves(new, release):
                return False
            module, _, name = new.rpartition(".")
            keeps = imported.has_asname or _kept_local(ctx, imported, name) != name  # else uses follow the rename
            parts.setdefault(module, []).append(f"{name} as {imported.local}" if keeps and name != imported.local else name)
        if len(parts) != 1:
            return False
        ((module, names),) = parts.items()
        texts.setdefault(f"from {module} import {', '.join(names)}", []).append(release)
    if len(texts) == 1:
        return False
    from migrator.python.version_tests import mentions_version

    node = statement
    while node is not None:  # inside an existing fallback, the release fit decides per branch
        node = analysis.parents.get(node)
        if isinstance(node, TRY_STATEMENTS):
            return False
        if isinstance(node, ast.If) and mentions_version(node.test):
            return False
    line, col, end_line, end_col = analysis.span(statement)
    before, after = analysis.lines[line - 1][:col], analysis.lines[end_line - 1][end_col:].strip()
    if before.strip() or after:
        return False

    spelled = list(texts.items())
    text = _nested(spelled, before)
    served = "; ".join(f"{label(tuple(sorted(releases, key=catalog.parse_version)))}: `{spelling}`" for spelling, releases in spelled)
    entry = next(e for e in entries if e is not None)
    span = Span.of(line, col, end_line, end_col)
    ctx.findings.append(Finding(ctx.path, span, entry.code,
                                f"{entry.message}; no single spelling serves sglang {label(ctx.releases)}: "
                                f"each release gets its own ({served})",
                                Fix("safe", (Replace(span, text),), replacement=text, adaptive=True)))
    return True


def _nested(spelled: list[tuple[str, list[str]]], indent: str) -> str:
    """``try: <newest> except ImportError: <next>`` down to the oldest spelling, nested so
    that each spelling is tried only where the newer ones failed."""
    text = spelled[-1][0]
    for spelling, _ in reversed(spelled[:-1]):
        inner = text.replace("\n", "\n    ")
        text = f"try:\n    {spelling}\nexcept ImportError:\n    {inner}"
    return text.replace("\n", "\n" + indent)


def _todo_at_name(ctx: RuleContext, info: ImportFromInfo, imported: ImportedName, entry: catalog.Entry,
                  detail: str | None = None) -> None:
    """A TODO above the import, the finding on the name's own line (a parenthesised
    import over several lines: not the ``from`` line)."""
    comment = catalog.todo_comment(entry, detail)
    fix = Fix("manual", (InsertComment(ctx.analysis.anchor_line(info.statement), comment),))
    ctx.report(Span.of(*imported.name_span), entry, fix, detail)


def _check_from(ctx: RuleContext, info: ImportFromInfo) -> None:
    module_entry = ctx.entry_named(info.module) if info.module else None
    new_module = rename_qualname(info.module, ctx.target) if module_entry else info.module
    moves: list[tuple[object, catalog.Entry, str, str]] = []
    removed: list[tuple[ImportedName, catalog.Entry]] = []
    for imported in info.names:
        entry = ctx.entry_named(imported.qualname)
        if entry is None:
            continue
        if entry.replacement_for(ctx.target) is None:
            removed.append((imported, entry))
            continue
        new_module_of_name, _, new_name = rename_qualname(imported.qualname, ctx.target).rpartition(".")
        moves.append((imported, entry, new_module_of_name, new_name))
    # a removed name only functions use can leave the statement (--unsafe-fixes, migrator.python.deferred_import)
    gone = {id(imported): users for imported, _ in removed if (users := movable(ctx, info, imported, len(removed)))}
    split: list = []
    destinations = {move[2] for move in moves}
    staying = len(moves) < len(info.names)  # the same choice with and without --unsafe-fixes
    if len(destinations) > 1 or (destinations and staying and destinations != {new_module}):
        home = new_module if staying or new_module in destinations else moves[0][2]
        leaving = [move for move in moves if move[2] != home]
        if _split(ctx, info, leaving, set(gone)):
            split = leaving
        else:
            for imported, entry, destination, _ in leaving:
                _todo_at_name(ctx, info, imported, entry, f"{entry.message}; split this import: "
                              f"`{imported.local}` now lives in `{destination}`")
        moves = [move for move in moves if move[2] == home]
        destinations = {home} if moves else set()
    remaining = [i for i, imported in enumerate(info.names)
                 if id(imported) not in gone and all(imported is not move[0] for move in split)]
    for imported, entry in removed:
        if id(imported) in gone:
            move_into_functions(ctx, info, imported, entry, gone[id(imported)], remaining)
        else:
            _todo_at_name(ctx, info, imported, entry)
    target_module = destinations.pop() if destinations else new_module
    if target_module != info.module:
        # The names' own entry where they go elsewhere than the module's rename (a dropped re-export).
        entry = moves[0][1] if moves and target_module != new_module else module_entry or (moves[0][1] if moves else None)
        text = _module_text(info, target_module)
        if entry is not None and (text is None or info.module_span is None):
            ctx.todo(info.statement, entry, f"{entry.message}; rewrite this import by hand to `{target_module}`")
        elif entry is not None and info.module_span is not None and text is not None:
            _replace_span(ctx, info.module_span, text, entry)
    for imported, entry, _, new_name in moves:
        if new_name != imported.qualname.rpartition(".")[2]:  # type: ignore[attr-defined]
            _replace_span(ctx, imported.name_span, _kept_local(ctx, imported, new_name), entry)  # type: ignore[arg-type]


def _split(ctx: RuleContext, info: ImportFromInfo, leaving: list, gone: set[int]) -> bool:
    """Move each name of ``leaving`` out of the statement into an import of its own from its
    new module, on the next line (a safe fix); False where the statement does not stand
    alone on its lines (``x = 1; from m import A, B``, a one-line ``try:`` body) or where no
    name would stay. ``gone``: ids of names an unsafe fix may take out of the statement too
    (the cuts are chosen so that the text is right either way; where only they would stay,
    that fix removes the whole statement)."""
    analysis = ctx.analysis
    statement = info.statement
    line, col, end_line, end_col = analysis.span(statement)
    before, after = analysis.lines[line - 1][:col], analysis.lines[end_line - 1][end_col:].strip()
    if before.strip() or (after and not after.startswith("#")) or len(statement.names) != len(info.names):
        return False
    leaving_at = {id(move[0]): move for move in leaving}
    kept = [i for i, imported in enumerate(info.names) if id(imported) not in leaving_at]
    kept = [i for i in kept if id(info.names[i]) not in gone] or kept  # cuts that hold whether or not they go
    if not kept:
        return False
    for index, imported in enumerate(info.names):
        move = leaving_at.get(id(imported))
        if move is None:
            continue
        _, entry, destination, new_name = move
        cut = name_cut(analysis.lines, statement, index, kept[-1], analysis.char_col)
        module = _module_text(info, destination) if info.level else destination
        module = "." * info.level + module if info.level and module is not None else destination
        local = f" as {imported.local}" if imported.has_asname else ""
        text = f"from {module} import {_kept_local(ctx, imported, new_name) if not local else new_name + local}"
        edits = (RemoveImportName(Span.of(*imported.name_span), cut), InsertStatementAfter(Span.of(line, col, end_line, end_col), text))
        ctx.findings.append(Finding(ctx.path, Span.of(*imported.name_span), entry.code,
                                    f"{entry.message}; moved to its own import from `{destination}`",
                                    Fix("safe", edits, replacement=text)))
    return True


def _kept_local(ctx: RuleContext, imported: ImportedName, new_name: str) -> str:
    """``New as Old`` where a fallback (``except ImportError: Old = object``, the other
    branch of an ``if``) binds the old name too, or where other fork modules import the old
    name from this one or ``__all__`` lists it: the name stays bound on every path."""
    if not imported.has_asname and (imported.local in ctx.analysis.shared_locals or ctx.analysis.is_exported(imported.local)):
        return f"{new_name} as {imported.local}"  # also: other fork modules import it by this name
    return new_name


def _module_text(info: ImportFromInfo, new_module: str) -> str | None:
    """The dotted text after ``from`` (and its dots) that names ``new_module``."""
    if info.level == 0:
        return new_module
    written = info.statement.module or ""
    base = info.module[: len(info.module) - len(written)].rstrip(".")
    if base and new_module.startswith(base + "."):
        return new_module[len(base) + 1:]
    return None


RULE = Rule("imports", 100, check, owns=catalog.codes_of_kind("module", "class", "function"),
    examples=Examples(
        invalid=(
            "from sglang.srt.speculative.dflash_worker import DFlashWorker\n",
        ),
        valid=(
            "from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2\n",
        ),
    ),
)
