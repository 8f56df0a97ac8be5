"""Structural edits with libcst: nodes are matched to the analysis' spans through
libcst's ``PositionProvider``, so formatting, comments, encoding, BOM and line endings
outside the edited nodes are kept. Imported only when a file needs such an edit."""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Callable, Sequence, Union

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor
from libcst.metadata import MetadataWrapper, PositionProvider

from migrator.base.model import (
    AddImport,
    AddKeyword,
    AppendListItem,
    Edit,
    InsertComment,
    InsertStatementAfter,
    InsertStatementBefore,
    RemoveDictEntry,
    RemoveImportName,
    RemoveStatement,
    Replace,
    RewriteError,
)
from migrator.edit.comments import DEFAULT_LINE_LENGTH, wrap
from migrator.edit.import_order import place
from migrator.edit.removal import named

SpanKey = tuple[int, int, int, int]
_STATEMENTS_WITH_LEADING_LINES = (
    cst.SimpleStatementLine,
    cst.FunctionDef,
    cst.ClassDef,
    cst.If,
    cst.For,
    cst.While,
    cst.Try,
    cst.With,
    cst.Match,
)
if hasattr(cst, "TryStar"):
    _STATEMENTS_WITH_LEADING_LINES = (*_STATEMENTS_WITH_LEADING_LINES, cst.TryStar)


def _key(span) -> SpanKey:  # noqa: ANN001 - model.Span, or libcst's CodeRange
    return (span.start.line, span.start.column, span.end.line, span.end.column)


class _Plan:
    """The edits of one file grouped by kind and place (filled by ``of``), and which of
    them the transformer matched: a mutable accumulator (``migrator.base.records``)."""

    __slots__ = ("replace", "remove_statement", "remove_dict_entry", "add_keyword", "append_item", "comments",
                 "imports", "remove_import_name", "insert_after", "insert_before", "matched")

    def __init__(self) -> None:
        self.replace: dict[SpanKey, str] = {}
        self.remove_statement: dict[SpanKey, str] = {}  # the span -> the rule code removing it
        self.remove_dict_entry: set[SpanKey] = set()
        self.add_keyword: dict[SpanKey, list[tuple[str, str]]] = defaultdict(list)
        self.append_item: dict[SpanKey, list[str]] = defaultdict(list)
        self.comments: dict[int, list[str]] = defaultdict(list)
        self.imports: list[AddImport] = []
        self.remove_import_name: set[SpanKey] = set()
        self.insert_after: dict[SpanKey, list[str]] = defaultdict(list)
        self.insert_before: dict[int, list[str]] = defaultdict(list)
        self.matched: set[tuple[str, object]] = set()

    @classmethod
    def of(cls, edits: Sequence[Edit]) -> "_Plan":
        plan = cls()
        for edit in edits:
            if isinstance(edit, Replace):
                key = _key(edit.span)
                if plan.replace.get(key, edit.text) != edit.text:
                    raise RewriteError(f"conflicting replacements at line {key[0]}")
                plan.replace[key] = edit.text
            elif isinstance(edit, RemoveStatement):
                plan.remove_statement.setdefault(_key(edit.span), edit.code)
            elif isinstance(edit, RemoveDictEntry):
                plan.remove_dict_entry.add(_key(edit.span))
            elif isinstance(edit, AddKeyword):
                _add_once(plan.add_keyword[_key(edit.span)], (edit.keyword, edit.value))
            elif isinstance(edit, AppendListItem):
                _add_once(plan.append_item[_key(edit.span)], edit.text)
            elif isinstance(edit, InsertComment):
                _add_once(plan.comments[edit.line], edit.text)
            elif isinstance(edit, RemoveImportName):
                plan.remove_import_name.add(_key(edit.span))
            elif isinstance(edit, InsertStatementAfter):
                _add_once(plan.insert_after[_key(edit.span)], edit.text)
            elif isinstance(edit, InsertStatementBefore):
                _add_once(plan.insert_before[edit.line], edit.text)
            elif isinstance(edit, AddImport):
                _add_once(plan.imports, edit)
        return plan

    def unmatched(self) -> list[str]:
        wanted = [(kind, key) for kind, field in _MATCH_KINDS for key in getattr(self, field)]
        return [f"{kind} at line {key if isinstance(key, int) else key[0]}" for kind, key in wanted if (kind, key) not in self.matched]


#: (the name ``matched`` and the error message give a kind, the plan's field), in the order
#: the unmatched ones are reported.
_MATCH_KINDS = (("replace", "replace"), ("remove", "remove_statement"), ("dict", "remove_dict_entry"),
                ("keyword", "add_keyword"), ("append", "append_item"), ("comment", "comments"),
                ("import-name", "remove_import_name"), ("insert", "insert_after"), ("before", "insert_before"))


def _add_once(values: list, value: object) -> None:
    """``value`` appended unless there already (two findings may want the same edit)."""
    if value not in values:
        values.append(value)


Node = Union[cst.CSTNode, cst.RemovalSentinel, cst.FlattenSentinel]


class _Applier(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, plan: _Plan, module: cst.Module, width: int = DEFAULT_LINE_LENGTH) -> None:
        super().__init__()
        self.plan = plan
        self.module = module
        #: The project's line length, which a tombstone is wrapped to as a TODO is.
        self.width = width
        #: The ``pass`` of each placeholder left for a statement line whose every statement
        #: was removed: one object, so a placeholder is known by identity. (Known by its id,
        #: a placeholder freed once its block was rebuilt left that id to the next node
        #: made, which was then dropped too: a whole function, in about 1 run of 14, seen as
        #: a refusal "it would leave undefined name ...".)
        self.removed_mark = cst.Pass()

    def _span(self, node: cst.CSTNode) -> SpanKey | None:
        try:
            position = self.get_metadata(PositionProvider, node)
        except KeyError:
            return None
        return _key(position)

    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode) -> Node:  # type: ignore[override]
        result: Node = super().on_leave(original, updated)
        key = self._span(original)
        if key is None:
            return result
        plan = self.plan
        if (isinstance(original, cst.BaseExpression) and key in plan.replace and isinstance(result, cst.BaseExpression)
                and " as " not in plan.replace[key]):  # ``New as Old`` is an imported name's: leave_ImportAlias
            plan.matched.add(("replace", key))
            replacement = cst.parse_expression(plan.replace[key])
            return replacement.with_changes(lpar=result.lpar, rpar=result.rpar) if hasattr(replacement, "lpar") else replacement
        if isinstance(original, cst.Comment) and key in plan.replace:  # a renamed ``# type:`` comment
            plan.matched.add(("replace", key))
            return cst.Comment(plan.replace[key])
        if isinstance(original, (cst.Assign, cst.Expr, cst.Import, cst.ImportFrom)) and key in plan.remove_statement:
            plan.matched.add(("remove", key))
            return cst.RemoveFromParent()
        if isinstance(original, cst.If) and key in plan.remove_statement:
            plan.matched.add(("remove", key))
            return self._removed_block(original, plan.remove_statement[key])
        if isinstance(original, cst.Call) and key in plan.add_keyword and isinstance(result, cst.Call):
            plan.matched.add(("keyword", key))
            return _with_keywords(result, plan.add_keyword[key])
        if isinstance(original, (cst.List, cst.Tuple)) and key in plan.append_item and isinstance(result, (cst.List, cst.Tuple)):
            plan.matched.add(("append", key))
            return _with_items(result, plan.append_item[key])
        if isinstance(original, _STATEMENTS_WITH_LEADING_LINES) and not isinstance(result, cst.RemovalSentinel):
            first_line = key[0]
            decorators = getattr(original, "decorators", ())
            if decorators:  # a TODO goes above the decorators, where the analysis anchors it
                first_line = (self._span(decorators[0]) or key)[0]
            if first_line in plan.comments:
                plan.matched.add(("comment", first_line))
                result = _with_comments(result, plan.comments[first_line])  # type: ignore[arg-type]
            if first_line in plan.insert_before and not isinstance(result, cst.FlattenSentinel):
                plan.matched.add(("before", first_line))
                return _with_statements_before(result, len(original.leading_lines), plan.insert_before[first_line])
        return result

    def _kept(self, before: Sequence[cst.CSTNode], after: Sequence, removed: set[SpanKey], kind: str,
              key_node: Callable[[cst.CSTNode], cst.CSTNode | None]) -> list:
        """The items of ``after`` whose original (in ``before``) has no ``key_node`` span in
        ``removed`` (those are matched as ``kind``); where the old last item had no comma,
        the new last one drops its own."""
        kept = []
        for original, item in zip(before, after):
            node = key_node(original)
            key = self._span(node) if node is not None else None
            if key is not None and key in removed:
                self.plan.matched.add((kind, key))
                continue
            kept.append(item)
        if kept and len(kept) < len(after) and not isinstance(after[-1].comma, cst.Comma):
            kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        elif kept and kept[-1] is not after[-1]:
            # the old last item's comma holds the line break before the closing bracket: the
            # new last item takes it, so no whitespace-only line is left where the item was
            kept[-1] = kept[-1].with_changes(comma=after[-1].comma)
        return kept

    def leave_Dict(self, original: cst.Dict, updated: cst.Dict) -> Node:  # noqa: N802
        kept = self._kept(original.elements, updated.elements, self.plan.remove_dict_entry, "dict",
                          lambda element: element.key if isinstance(element, cst.DictElement) else None)
        if len(kept) == len(updated.elements):
            return updated
        if not kept and "#" not in self.module.code_for_node(original):  # emptied: ``{}``, no blank line inside
            return updated.with_changes(elements=[], lbrace=cst.LeftCurlyBrace(), rbrace=cst.RightCurlyBrace())
        return updated.with_changes(elements=kept)

    def leave_ImportAlias(self, original: cst.ImportAlias, updated: cst.ImportAlias) -> Node:  # noqa: N802
        key = self._span(original.name)
        text = self.plan.replace.get(key) if key is not None else None
        if text is None or " as " not in text:
            return updated
        self.plan.matched.add(("replace", key))
        name, _, local = text.partition(" as ")
        return updated.with_changes(name=cst.parse_expression(name), asname=cst.AsName(name=cst.Name(local)))

    def leave_ImportFrom(self, original: cst.ImportFrom, updated: cst.ImportFrom) -> Node:  # noqa: N802
        if isinstance(original.names, cst.ImportStar) or isinstance(updated.names, cst.ImportStar):
            return updated
        kept = self._kept(original.names, updated.names, self.plan.remove_import_name, "import-name",
                          lambda alias: alias.name)
        if len(kept) == len(updated.names) or not kept:
            return updated
        return updated.with_changes(names=kept)

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine) -> Node:  # noqa: N802
        key = self._span(original.body[0]) if len(original.body) == 1 else None
        text = self.plan.replace.get(key) if key is not None else None
        if text is not None and "\n" in text:  # a statement replaced by a block (a version-adaptive import)
            self.plan.matched.add(("replace", key))
            return cst.parse_statement(_dedented(text)).with_changes(leading_lines=original.leading_lines)
        added = []
        for statement in original.body:
            key = self._span(statement)
            if key is not None and key in self.plan.insert_after:
                self.plan.matched.add(("insert", key))
                added.extend(cst.parse_statement(text) for text in self.plan.insert_after[key])
        if added:
            return cst.FlattenSentinel([self._settled(original, updated), *added])
        return self._settled(original, updated)

    def _settled(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine) -> Node:
        if original.body and not updated.body:
            # Keep the line's own comments in place and say what was removed and by which
            # rule (a file of the fork, not this tool's guide, which the fork lacks). An
            # import goes without a word: a comment inside the import block is what
            # black and ruff's isort move or separate, and the diff shows the import.
            notes = []
            if not all(isinstance(statement, (cst.Import, cst.ImportFrom)) for statement in original.body):
                removed = self.module.code_for_node(original.with_changes(leading_lines=())).strip()
                if "\n" in removed:  # a statement over several lines: one comment line
                    removed = re.sub(r"([(\[{]) | ([)\]}])", r"\1\2", " ".join(removed.split()))
                codes = sorted({self.plan.remove_statement.get(self._span(statement) or (0, 0, 0, 0), "")
                                for statement in original.body} - {""})
                notes = self._tombstone(original, f"# dflash-migrate: removed `{removed}`" + named(codes))
            return cst.SimpleStatementLine(body=[self.removed_mark], leading_lines=[*original.leading_lines, *notes])
        return updated

    def _tombstone(self, original: cst.CSTNode, text: str) -> list[cst.EmptyLine]:
        """The comment lines saying what was removed, at ``original``'s indentation, wrapped to
        the line length like a TODO (``migrator.edit.comments.wrap``): a published guide's
        address can take the one line past it."""
        position = self.get_metadata(PositionProvider, original, None)
        indent = position.start.column if position is not None else 0
        return [cst.EmptyLine(indent=True, whitespace=cst.SimpleWhitespace(""), comment=cst.Comment(line))
                for line in wrap(text, indent, self.width)]

    def _removed_block(self, original: cst.If, code: str) -> cst.SimpleStatementLine:
        """A whole ``if`` block removed (``migrator.python.rules.spec_v2_blocks``): a placeholder
        that ``_without_dropped`` drops, its comments and a breadcrumb naming the test and the
        rule kept for the next statement."""
        test_node = original.test.with_changes(lpar=[], rpar=[]) if hasattr(original.test, "lpar") else original.test
        test = " ".join(self.module.code_for_node(test_node).split())
        suffix = f" ({code})" if code else ""
        notes = self._tombstone(original, f"# dflash-migrate: removed the `if {test}:` block{suffix}")
        return cst.SimpleStatementLine(body=[self.removed_mark], leading_lines=[*original.leading_lines, *notes])

    def _without_dropped(self, block: cst.IndentedBlock | cst.Module) -> Node:
        """``block`` without the placeholders of statement lines whose every statement was
        removed: their leading lines go to the next statement, or to the block's footer; an
        indented block left empty gets a ``pass``."""
        kept: list[cst.BaseStatement] = []
        carry: list[cst.EmptyLine] = []
        for statement in block.body:
            if isinstance(statement, cst.SimpleStatementLine) and statement.body[0] is self.removed_mark:
                carry.extend(statement.leading_lines)  # type: ignore[attr-defined]
                continue
            if carry:
                own = list(statement.leading_lines)  # type: ignore[attr-defined]
                while carry and own and _blank(carry[-1]) and _blank(own[0]):  # one blank line where there was one
                    carry.pop()
                statement = statement.with_changes(leading_lines=[*carry, *own])  # type: ignore[attr-defined]
                carry = []
            kept.append(statement)
        if len(kept) == len(block.body):
            return block
        if not kept and isinstance(block, cst.IndentedBlock):
            kept, carry = [cst.SimpleStatementLine(body=[cst.Pass()], leading_lines=carry)], []
        return block.with_changes(body=kept, footer=[*carry, *block.footer])

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> Node:  # noqa: N802
        return self._without_dropped(updated)

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:  # noqa: N802
        return self._without_dropped(updated)  # type: ignore[return-value]


def _blank(line: cst.EmptyLine) -> bool:
    return line.comment is None


def _dedented(text: str) -> str:
    """A block whose first line starts at the replaced statement's column and whose other
    lines carry that statement's indentation, as a statement at column 0."""
    first, *rest = text.split("\n")
    indent = min((len(line) - len(line.lstrip(" \t")) for line in rest if line.strip()), default=0)
    return "\n".join([first, *(line[indent:] for line in rest)]) + "\n"


def _with_comments(statement: cst.CSTNode, comments: list[str]) -> cst.CSTNode:
    leading = list(statement.leading_lines)  # type: ignore[attr-defined]
    present = {line.comment.value.strip() for line in leading if line.comment is not None}
    for text in comments:  # one comment, wrapped: one line each (``migrator.edit.comments``)
        if text.split("\n", 1)[0].strip() not in present:
            leading.extend(cst.EmptyLine(indent=True, whitespace=cst.SimpleWhitespace(""), comment=cst.Comment(line))
                           for line in text.split("\n"))
    return statement.with_changes(leading_lines=leading)


def _with_statements_before(statement: cst.CSTNode, own_lines: int, texts: list[str]) -> cst.FlattenSentinel:
    """``texts`` parsed, above ``statement``: below its first ``own_lines`` leading lines (its
    own comments and blank lines), above the rest (the TODO comments added by this run)."""
    leading = list(statement.leading_lines)  # type: ignore[attr-defined]
    added = [cst.parse_statement(text) for text in texts]
    added[0] = added[0].with_changes(leading_lines=[*leading[:own_lines], *added[0].leading_lines])
    after = leading[own_lines:]
    if _is_import(added[-1]) and not _is_import(statement):  # black's blank line below the imports
        after = [cst.EmptyLine(indent=False), *after]
    return cst.FlattenSentinel([*added, statement.with_changes(leading_lines=after)])


def _is_import(statement: cst.CSTNode) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and isinstance(statement.body[0], (cst.Import, cst.ImportFrom))


def _append_with_commas(items: Sequence, new_items: list, opening_whitespace) -> list:  # noqa: ANN001
    """Append keeping the layout: a trailing-comma multi-line list stays one item per line."""
    items = list(items)
    if not items:
        return new_items
    last = items[-1]
    if isinstance(last.comma, cst.Comma):  # trailing comma: copy the line layout
        separator = items[-2].comma if len(items) >= 2 and isinstance(items[-2].comma, cst.Comma) else cst.Comma(
            whitespace_after=opening_whitespace if opening_whitespace is not None else cst.SimpleWhitespace(" "))
        items[-1] = last.with_changes(comma=separator)
        for new in new_items[:-1]:
            items.append(new.with_changes(comma=separator))
        items.append(new_items[-1].with_changes(comma=last.comma))
        return items
    items[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    for new in new_items[:-1]:
        items.append(new.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))))
    items.append(new_items[-1])
    return items


def _with_keywords(call: cst.Call, keywords: list[tuple[str, str]]) -> cst.Call:
    present = {arg.keyword.value for arg in call.args if arg.keyword is not None}
    new_args = [
        cst.Arg(
            keyword=cst.Name(name),
            value=cst.parse_expression(value),
            equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
        )
        for name, value in keywords
        if name not in present
    ]
    if not new_args:
        return call
    return call.with_changes(args=_append_with_commas(call.args, new_args, call.whitespace_before_args))


def _with_items(node: cst.List | cst.Tuple, texts: list[str]) -> cst.List | cst.Tuple:
    present = {getattr(e.value, "value", None) for e in node.elements}
    new_elements = [cst.Element(cst.parse_expression(t)) for t in texts if t not in present]
    if not new_elements:
        return node
    opening = node.lbracket.whitespace_after if isinstance(node, cst.List) else (node.lpar[0].whitespace_after if node.lpar else None)
    return node.with_changes(elements=_append_with_commas(node.elements, new_elements, opening))


def apply_with_libcst(data: bytes, edits: Sequence[Edit], width: int = DEFAULT_LINE_LENGTH) -> bytes:
    """Bytes of the module after the edits, the comments it writes wrapped to ``width``; raises
    RewriteError if any edit did not apply."""
    try:
        module = cst.parse_module(data)
    except cst.ParserSyntaxError as error:
        raise RewriteError(f"libcst cannot parse this file: {error.message} (line {error.raw_line})") from error
    plan = _Plan.of(edits)
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    updated = wrapper.visit(_Applier(plan, module, width))
    missing = plan.unmatched()
    if missing:
        raise RewriteError("could not apply edits (" + ", ".join(missing[:5]) + "); file left unchanged")
    if plan.imports:
        updated, appended = place(updated, plan.imports)  # in its sorted place where the imports are sorted
        context = CodemodContext()
        for item in appended:
            AddImportsVisitor.add_needed_import(context, item.module, item.name, relative=item.relative)
        updated = AddImportsVisitor(context).transform_module(updated)
    return updated.bytes
