"""Uses of removed or renamed names in expressions: calls, bases, decorators, annotations,
``isinstance`` checks, aliases (``Worker = dflash_worker.DFlashWorker``) and attribute
chains on imported modules (``dflash_info.DFlashDraftInput(...)``).

Resolution is by qualified name, so a JAX port's own ``DFlashWorker`` or a local class of
that name is never touched, while ``import ... as x`` then ``x.DFlashWorker`` is. The
replacement text is re-expressed relative to the local binding: when the import itself
is renamed without an ``as`` (``from m import DFlashWorker`` -> ``DFlashWorkerV2``) the
local name follows; with an ``as`` it stays. Members that no longer exist (DFM104,
DFM202, and removed methods reached through the class) get a TODO.
"""

from __future__ import annotations

import ast
import re

from migrator import catalog
from migrator.base.model import RemoveImportName, RemoveStatement, Span
from migrator.base.patterns import on_first_use
from migrator.python.analysis import Binding, rename_qualname
from migrator.python.rules.context import Examples, Rule, RuleContext, renamed_text, tokens_of

#: Call forms have dedicated rules that look at the arguments.
_MEMBER_KINDS = ("method", "attribute")


def check(ctx: RuleContext) -> None:
    analysis = ctx.analysis
    uses: dict[int, int] = {}
    moved: dict[int, Binding] = {}  # findings whose fix replaced `module.Name` by a direct import
    for node, qualname, binding in analysis.references:
        parent = analysis.parents.get(node)
        if isinstance(parent, ast.Attribute) and parent.value is node:
            continue  # an inner link of a longer chain; handled from the outermost node
        uses[id(binding)] = uses.get(id(binding), 0) + 1
        if binding.guarded or binding.kind == "fork" or id(node) in ctx.claimed:  # fork names: rules.fork_names
            continue
        _check_chain(ctx, node, qualname, binding, moved)
    _drop_emptied_imports(ctx, uses, moved)
    if "type:" in analysis.source:
        _check_type_comments(ctx)


#: a comment token holds no line break, so the one pattern serves it and the whole source
_TYPE_COMMENT = re.compile(r"#\s*type:\s*(?!ignore\b)(.+?)\s*$", re.MULTILINE)
_WORD = on_first_use(r"(?<![\w.])[A-Za-z_]\w*(?![\w.])")


def _check_type_comments(ctx: RuleContext) -> None:
    """``# type:`` comments are code: a module-level name that follows a rename is renamed
    in them too (the whole comment is replaced, so both rewrite paths apply it)."""
    scope = ctx.analysis.module_scope
    renamable = {word for word, binding in scope.names.items()
                 if binding.qualname is not None and binding.follows_rename and not binding.guarded}
    # the tokenizer runs only where a line that looks like a type comment names a renamed
    # binding (the tokenizer then decides)
    if not any(word in renamable for found in _TYPE_COMMENT.findall(ctx.analysis.source)
               for word in _WORD().findall(found)):
        return
    tokens = tokens_of(ctx.analysis.source, "COMMENT")
    if tokens is None:
        return
    for token in tokens:
        match = _TYPE_COMMENT.match(token.string)
        if match is None:
            continue
        text = token.string
        found = None
        for word in set(_WORD().findall(match.group(1))):
            if word not in renamable:
                continue
            binding = scope.names[word]
            entry = ctx.entry_named(binding.qualname)
            new_local = rename_qualname(binding.qualname, ctx.target).rpartition(".")[2]
            if entry is None or entry.replacement_for(ctx.target) is None or new_local == word:
                continue
            text = re.sub(rf"(?<![\w.]){re.escape(word)}(?![\w.])", new_local, text)
            found = entry
        if found is not None:
            line, column = token.start  # tokenize counts characters, as spans do
            ctx.replace_span(Span.of(line, column, line, column + len(token.string)), text, found,
                             f"{found.message} (in a type comment)")


def _drop_emptied_imports(ctx: RuleContext, uses: dict[int, int], moved_through: dict[int, Binding]) -> None:
    """A module import (``import ...dflash_info as di``) whose every use moved to a direct
    import of the new name (``di.DFlashDraftInput`` -> ``DFlashDraftInputV2``) would be
    left unused: the last such fix also removes it, where the statement imports it alone."""
    moved: dict[int, list] = {}
    for finding in ctx.findings:
        binding = moved_through.get(id(finding))
        if binding is not None:
            moved.setdefault(id(binding), []).append((finding, binding))
    for key, pairs in moved.items():
        if len(pairs) != uses.get(key):
            continue
        finding, binding = pairs[-1]
        statement = _single_import_of(ctx, binding)
        removal: RemoveStatement | RemoveImportName | None = (
            RemoveStatement(ctx.span_of(statement)) if statement is not None else _name_removal(ctx, binding))
        if removal is None:
            continue
        fix = finding.fix
        ctx.findings[ctx.findings.index(finding)] = finding._replace(fix=fix._replace(edits=(*fix.edits, removal)))


def _name_removal(ctx: RuleContext, binding: Binding) -> RemoveImportName | None:
    """The edit dropping ``binding``'s name from a one-line ``from`` import of several names
    (``from ..speculative import dflash_info, other``): the name with its comma."""
    for info in ctx.analysis.import_froms:
        names = info.names
        at = next((i for i, n in enumerate(names) if n.qualname == binding.qualname and not n.has_asname), None)
        if at is None or info.guarded or len(names) < 2 or len(names) != len(info.statement.names):
            continue
        if info.statement.lineno != info.statement.end_lineno:
            return None  # a parenthesised import over several lines: its comments decide, leave it
        line, col, _, end = names[at].name_span
        if at + 1 < len(names):
            cut = Span.of(line, col, line, names[at + 1].name_span[1])
        else:
            cut = Span.of(line, names[at - 1].name_span[3], line, end)
        return RemoveImportName(Span.of(*names[at].name_span), cut)
    return None


def _single_import_of(ctx: RuleContext, binding: Binding) -> ast.stmt | None:
    for imported in ctx.analysis.imports:
        if imported.qualname == binding.qualname and len(imported.statement.names) == 1 and not imported.guarded:
            return imported.statement
    for info in ctx.analysis.import_froms:
        for imported in info.names:
            if imported.qualname == binding.qualname and len(info.statement.names) == 1 and not info.guarded:
                return info.statement
    return None


def _check_chain(ctx: RuleContext, node: ast.expr, qualname: str, binding: Binding, moved: dict[int, Binding]) -> None:
    current: ast.expr = node
    member_name = qualname
    while True:  # a removed member anywhere along the chain: envs.SGLANG_ENABLE_SPEC_V2.get()
        member = catalog.by_name().get(member_name)
        if member is not None and member.kind in _MEMBER_KINDS:
            entry = ctx.entry(member.code)
            if entry is not None and entry.fix == "manual":
                idiom = _envs_idiom(ctx, current) if entry.old.endswith(catalog.ENV_SPEC_V2) else None
                ctx.todo(current, entry, None if idiom is None else
                         f"{entry.message}: {catalog.ENVS_SPEC_V2_IDIOMS[idiom]}")
            break
        if not isinstance(current, ast.Attribute):
            break
        current, member_name = current.value, member_name.rpartition(".")[0]
    entry = ctx.entry_named(qualname)
    if entry is None:
        return
    if entry.replacement_for(ctx.target) is None:
        if entry.kind == "function" or qualname == entry.old:
            ctx.todo(node, entry)
        return
    new_text, extra = renamed_text(ctx, node, qualname, binding)
    if new_text is not None and new_text != ctx.analysis.segment(node):
        count = len(ctx.findings)
        ctx.replace(node, new_text, entry, extra=extra)
        if extra and len(ctx.findings) > count and binding.kind in ("import", "from", "from-as"):
            moved[id(ctx.findings[-1])] = binding


def _envs_idiom(ctx: RuleContext, member: ast.expr) -> str | None:
    """Which use of ``envs.SGLANG_ENABLE_SPEC_V2`` ``member`` is (``catalog.ENVS_SPEC_V2_IDIOMS``)."""
    parents = ctx.analysis.parents
    parent = parents.get(member)
    if isinstance(parent, (ast.Tuple, ast.List)) and len(parent.elts) == 2 and parent.elts[0] is member:
        value = parent.elts[1]
        return "fixture override" if isinstance(value, ast.Constant) else None
    if isinstance(parent, ast.Attribute) and parent.value is member and parent.attr == "value":
        return "read"
    call = parents.get(parent) if isinstance(parent, ast.Attribute) and parent.value is member else None
    if not isinstance(call, ast.Call) or call.func is not parent:
        return None
    if parent.attr in ("get", "value", "is_set"):
        return "read"
    if parent.attr == "clear":
        return "clear"
    if parent.attr == "set" and len(call.args) == 1 and isinstance(call.args[0], ast.Constant):
        value = catalog.sglang_bool(str(call.args[0].value))
        return None if value is None else ("set truthy" if value else "set falsy")
    return None


RULE = Rule(
    "references", 200, check,
    #: removed attributes of a module (``envs.SGLANG_ENABLE_SPEC_V2``): no class gives them a type
    owns=tuple(e.code for e in catalog.entries_of_kind("method", "attribute") if e.owner_class is None),
    shares=(*catalog.codes_of_kind("module", "class", "function"), *(e.code for e in catalog.entries_of_kind("method", "attribute") if e.owner_class)),
    why="every use of a name the imports bind, and removed members reached through an imported "
    "module or class (``dflash_worker.DFlashWorker.verify``): the import statement is `imports`'s, "
    "a member of a typed value its member rule's",
    examples=Examples(
        invalid=(
            (
                "import sglang.srt.speculative.dflash_worker as dw\n"
                "\n"
                "\n"
                "class MyWorker(dw.DFlashWorker):\n"
                "    pass\n"
            ),
        ),
        valid=(
            (
                "class DFlashWorker:\n"
                "    pass\n"
                "\n"
                "\n"
                "worker = DFlashWorker()\n"
            ),
        ),
    ),
)
