"""Python embedded in another file: ``python -c "..."`` in a shell command (scripts,
Makefile recipes, Dockerfile ``RUN``, a YAML script block), a here-document fed to the
interpreter (``python3 - <<'EOF'``) and a YAML literal block under a
key naming a Python file (a ConfigMap's ``patch.py: |``), analysed as Python with its
positions mapped back (issue 47).

The code word is what the shell passes (quotes removed, ``migrator.text._shellparse``); it
is parsed with ``ast`` by the Python rules (``Ctx.python``, report-only) behind blank lines
that put it on its own line numbers. Where the word is written as its value between one pair
of quotes (no escapes, no expansions: the usual case), every column maps back one to one;
otherwise a finding stands on the whole word. Each finding gets a TODO above its command:
a fix inside a quoted program is not one this tool can prove keeps the quoting.
"""

from __future__ import annotations

import re

from migrator import catalog
from migrator.base.fileio import SourceError
from migrator.base.model import Finding, Fix, InsertComment, Span
from migrator.text import _core
from migrator.text._shellparse import ShellCommand, Word

#: ``python``, ``python3``, ``python3.11``, ``/usr/bin/python3``, ``pypy3``.
_INTERPRETER = re.compile(r"(?:.*/)?(?:python|pypy)(?:\d+(?:\.\d+)?)?")
#: Interpreter options that take the next word as their value (``-W ignore``, ``-X dev``).
_OPTION_WITH_VALUE = frozenset({"-W", "-X"})


def _might_match(source: str) -> bool:
    """Can a Python rule fire on ``source``? One of the catalog's trigger tokens is in it (the
    byte prefilter's tokens; a program is short)."""
    data = source.encode("utf-8", "surrogatepass")
    return any(token in data for token in catalog.trigger_tokens())


def might_hold(text: str) -> bool:
    """Cheap check before splitting a file into commands."""
    return "-c" in text and ("python" in text or "pypy" in text)


def _code_words(commands: list[ShellCommand]) -> list[tuple[ShellCommand, Word]]:
    out = []
    for cmd in commands:
        words = cmd.words
        for i, word in enumerate(words):
            if not _INTERPRETER.fullmatch(word.value):
                continue
            j = i + 1
            while j < len(words) and words[j].value.startswith("-") and words[j].value != "-c":
                j += 1 + (words[j].value in _OPTION_WITH_VALUE)  # an option's value is the next word
            if j + 1 < len(words) and words[j].value == "-c":
                out.append((cmd, words[j + 1]))
    return out


def _written(word: Word, lines: list[str]) -> str:
    """The word as written, over several lines too (the splitter joins a quoted word's lines)."""
    if word.end_line == word.line:
        return word.raw
    text = [lines[n - 1].rstrip("\r\n") for n in range(word.line, min(word.end_line, len(lines)) + 1)]
    text[-1], text[0] = text[-1][:word.end], text[0][word.start:]
    return "\n".join(text)


def _source(word: Word, lines: list[str]) -> tuple[str, int | None]:
    """(the code the interpreter gets, the column it starts at on ``word.line`` where every
    column maps one to one, else None)."""
    raw = _written(word, lines)
    if raw == word.value:
        return raw, word.start
    if len(raw) >= 2 and raw[0] in "'\"" and raw[-1] == raw[0] and raw[0] not in raw[1:-1] and (
            raw[0] == "'" or not re.search(r"[$`\\]", raw)):
        return raw[1:-1], word.start + 1
    return word.value, None


def python_c_findings(path: str, commands: list[ShellCommand], ctx: _core.Ctx, lines: list[str]) -> list[Finding]:
    """The Python rules' findings in every ``python -c CODE`` of ``commands`` (split from
    ``lines``)."""
    if ctx.python is None:
        return []
    out: list[Finding] = []
    for cmd, word in _code_words(commands):
        source, column = _source(word, lines)
        if not _might_match(source):
            continue
        try:
            found, _ = ctx.python("\n" * (word.line - 1) + source + "\n", path, report_only=True)
        except SourceError:
            continue
        for finding in found:
            if column is not None:  # only the code's first line is shifted
                start, end = finding.span
                span = Span.of(start.line, start.column + (column if start.line == word.line else 0),
                               end.line, end.column + (column if end.line == word.line else 0))
            else:
                span = Span.of(word.line, word.start, word.end_line, word.end)
            todo = catalog.todo_comment(catalog.get(finding.code), f"{finding.message} (in this `python -c`)")
            out.append(finding._replace(span=span, fix=Fix("manual", (InsertComment(cmd.first_line, todo),))))
    return out


def block_findings(path: str, lines: list[str], key_line: int, last: int, ctx: _core.Ctx) -> list[Finding]:
    """The Python rules' findings in lines ``key_line + 1 .. last`` (1-based) of ``lines``, a
    block of Python under the line ``key_line`` (a YAML literal block), its common indentation
    cut and added back to the columns; each finding a TODO above ``key_line`` (a comment
    inside the block would be part of the program)."""
    body = [lines[n - 1].rstrip("\r\n") for n in range(key_line + 1, last + 1)]
    source = "".join(body)
    if ctx.python is None or not _might_match(source):
        return []
    cut = min((len(line) - len(line.lstrip()) for line in body if line.strip()), default=0)
    masked = [""] * key_line + [line[cut:] for line in body]
    try:
        found, _ = ctx.python("\n".join(masked) + "\n", path, report_only=True)
    except SourceError:
        return []
    out = []
    for finding in found:
        start, end = finding.span
        span = Span.of(start.line, start.column + cut, end.line, end.column + cut)
        todo = catalog.todo_comment(catalog.get(finding.code), f"{finding.message} (in the Python block below)")
        out.append(finding._replace(span=span, fix=Fix("manual", (InsertComment(key_line, todo),))))
    return out


#: A command that feeds Python a here-document: ``python3 - <<'EOF'``, ``python <<-PY``.
_HEREDOC = re.compile(r"(?:^|[\s;&|(])(?:\S*/)?(?:python|pypy)[\d.]*(?:\s+-\S*)*\s*<<(-?)\s*(['\"]?)([A-Za-z_]\w*)\2")


def heredoc_findings(path: str, lines: list[str], ctx: _core.Ctx) -> list[Finding]:
    """The Python rules' findings in each here-document fed to the interpreter, each a TODO
    above the command that opens it."""
    out: list[Finding] = []
    number = 0
    while number < len(lines):
        opened = _HEREDOC.search(lines[number]) if "<<" in lines[number] else None
        number += 1
        if opened is None:
            continue
        strip_tabs, delimiter = opened.group(1) == "-", opened.group(3)
        end = next((k for k in range(number, len(lines))
                    if (lines[k].rstrip("\r\n").lstrip("\t") if strip_tabs else lines[k].rstrip("\r\n")) == delimiter),
                   len(lines))
        out += block_findings(path, lines, number, end, ctx)
        number = end + 1
    return out
