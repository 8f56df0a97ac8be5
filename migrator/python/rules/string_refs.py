"""Removed names spelled inside strings.

Catches dotted names used as strings: ``importlib.import_module("...dflash_worker")``,
a loader's ``"...dflash_info:DFlashDraftInput"`` (entry points, plugin registries),
``sys.modules["..."]``, ``mock.patch("...DFlashWorker._prepare_for_speculative_decoding")``,
``__import__``, entry points, and string annotations (``"DFlashWorker"``,
``"Optional[dflash_info.DFlashDraftInput]"``) resolved in the scope they appear in. A
string is a reference only when it *is* a dotted name (or an annotation expression), so
docstrings and log messages that merely mention a name are left alone.
"""

from __future__ import annotations

import ast
import re

from migrator import catalog
from migrator.python.analysis import rename_qualname
from migrator.python.rules.context import Examples, Rule, RuleContext, literal_with, renamed_text

DOTTED = re.compile(r"[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)+")
#: A loader's ``module:attr`` (entry points, plugin registries, ``pkg.mod:Class.member``).
MODULE_ATTR = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
def check(ctx: RuleContext) -> None:
    annotation_ids = {id(node) for node, _ in ctx.analysis.annotation_strings}
    for node in ctx.analysis.strings:
        if id(node) not in annotation_ids and (DOTTED.fullmatch(node.value) or MODULE_ATTR.fullmatch(node.value)):
            _check_dotted(ctx, node)
    for node, scope in ctx.analysis.annotation_strings:
        _check_annotation(ctx, node, scope)


def _check_dotted(ctx: RuleContext, node: ast.Constant) -> None:
    spelled: str = node.value
    value = catalog.dotted(spelled)
    member = catalog.by_name().get(value)
    if member is not None and member.kind in ("method", "attribute", "call-form"):
        entry = ctx.entry(member.code)
        if entry is not None and entry.fix == "manual":
            ctx.todo(node, entry)
    entry = ctx.entry_named(value)
    if entry is None:
        return
    new_value = catalog.respelled(rename_qualname(value, ctx.target), spelled)
    if _maps_to(ctx, node, new_value):
        return  # a compatibility map {old: new} is right as it is
    if entry.replacement_for(ctx.target) is None or new_value == spelled:
        ctx.todo(node, entry)
        return
    literal = literal_with(ctx.analysis.segment(node), spelled, new_value)
    if literal is None:
        ctx.todo(node, entry, f"{entry.message}; this string is spelled `{new_value}` now")
    else:
        ctx.replace(node, literal, entry)


def _maps_to(ctx: RuleContext, node: ast.Constant, new_value: str) -> bool:
    """Is ``node`` a dict key whose value is the string ``new_value`` (``{"old": "new"}``)?"""
    parent = ctx.analysis.parents.get(node)
    if not isinstance(parent, ast.Dict) or not any(key is node for key in parent.keys):
        return False
    value = parent.values[next(i for i, key in enumerate(parent.keys) if key is node)]
    return isinstance(value, ast.Constant) and value.value == new_value


def _check_annotation(ctx: RuleContext, node: ast.Constant, scope) -> None:
    try:
        expression = ast.parse(node.value.strip(), mode="eval").body
    except SyntaxError:
        return
    analysis = ctx.analysis
    saved = analysis.scope
    analysis.scope = scope
    try:
        edits: list[tuple[int, int, str]] = []
        imports: list = []
        first_entry: catalog.Entry | None = None
        for inner in ast.walk(expression):
            if not isinstance(inner, (ast.Name, ast.Attribute)) or any(start <= inner.col_offset < end for start, end, _ in edits):
                continue
            resolved = analysis.qualname(inner)
            if resolved is None or resolved[1].guarded or resolved[1].kind in ("def", "other"):
                continue
            entry = ctx.entry_named(resolved[0])
            if entry is None or entry.replacement_for(ctx.target) is None:
                continue
            new_text, extra = renamed_text(ctx, inner, resolved[0], resolved[1])
            old_text = ast.get_source_segment(node.value.strip(), inner)
            if new_text and new_text != old_text:
                edits.append((inner.col_offset, inner.end_col_offset or 0, new_text))
                imports.extend(extra)
                first_entry = first_entry or entry
    finally:
        analysis.scope = saved
    if not edits or first_entry is None:
        return
    content = node.value.strip()
    for start, end, text in sorted(edits, reverse=True):
        content = content[:start] + text + content[end:]
    literal = literal_with(analysis.segment(node), node.value, content)
    if literal is None:
        ctx.todo(node, first_entry)
    else:
        ctx.replace(node, literal, first_entry, extra=imports)


RULE = Rule(
    "string_refs", 210, check,
    shares=catalog.codes_of_kind("module", "class", "function", "method", "attribute", "call-form"),
    why="the names other rules find in code, spelled as dotted strings (``mock.patch`` targets, "
    "``import_module`` arguments, string annotations)",
    examples=Examples(
        invalid=(
            (
                "import importlib\n"
                "\n"
                'module = importlib.import_module("sglang.srt.speculative.dflash_worker")\n'
            ),
        ),
        valid=(
            'log.info("DFlashWorker is gone: see the sglang.srt.speculative.dflash_worker notes")\n',
        ),
    ),
)
