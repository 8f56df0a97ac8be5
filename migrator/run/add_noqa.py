"""``lint --add-noqa``: write a suppression comment for every finding, for teams that prefer
comments to a baseline file (ruff's ``--add-noqa``).

Only where a comment provably changes nothing but the suppression:

* Python: ``  # dflash-migrate: ignore[CODE]`` at the end of the finding's line, when
  ``tokenize`` shows that the line ends outside any string and without a backslash
  continuation; an existing directive on that line gets the code added; another comment
  keeps its text and the directive follows it.
* the file types that declare a statement start (``migrator.text.filetypes``: shell,
  ``.env``, TOML, YAML and Dockerfiles): ``# dflash-migrate: ignore[CODE]`` on its own
  line above the finding's line, with its indentation, when that line starts a statement
  (no continuation ``\\`` above it, no heredoc, YAML block scalar or multi-line string it
  could be inside; for shell and Dockerfiles, as the shell parser of the fixes reads the
  text above, refusing every line after text it cannot read for sure).
* Markdown, JSON and notebooks, and every line the checks above refuse: nothing is written;
  the findings are counted as left, for ``--write-baseline``.

Files are rewritten atomically (:func:`migrator.base.fileio.write_atomic`), only if
unchanged since they were read, and, as ``fix`` does, only if git holds no uncommitted work
for them (:mod:`migrator.run.uncommitted`) unless ``--allow-dirty``.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections import defaultdict
from collections.abc import Callable
from functools import cache
from pathlib import Path

from migrator.base.fileio import SourceError, read_bytes, write_atomic
from migrator.base.lines import split_lines
from migrator.base.model import FileResult
from migrator.text._shellparse import unsafe_line_starts
from migrator.run.uncommitted import Uncommitted
from migrator.text.filetypes import FileType, filetype_for, of_module

PREFIX = "dflash-migrate: ignore"
_EXISTING = re.compile(r"dflash-migrate:\s*ignore\[(?P<codes>[^\]]*)\]")
_BLOCK_SCALAR = re.compile(r"[:-]\s*[|>][-+0-9]*\s*(#.*)?$")


class Added:
    """Counts of an ``--add-noqa`` run."""

    __slots__ = ("comments", "files", "left", "errors")

    def __init__(self) -> None:
        self.comments = 0
        self.files = 0
        self.left = 0
        self.errors: list[str] = []


def directive(codes: set[str]) -> str:
    return f"# {PREFIX}[{', '.join(sorted(codes))}]"


def _codes_of(existing: re.Match[str]) -> set[str]:
    """The codes an existing directive names."""
    return {c.strip() for c in existing.group("codes").split(",") if c.strip()}


def _python_safe_line_ends(data: bytes) -> tuple[set[int], dict[int, tuple[int, str]]] | None:
    """Lines that end outside strings and continuations, and each line's comment (column, text)."""
    ends: set[int] = set()
    comments: dict[int, tuple[int, str]] = {}
    try:
        for token in tokenize.tokenize(io.BytesIO(data).readline):
            if token.type in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER):
                ends.add(token.start[0])
            elif token.type == tokenize.COMMENT:
                comments[token.start[0]] = (token.start[1], token.string)
    except (tokenize.TokenError, SyntaxError):
        return None
    return ends, comments


def _python(data: bytes, wanted: dict[int, set[str]]) -> tuple[bytes, set[int]]:
    scanned = _python_safe_line_ends(data)
    if scanned is None:
        return data, set()
    ends, comments = scanned
    lines = data.splitlines(keepends=True)
    done: set[int] = set()
    for number, codes in wanted.items():
        if number not in ends or number > len(lines):
            continue
        body = lines[number - 1].rstrip(b"\r\n")
        end = lines[number - 1][len(body):]
        text = body.decode("utf-8", "surrogateescape")
        existing = _EXISTING.search(text) if number in comments else None
        if existing is not None:
            merged = codes | _codes_of(existing)
            text = text[:existing.start()] + f"{PREFIX}[{', '.join(sorted(merged))}]" + text[existing.end():]
        else:
            text = text.rstrip() + "  " + directive(codes)
        lines[number - 1] = text.encode("utf-8", "surrogateescape") + (end or b"\n")
        done.add(number)
    return b"".join(lines), done


def _inside_yaml_block(lines: list[str], index: int) -> bool:
    indent = len(lines[index]) - len(lines[index].lstrip())
    for previous in reversed(lines[:index]):
        stripped = previous.strip()
        if not stripped or stripped.startswith("#"):
            continue
        level = len(previous) - len(previous.lstrip())
        if level < indent:
            if _BLOCK_SCALAR.search(previous.rstrip()):
                return True
            indent = level
            if level == 0:
                return False
    return False


def _quote_left_open(lines: list[str], index: int) -> bool:
    """Whether the text above line ``index`` holds an odd number of either quote (a string
    over several lines could still be open)."""
    text_before = "".join(lines[:index])
    return bool(text_before.count('"') % 2 or text_before.count("'") % 2)


def _toml_string_open(lines: list[str], index: int) -> bool:
    text_before = "".join(lines[:index])
    return '"""' in text_before or "'''" in text_before


def _yaml_block(lines: list[str], index: int) -> bool:
    return _inside_yaml_block(lines, index) or "[" in lines[index].split(":", 1)[0]


#: By the quoting a file type declares: could a line start inside a string (or a block
#: scalar, a here-document) of the text above it? Shell is answered by its parser.
_INSIDE_TEXT: dict[str, Callable[[list[str], int], bool]] = {
    "toml": _toml_string_open, "yaml": _yaml_block, "dotenv": _quote_left_open, "backslash": _quote_left_open,
    "text": _quote_left_open, "make": _quote_left_open,
}


@cache
def _statement_start(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _own_line_ok(filetype: FileType, lines: list[str], index: int,
                 shell_starts: tuple[set[int], int | None] = (set(), None)) -> bool:
    """May a comment line go above line ``index``? ``shell_starts``: for shell-quoted types,
    the lines the shell parser of the fixes sees start inside a string or a here-document,
    and the first line it cannot read for sure (``unsafe_line_starts``)."""
    if filetype.statement_start is None or not _statement_start(filetype.statement_start).match(lines[index]):
        return False
    if index and lines[index - 1].rstrip("\r\n").endswith("\\") and not filetype.comment_in_continuation:
        return False
    if filetype.quoting == "shell":
        inside, unsure = shell_starts
        return not ("<<" in "".join(lines[:index]) or index + 1 in inside or (unsure is not None and unsure <= index))
    return not _INSIDE_TEXT[filetype.quoting](lines, index)


def _own_line(filetype: FileType | str, data: bytes, wanted: dict[int, set[str]]) -> tuple[bytes, set[int]]:
    """``data`` with a comment line above each wanted line where one is safe (a file type,
    or the name of a text module: its first type)."""
    if isinstance(filetype, str):
        filetype = of_module(filetype)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return data, set()

    lines = split_lines(text, filetype.reader)
    newline = "\r\n" if "\r\n" in text else "\n"
    done: set[int] = set()
    shell_starts = unsafe_line_starts(lines) if filetype.quoting == "shell" else (set(), None)
    for number in sorted(wanted, reverse=True):  # bottom up: earlier line numbers stay valid
        index = number - 1
        if index >= len(lines) or not _own_line_ok(filetype, lines, index, shell_starts):
            continue
        above = lines[index - 1] if index else ""
        codes = set(wanted[number])
        existing = _EXISTING.search(above) if above.lstrip().startswith("#") else None
        indent = lines[index][: len(lines[index]) - len(lines[index].lstrip())]
        if existing is not None:
            codes |= _codes_of(existing)
            lines[index - 1] = indent + directive(codes) + newline
        else:
            lines.insert(index, indent + directive(codes) + newline)
        done.add(number)
    return "".join(lines).encode("utf-8"), done


def add(results: list[FileResult], refuse_uncommitted: bool = False) -> Added:
    """Write suppression comments for the findings in ``results``; return the counts.
    ``refuse_uncommitted`` (the command line's, unless ``--allow-dirty``): a file holding
    uncommitted work is not written (:mod:`migrator.run.uncommitted`)."""
    dirty = Uncommitted().scan([r.path for r in results if r.findings]) if refuse_uncommitted else None
    counts = Added()
    for result in results:
        # information is no work to suppress: its old spelling still works on the target
        findings = [f for f in result.findings if not f.informational]
        if not findings:
            continue
        wanted: dict[int, set[str]] = defaultdict(set)
        for finding in findings:
            wanted[finding.line].add(finding.code)
        path = result.path
        python = path.endswith((".py", ".pyi"))
        filetype = None if python else filetype_for(path)
        if not python and (filetype is None or filetype.statement_start is None):
            counts.left += len(findings)
            continue
        try:
            old = read_bytes(path)
            new, done = _python(old, wanted) if filetype is None else _own_line(filetype, old, wanted)
            refusal = dirty.reason(path, old) if dirty is not None and new != old else None
            if refusal is not None:
                raise SourceError(refusal)
            if new != old:
                write_atomic(Path(path), new, old)
                counts.files += 1
        except (OSError, SourceError) as error:
            counts.errors.append(f"{path}: {error}")
            counts.left += len(findings)
            continue
        counts.comments += len(done)
        counts.left += sum(1 for f in findings if f.line not in done)
    return counts
