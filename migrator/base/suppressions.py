"""Inline suppression comments, and the report of those that no longer suppress anything.

Forms (codes are optional, comma-separated)::

    x = old()  # dflash-migrate: ignore[DFM101]      <- this line
    # dflash-migrate: ignore[DFM101, DFM105]         <- a comment on its own line: the next line
    # dflash-migrate: ignore-file[DFM201]            <- anywhere in the file: the whole file

A directive counts only inside a real comment (``syntax``): Python comments as
``tokenize`` sees them (never a string literal); ``#`` comments of shell, YAML, TOML,
Dockerfiles, Makefiles and ``.env`` files (a ``#`` at a word start, outside quotes: not
``http://x/#dflash-migrate:...``), quotes read as the file type's readers read them
(``Comments``, given by the file type: :mod:`migrator.text.quoting`); in Markdown an HTML
comment ``<!-- dflash-migrate: ... -->`` in prose (never in a code span or an indented
code block); ``//`` comments in JSON. Text that only shows a directive is data, where
nothing counts: a shell here-document or a string over several lines, a YAML block scalar
that is text, a TOML multi-line string.

A line directive (``ignore``) also counts in a comment of a language embedded in the file
that the rules read as such: a ``#`` comment in a Markdown fence of a shell/YAML/TOML/
Dockerfile/Python block, in a YAML ``run: |`` (or other script key) block, in a Makefile
recipe line, in a Dockerfile instruction continued over lines. ``ignore-file`` counts only
in a top-level comment of the file's own syntax, never in those (``regions``, from the
file's text rule).

The directive must start the comment (or a ``#`` part of it, as in ``# type: ignore  #
dflash-migrate: ignore``), spelled exactly: ``ignore-files`` or ``ignored`` are prose, not
directives.

In Python (and notebook code cells) ruff's spelling works too: ``# noqa: DFM101`` (codes
separated by commas or spaces) hides the DFM codes it lists on its line, so one comment
serves ruff (with ``lint.external = ["DFM"]``) and this tool. Other tools' codes in the
list are ignored (never reported as unused), and a bare ``# noqa`` hides nothing here: it
would hide every V1 reference on the line without naming one.

A bare ``ignore`` / ``ignore-file`` (no brackets) suppresses every code; empty brackets
(``ignore[]``, ``ignore[ ]``) or something that is not a rule code between them are an
error naming the line (``malformed``), and suppress nothing. A directive that hid no
finding is returned as unused so ``lint`` can report stale suppressions (as ruff's RUF100).
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Callable, Container, Iterator, Mapping
from functools import partial

from migrator.base.lines import may_suppress, split_lines
from migrator.base.model import Finding
from migrator.base.records import NamedTuple, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

    Syntax = Literal["python", "hash", "markdown", "json"]


_AFTER_MARKER = re.compile(
    r"\s*dflash-migrate:\s*(?P<kind>ignore-file|ignore)(?![\w-])(?P<brackets>\[(?P<codes>[^\]]*)\])?"
)
_MARKERS: dict[str, str] = {"python": "#", "hash": "#", "json": "//"}
_PART = re.compile(r"(?:^|(?<=\s))(?:#|//)")
_CODE = re.compile(r"^[A-Z]{1,8}\d{1,4}$")
#: ruff's ``noqa`` directive (a ``#`` part that starts with it); only this tool's codes count.
_NOQA = re.compile(r"\s*noqa:\s*(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*)", re.IGNORECASE)
OWN_PREFIX = "DFM"
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})\s*([\w+-]*)")


class Directive:
    """One suppression comment, and whether a finding used it: a mutable accumulator
    (``migrator.base.records``)."""

    __slots__ = ("line", "codes", "file_level", "own_line", "used")

    def __init__(self, line: int, codes: tuple[str, ...], file_level: bool, own_line: bool) -> None:
        self.line = line
        self.codes = codes  # empty: every code
        self.file_level = file_level
        self.own_line = own_line
        self.used = False  # set by filter_findings

    def covers(self, finding: Finding) -> bool:
        if self.codes and finding.code not in self.codes:
            return False
        if self.file_level:
            return True
        return finding.line == self.line or (self.own_line and finding.line == self.line + 1)


def _python_comments(text: str) -> Iterator[tuple[int, int, str]]:
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                yield token.start[0], token.start[1], token.string
    except (tokenize.TokenError, SyntaxError):
        return  # the comments before the error still count


ColumnOf = Callable[[str], "int | None"]


def quoted_column(line: str, marker: str, escaped: str, plain: str) -> int | None:
    """Where a comment opened by ``marker`` at a word start starts on ``line``, outside
    quotes: those in ``escaped`` take a backslash escape, those in ``plain`` none."""
    quote = ""
    i = 0
    while i < len(line):
        ch = line[i]
        if quote:
            if ch == "\\" and quote in escaped:
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in escaped or ch in plain:
            quote = ch
        elif line.startswith(marker, i) and (i == 0 or line[i - 1] in " \t"):
            return i
        i += 1
    return None


@record
class Comments(NamedTuple):
    """Where the comments of a file's lines start, as its file type reads them: ``own``
    for its own lines, ``embedded`` for lines of an embedded shell (``regions``), ``fences``
    for a Markdown fence's lines by language (a language not there has no comments)."""

    own: ColumnOf
    embedded: ColumnOf
    fences: Mapping[str, ColumnOf]

    @classmethod
    def plain(cls, marker: str = "#") -> Comments:
        """Both quotes with backslash escapes (direct callers that name no file type)."""
        column = partial(_plain_column, marker=marker)
        return cls(column, column, {})


def _plain_column(line: str, marker: str) -> int | None:
    return quoted_column(line, marker, "\"'", "")


def _marker_comments(lines: list[str], own: ColumnOf, first: int = 1, embedded: Container[int] = (),
                     embedded_column: ColumnOf | None = None) -> Iterator[tuple[int, int, str]]:
    """The comments of ``lines``; the lines in ``embedded`` read by ``embedded_column``."""
    for number, line in enumerate(lines, start=first):
        if "dflash-migrate:" in line:
            read = embedded_column if embedded_column is not None and number in embedded else own
            start = read(line)
            if start is not None:
                yield number, start, line[start:]


def _markdown_comments(lines: list[str], fences: Mapping[str, ColumnOf]) -> Iterator[tuple[int, int, str]]:
    """HTML comments of prose (never in a code span or an indented code block), and ``#``
    comments of fenced blocks in a language with them (their text starts ``#\\0``: an
    embedded language, where ``ignore-file`` does not count)."""
    fence, language = "", ""
    previous_blank = True
    indented_code = False
    for number, line in enumerate(lines, start=1):
        opening = _FENCE.match(line)
        if fence:
            if line.lstrip().startswith(fence):
                fence = ""
            elif language in fences:
                for at, column, comment in _marker_comments([line], fences[language], number):
                    yield at, column, "#\0" + comment[1:]
            continue
        if opening:
            fence, language = opening.group(1), opening.group(2).lower()
            continue
        indented = line.startswith(("    ", "\t")) and bool(line.strip())
        indented_code = indented and (previous_blank or indented_code)
        previous_blank = not line.strip()
        if indented_code:
            continue
        prose = re.sub(r"(`+)(.+?)\1", lambda m: " " * len(m.group(0)), line)  # code spans are text
        for match in re.finditer(r"<!--(.*?)(?:-->|$)", prose):
            yield number, match.start(), "#" + line[match.start(1):match.end(1)]


def _lines(text: str, reader: str) -> list[str]:
    return [line.rstrip("\r\n\x85\u2028\u2029") for line in split_lines(text, reader)]


def _comments(text: str, lines: list[str], syntax: Syntax, comments: Comments,
              embedded: set[int]) -> Iterator[tuple[int, int, str]]:
    """(line, column, text) of each comment of ``text`` (split into ``lines``); the text
    starts with the marker (``#`` for HTML)."""
    if syntax == "python":
        return _python_comments(text)
    if syntax == "markdown":
        return _markdown_comments(lines, comments.fences)
    return _marker_comments(lines, comments.own, embedded=embedded, embedded_column=comments.embedded)


def scan(text: str, syntax: Syntax = "hash", reader: str = "python",
         regions: Callable[[str], tuple[set[int], set[int]]] | None = None,
         comments: Comments | None = None) -> tuple[list[Directive], list[tuple[int, str]]]:
    """(directives, malformed ones as ``(line, message)``) in the comments of ``text``, its
    lines split as ``reader`` splits them (``migrator.base.lines.split_lines``). ``regions``: the
    file's text rule saying which lines are data (no comment there) and which an embedded
    language, shell (a line directive counts, ``ignore-file`` does not: it counts only in a
    top-level comment). ``comments``: where the file type's comments start (by default
    both quotes taking backslash escapes). In Python, ``# noqa: DFM...`` lists count too."""
    if not may_suppress(text, syntax == "python"):
        return [], []
    lines = _lines(text, reader)
    data, embedded = regions(text) if regions is not None else (set(), set())
    directives: list[Directive] = []
    malformed: list[tuple[int, str]] = []
    comments = comments or Comments.plain(_MARKERS.get(syntax, "#"))
    for number, column, comment in _comments(text, lines, syntax, comments, set(embedded)):
        if number in data:
            continue
        if syntax == "python":
            noqa = _noqa_codes(comment)
            if noqa:
                directives.append(Directive(number, noqa, False, False))
        if "dflash-migrate:" not in comment:
            continue
        if comment.startswith("#\0"):  # a comment of a Markdown fence: an embedded language
            comment = "#" + comment[2:]
            embedded.add(number)
        # Each ``#`` part (``# type: ignore  # dflash-migrate: ...``); a marker inside a word
        # (``https://x/#dflash-migrate:``) starts no part.
        for part in _PART.split(comment)[1:]:
            match = _AFTER_MARKER.match(part)
            if not match:
                continue
            codes: tuple[str, ...] = ()
            if match.group("brackets"):
                names = [c.strip().upper() for c in match.group("codes").split(",")]
                bad = [n for n in names if not _CODE.match(n)]
                if not any(names) or bad:
                    what = "an empty code list" if not any(names) else f"{', '.join(repr(n) for n in bad)} (not a rule code)"
                    malformed.append((number, f"malformed suppression `{match.group(0).strip()}`: {what}; "
                                              "name the codes, e.g. ignore[DFM101], or drop the brackets"))
                    continue
                codes = tuple(sorted(set(names)))
            if match.group("kind") == "ignore-file" and number in embedded:
                continue  # not a top-level comment of the file's own syntax
            line = lines[number - 1] if number - 1 < len(lines) else ""
            own = not line[:column].strip() or syntax == "markdown" and not re.sub(r"<!--.*?-->", "", line).strip()
            directives.append(Directive(number, codes, match.group("kind") == "ignore-file", own))
    return directives, malformed


def _noqa_codes(comment: str) -> tuple[str, ...]:
    """This tool's codes in the ``# noqa: ...`` parts of a Python comment."""
    codes: set[str] = set()
    for part in _PART.split(comment)[1:]:
        match = _NOQA.match(part)
        if match:
            codes.update(code for code in re.split(r"[,\s]+", match.group("codes").upper()) if code.startswith(OWN_PREFIX))
    return tuple(sorted(codes))


def parse(text: str, syntax: Syntax = "hash") -> list[Directive]:
    """All well-formed suppression directives in ``text`` (cheap: skipped unless the marker occurs)."""
    return scan(text, syntax)[0]


def filter_findings(
    text: str, findings: list[Finding], syntax: Syntax = "hash", errors: list[tuple[int, str]] | None = None,
    reader: str = "python", regions: Callable[[str], tuple[set[int], set[int]]] | None = None,
    comments: Comments | None = None,
) -> tuple[list[Finding], int, list[tuple[int, tuple[str, ...]]]]:
    """Split ``findings`` by the directives in the comments of ``text``.

    Returns (kept findings, number suppressed, unused directives as ``(line, codes)``);
    malformed directives are appended to ``errors`` as ``(line, message)``.
    """
    directives, malformed = scan(text, syntax, reader, regions, comments)
    if errors is not None:
        errors.extend(malformed)
    if not directives:
        return list(findings), 0, []
    kept: list[Finding] = []
    suppressed = 0
    file_level = [d for d in directives if d.file_level]
    by_line: dict[int, list[Directive]] = {}  # the lines each directive may cover, indexed once
    for d in directives:
        if not d.file_level:
            for line in (d.line, d.line + 1) if d.own_line else (d.line,):
                by_line.setdefault(line, []).append(d)
    for finding in findings:
        hits = [d for d in (*file_level, *by_line.get(finding.line, ())) if d.covers(finding)]
        if hits:
            suppressed += 1
            for d in hits:
                d.used = True
        else:
            kept.append(finding)
    unused = [(d.line, d.codes) for d in directives if not d.used]
    return kept, suppressed, unused


def filter_late(text: str, finding: Finding, unused: list[tuple[int, tuple[str, ...]]]) -> bool:
    """Is ``finding``, made after its Python file's own pass (the run-level
    ``catalog.VENDORED_CODE``), hidden by a directive in ``text``? As :func:`filter_findings`
    decides for the file's own findings; the directives that hide it leave ``unused`` (the
    file's own pass reported them unused: nothing of its own used them)."""
    hits = {(d.line, d.codes) for d in parse(text, "python") if d.covers(finding)}
    unused[:] = [u for u in unused if u not in hits]
    return bool(hits)
