"""Jupyter notebooks: code cells through the Python rules, shell magics through the shell rules.

- shell escapes (``!cmd``, ``!!cmd``, ``%system cmd``, ``%sx cmd``) and ``%%bash``/
  ``%%sh``/``%%script bash`` cells: :mod:`.shell` rules, as in a ``.sh`` file (an
  ``export`` in one cell applies to launches later in the same cell);
- ``%env SGLANG_ENABLE_SPEC_V2=0`` / ``%env X 0``: like a ``.env`` setting;
- other code: the codemod's Python rules (the engine's analyser, passed to ``handle``), with magic
  lines hidden so that the cell parses;
- Markdown cells: :mod:`.markdown` rules (code blocks and inline code).

Positions: a finding's line is the line of the ``.ipynb`` file that holds that source line
(one JSON string per source line, as Jupyter writes them), its column is inside that JSON
string, and the message ends with ``[cell N, line M]`` (both 1-based). Suppression
comments in a cell work as in a script.

Validation: the file must be JSON (``json.loads``, an error with its line and column
otherwise); a cell whose ``source`` is not a string or a list of strings is an error naming
the cell, and every other cell is still scanned (the file is then not rewritten).

Rewrites edit the cell source and re-encode only the strings of edited cells (same
separator and indentation as the original array); every other byte of the file is kept.
"""

from __future__ import annotations

import bisect
import json
import re
from functools import lru_cache

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

from migrator.base.model import (
    FileError,
    FileResult,
    Finding,
    Fix,
    InsertComment,
    Position,
    RemoveStatement,
    Replace,
    RewriteError,
    Span,
)
from migrator.base.suppressions import Comments, filter_findings
from migrator.edit import applied, apply_text, chosen_edits
from migrator.edit.ranges import splice_ranges
from migrator.text import _core, _guard, _jsonspan, dotenv, markdown, shell
from migrator.text.quoting import FENCES, column_reader

_MAGIC = re.compile(r"^\s*(!|%%?|\?)")
_SHELL_CELL = re.compile(r"^%%(bash|sh|script\s+(ba)?sh)\b")
_ENV_MAGIC = re.compile(rf"^\s*%env\s+({re.escape(_core.ENV)})(?:\s*=\s*|\s+)(.*?)\s*$")


_ESCAPE = re.compile(r"^(\s*)(!!?|%system\b|%sx\b)")


def split_cell(source: str) -> tuple[str, str]:
    """(shell, Python) views of a code cell, line for line (other lines blank): a
    ``%%bash``/``%%sh`` cell is all shell; otherwise the shell escapes (``!cmd``,
    ``!!cmd``, ``%system cmd``, ``%sx cmd``) are shell, and the rest is Python with every
    magic line masked so that the cell parses."""
    lines = source.split("\n")
    if _SHELL_CELL.match(lines[0]):
        return "\n".join([""] + lines[1:]) + "\n", ""
    shell_lines: list[str] = []
    python_lines: list[str] = []
    for line in lines:
        escape = _ESCAPE.match(line)
        shell_lines.append(" " * escape.end() + line[escape.end():] if escape else "")
        if not _MAGIC.match(line):
            python_lines.append(line)
        elif line[:1] in "!%?":
            python_lines.append("#" + line[1:])
        else:
            python_lines.append(" " * (len(line) - len(line.lstrip())) + "pass  #")
    return "\n".join(shell_lines) + "\n", "\n".join(python_lines) + "\n"


def _cell_findings(path: str, cell_type: str, source: str, ctx: _core.Ctx) -> tuple[list[Finding], str | None]:
    """Findings in cell coordinates (line 1 = first source line), and Python-rewritten source."""
    if cell_type == "markdown":
        return markdown.analyze(path, source, ctx), None
    if cell_type != "code":
        return [], None
    lines = source.split("\n")
    shell_text, python_text = split_cell(source)
    if _SHELL_CELL.match(lines[0]):
        return shell.analyze(path, shell_text, ctx), None
    out: list[Finding] = []
    for number, line in enumerate(lines, start=1):
        if m := _ENV_MAGIC.match(line):
            out.append(dotenv.setting_finding(path, number, m.start(1), m.group(2)))
    if shell_text.strip():
        out += shell.analyze(path, shell_text, ctx)
    rewritten = None
    if any(not _MAGIC.match(x) and x.strip() for x in lines):
        try:
            found, new = ctx.python(python_text, path)
        except Exception:  # a cell that is not Python (other kernels): shell rules only
            return out, None
        out += found
        if new is not None and not any(_MAGIC.match(x) for x in lines):
            rewritten = new if source.endswith("\n") else new.rstrip("\n")
    return out, rewritten


def _to_file(f: Finding, cell: _jsonspan.CellSource, text: str, starts: list[int], source: str = "") -> Finding:
    """Move a finding from cell coordinates to the JSON line/column where its text is
    written inside the source string (escapes such as ``\\"`` counted as written)."""
    def where(pos: Position) -> Position:
        if cell.is_list:
            index, decoded = min(pos.line - 1, len(cell.tokens) - 1), pos.column
        else:
            line_starts = _line_starts(source)
            index, decoded = 0, line_starts[min(pos.line, len(line_starts)) - 1] + pos.column
        start, end = cell.tokens[index]
        offset = start + 1 + _written_length(text, start + 1, end - 1, decoded)
        line = bisect.bisect_right(starts, offset)  # ``starts``: the file's line offsets, found once
        return Position(line, offset - starts[line - 1])

    span = Span(where(f.span.start), where(f.span.end))
    message = f"{f.message} [cell {cell.index + 1}, line {f.span.start.line}]"
    return Finding(f.path, span, f.code, message, _fix_in_file(f.fix, where))


@lru_cache(maxsize=4)
def _line_starts(source: str) -> list[int]:
    return [0] + [i + 1 for i, ch in enumerate(source) if ch == "\n"]


def _written_length(text: str, begin: int, end: int, decoded: int) -> int:
    """How many characters of the JSON string body ``text[begin:end]`` hold its first
    ``decoded`` characters."""
    pos = begin
    while decoded > 0 and pos < end:
        if text[pos] != "\\":
            pos += 1
        elif text[pos + 1] == "u":
            high = int(text[pos + 2:pos + 6], 16)
            pos += 12 if 0xD800 <= high < 0xDC00 and text.startswith("\\u", pos + 6) else 6
        else:
            pos += 2
        decoded -= 1
    return pos - begin


def _fix_in_file(fix: Fix | None, where: Callable[[Position], Position]) -> Fix | None:
    """The reported fix in file coordinates (what SARIF viewers apply to the ``.ipynb``):
    a one-line replacement becomes the same replacement, JSON-escaped, inside the source
    string; edits that add or remove cell lines cannot be spelled that way and are left
    out (``handle`` rewrites cells from the cell-coordinate findings, not from these)."""
    if fix is None or not fix.edits:
        return fix
    if not all(isinstance(e, Replace) and e.span.start.line == e.span.end.line for e in fix.edits):
        return fix._replace(edits=(), fallback=())
    edits = tuple(Replace(Span(where(e.span.start), where(e.span.end)), json.dumps(e.text, ensure_ascii=False)[1:-1])
                  for e in fix.edits)
    return fix._replace(edits=edits, fallback=())


def _encode(source: str, cell: _jsonspan.CellSource, text: str) -> str:
    if not cell.is_list:
        return json.dumps(source, ensure_ascii=False)
    parts = [json.dumps(line, ensure_ascii=False) for line in _core.split_lines(source, "shell")]  # Jupyter: at LF
    if len(cell.tokens) > 1:
        sep = text[cell.tokens[0][1]:cell.tokens[1][0]]
    else:
        lead = text[cell.region[0]:cell.tokens[0][0]]
        sep = "," + lead if "\n" in lead else ", "
    body = sep.join(parts)
    return text[cell.region[0]:cell.tokens[0][0]] + body + text[cell.tokens[-1][1]:cell.region[1]]


def handle(path: str, data: bytes, ctx: _core.Ctx) -> FileResult:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return FileResult(path, error=FileError(path, f"not a readable notebook: not UTF-8 ({exc.reason} at byte {exc.start})"))
    try:
        _, cells, problems = _jsonspan.cell_sources(text.lstrip(_core.BOM))
    except _jsonspan.NotebookError as exc:
        return FileResult(path, error=FileError(path, f"not a readable notebook: {exc}", exc.line, exc.column))
    bom = text[: len(text) - len(text.lstrip(_core.BOM))]
    text = text[len(bom):]
    starts = _line_starts(text)
    result = FileResult(path)
    if problems:  # the other cells are still scanned; the file is not rewritten (the engine writes no file with an error)
        result.error = FileError(path, "; ".join(p.message for p in problems), problems[0].line)
    enabled = ctx.enabled
    edited: list[tuple[_jsonspan.CellSource, str, list[Finding], str | None]] = []
    for cell in cells:
        source = "".join(json.loads(text[a:b]) for a, b in cell.tokens)
        found, rewritten = _cell_findings(path, cell.cell_type, source, ctx)
        found = [f for f in found if enabled(f.code) and ctx.fires(f.code)]
        malformed: list[tuple[int, str]] = []
        syntax = "python" if cell.cell_type == "code" else "markdown" if cell.cell_type == "markdown" else "hash"
        comments = Comments(column_reader("text"), column_reader("shell"), FENCES)
        found, suppressed, unused = filter_findings(source, found, syntax, malformed, comments=comments)
        if malformed and result.error is None:
            at = _to_file(Finding(path, Span.of(malformed[0][0], 0, malformed[0][0], 0), "", ""), cell, text, starts).line
            result.error = FileError(path, "; ".join(message for _, message in malformed), at)
        result.suppressed += suppressed
        result.unused_suppressions += [(_to_file(Finding(path, Span.of(line, 0, line, 0), "", ""), cell, text,
                                                 starts, source).line, codes) for line, codes in unused]
        edited.append((cell, source, found, rewritten))
    unsafe = ctx.unsafe_fixes
    if ctx.fixes:
        try:
            out = _rewrite(edited, text, unsafe, result, ctx.line_length)
            reason = None if out is None else _guard.verdict(guard, path, text, out)
            if reason is not None:  # the text-fix guard refuses: every applied fix becomes a TODO saying why
                edited = [(cell, source, [_core.refused(f, reason) if applied(f.fix, unsafe) else f for f in found],
                           None) for cell, source, found, _ in edited]
                result.refused, result.fixes_applied = result.fixes_applied, 0
                out = _rewrite(edited, text, unsafe, result, ctx.line_length)
        except RewriteError as error:  # the rules' edits do not fit together: nothing is written
            result.error, out = FileError(path, f"{error}; file left unchanged"), None
            result.fixes_applied = 0
        if out is not None:
            result.new_bytes = (bom + out).encode("utf-8")
    for cell, source, found, _ in edited:
        result.findings += [_to_file(f, cell, text, starts, source) for f in found]
    result.findings.sort(key=Finding.sort_key)
    return result


def _cells(text: str) -> list[tuple[str, str]]:
    data = json.loads(text)
    cells = data.get("cells", []) if isinstance(data, dict) else []
    return [(cell.get("cell_type", ""), "".join(source) if isinstance(source := cell.get("source", ""), list)
             else str(source)) for cell in cells if isinstance(cell, dict)]


def guard(path: str, before: str, after: str) -> str | None:
    """The text-fix guard's check of a notebook: JSON with the same cells; each edited code
    cell still compiles (magics masked) and its shell passes ``bash -n``; each edited
    Markdown cell passes the Markdown check."""
    try:
        old = _cells(before)
    except ValueError as error:
        return f"the original notebook is not JSON ({error}), so the fix cannot be checked"
    try:
        new = _cells(after)
    except ValueError as error:
        return f"the fixed notebook would not be JSON ({error})"
    if len(old) != len(new):
        return "the fixed notebook would have another number of cells"
    for index, ((kind, a), (_, b)) in enumerate(zip(old, new), start=1):
        problem = None
        if a != b and kind == "markdown":
            problem = markdown.guard(path, a, b)
        elif a != b and kind == "code":
            (shell_a, python_a), (shell_b, python_b) = split_cell(a), split_cell(b)
            problem = _guard.script(shell_a, shell_b, "shell of the cell") if shell_a != shell_b else None
            if problem is None and python_a != python_b:
                problem = _guard.compare("cell", _guard.compile_error(python_a), _guard.compile_error(python_b))
        if problem is not None:
            return f"cell {index}: {problem}"
    return None


def _rewrite(edited: list, text: str, unsafe: bool, result: FileResult, width: int) -> str | None:
    """The notebook with each cell's chosen fixes applied (None: nothing changes), TODOs wrapped
    to ``width``; counts the fixes into ``result``."""
    replacements: list[tuple[int, int, str]] = []
    for cell, source, found, rewritten in edited:
        textual = [f for f in found if f.fix is None or all(isinstance(e, (Replace, RemoveStatement, InsertComment))
                                                            for e in f.fix.edits)]
        edits, fixes = chosen_edits(textual, unsafe), sum(applied(f.fix, unsafe) for f in textual)
        new_source = apply_text(source, edits, width=width) if rewritten is None else rewritten
        if new_source != source:
            replacements.append((*cell.region, _encode(new_source, cell, text)))
            result.fixes_applied += fixes
    if not replacements:
        return None
    return splice_ranges(text, sorted(replacements))


RULE = _core.TextRule("notebook", (), embeds=("python", "shell", "dotenv", "markdown"),
    examples=_core.Examples(
        invalid=(
            (
                '{"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null,\n'
                '  "source": ["from sglang.srt.speculative.dflash_worker import DFlashWorker\\n"]}],\n'
                ' "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n'
            ),
        ),
        valid=(
            (
                '{"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null,\n'
                '  "source": ["from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2\\n"]}],\n'
                ' "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n'
            ),
        ),
        path="demo.ipynb",
    ),
)
