"""Parse only the parts of a large candidate file that can hold a finding (``lint``).

``ast.parse`` is most of a lint's CPU time, and most of that goes to big files that
mention a V1 name a handful of times (sglang's ``server_args.py``: 351 KB, ~10 relevant
lines), whose other statements the analysis then skips unread (``migrator.python.analysis``:
cold statements). Here those statements are blanked *before* parsing: top-level
statements, members of top-level classes and statements of hot functions that hold no
relevant word (and no ``import`` whose name the kept code could see: one inside a cold
function binds a name of that function only) become empty lines, a blanked class member
becomes ``pass``. The masked text has the same lines and columns as the file, so every
node carries the real position.
Measured on sglang 0.5.13 (BENCHMARKS.md, "partial parsing again"): parsing and analysing
the candidates costs ~115 ms less CPU, the one shortcut that decides whether the lint keeps
its ratio to ruff's banned-api lint.

Statement boundaries without the tokenizer (pure-Python ``tokenize`` costs more than the
parse it would save): one regex finds every string literal and comment (all a line break
or a bracket can hide in), brackets are counted in what remains, and a line starts a
statement when it is not inside a string, a bracket or a backslash continuation.

Why this cannot change a finding:

* only whole statements are blanked, at the two levels where ``Analysis`` would only have
  recorded the names they bind; a name a kept statement needs from a blanked one is a
  local alias or subclass of a V1 name (``dw`` in ``import ... dflash_worker as dw``),
  which the analysis reports as an added hot word: the engine then parses the whole file
  (:func:`covers`);
* text that does not parse, a layout this does not understand (``\\r`` line endings,
  inconsistent member indentation) or little to blank gives None: the whole file is parsed;
* only ``lint`` (report-only) uses it: ``fix``, ``--check`` and ``--diff`` parse every file
  whole, and so does a run with ``--parse-all`` and every analysis made with the fork index;
* the fork index's summary of a masked file is marked incomplete: where the index needs
  more of it (the module imports from a module carrying V1 objects, or another module's
  finding depends on its classes) the engine summarizes the whole file
  (``migrator.run.fork.through_the_fork``);
* ``tests/test_partial.py`` checks that the statement starts found here are exactly the
  real AST's, for every file of sglang 0.5.13 and of the test corpora, and that masking
  changes no finding there.

What it gives up: a syntax error inside a blanked statement is not reported by ``lint``,
like a syntax error in a file that mentions no V1 name; ``--parse-all``, ``--check`` and
``fix`` parse every candidate whole and report it.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right

from migrator.base.lines import offsets

#: Files smaller than this are parsed whole: masking would save less than it costs.
MIN_PARTIAL_CHARS = 24 * 1024
#: Mask only if it blanks at least this share of the lines.
MIN_BLANKED_SHARE = 0.3
#: Files with more than one hot line in this many are parsed whole: too little would be
#: blanked to pay for finding the statements (sglang's dflash_worker.py: 99 in 1,242).
MAX_HOT_LINE_SHARE = 25

# One character class finds the next ``#``, ``"`` or ``'`` (a scan in C), then a lookbehind
# picks the one alternative that can follow it: trying the five literal forms at every
# quote was twice as slow. The string bodies are unrolled loops (no alternation per
# character, no backtracking). A string prefix (``rb``, ``f``) needs no matching: it does
# not change where the literal ends (``\"`` does not end even a raw string).
_LITERAL = re.compile(
    r"""
    [#"']
    (?: (?<=\#) [^\n]*
      | (?<=") (?: ""[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*\"\"\"
                 | [^"\\\n]*(?:\\.[^"\\\n]*)*" )
      | (?<=') (?: ''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*\'\'\'
                 | [^'\\\n]*(?:\\.[^'\\\n]*)*' )
    )
    """,
    re.VERBOSE | re.DOTALL,
)
#: What the bracket count reads of a line (the text is ASCII by then): brackets of every
#: kind as ``(`` and ``)``, backslashes and line breaks; every other character deleted (one
#: ``str.translate``, 4 times faster than deleting with a regex and then translating).
_KEPT = {"(": "(", "[": "(", "{": "(", ")": ")", "]": ")", "}": ")", "\\": "\\", "\n": "\n"}
_BRACKETS_ONLY = {code: _KEPT.get(chr(code)) for code in range(128)}
#: Clause keywords that continue a compound statement at its own indentation.
_CLAUSE = re.compile(r"(?:else|elif|except|finally)\b")


def code_lines(source: str) -> tuple[list[str], list[bool]] | None:
    """Each line with string literals reduced to ``""``, comments removed and other than
    ASCII characters replaced by ``?``, and whether it starts a logical line (not inside a
    string, a bracket or a continuation)."""
    if "\r" in source:
        return None
    inside: list[tuple[int, int]] = []  # (offset, newlines) of multi-line string literals
    count = source.count

    def replaced(match: re.Match[str]) -> str:  # called from C by ``sub``, which builds the text
        start, end = match.span()
        if source[start] == "#":
            return ""
        newlines = count("\n", start, end)
        if not newlines:
            return '""'
        inside.append((start, newlines))
        return '""' + "\n" * newlines

    code = _LITERAL.sub(replaced, source)
    if not code.isascii():
        # Other than ASCII characters are mostly in the literals just removed; the few left
        # (an identifier's) become "?", which keeps every offset: the lexer reads only ASCII.
        code = code.encode("ascii", "replace").decode("ascii")
    lines = code.split("\n")
    starts = [True] * len(lines)
    if inside:
        line_of_offset = _line_counter(source)
        for offset, newlines in inside:
            first = line_of_offset(offset)
            starts[first + 1:first + 1 + newlines] = [False] * newlines
    # A bracket closed on its own line changes nothing: pairs are deleted (in C, one pass per
    # level of nesting), and only lines left holding a bracket or a backslash change the
    # state, which carries over to the next such line (an open bracket) or ends after one
    # line (a continuation).
    brackets = code.translate(_BRACKETS_ONLY)
    while "()" in brackets:
        brackets = brackets.replace("()", "")
    brackets_per_line = brackets.split("\n")
    depth = 0
    continued = False
    previous = -1
    for index in [index for index, kept in enumerate(brackets_per_line) if kept]:
        if depth:
            starts[previous + 1:index + 1] = [False] * (index - previous)
        elif continued:
            starts[previous + 1] = False
        kept = brackets_per_line[index]
        backslashes = kept.count("\\")
        depth += 2 * kept.count("(") - len(kept) + backslashes
        if depth < 0:
            return None
        continued = backslashes > 0 and kept[-1] == "\\"
        previous = index
    if depth:
        starts[previous + 1:] = [False] * (len(starts) - previous - 1)
    elif continued and previous + 1 < len(starts):
        starts[previous + 1] = False
    return lines, starts


def _line_counter(source: str):  # noqa: ANN202
    """offset -> 0-based line index, for increasing offsets."""
    state = {"offset": 0, "line": 0}

    def line_of(offset: int) -> int:
        state["line"] += source.count("\n", state["offset"], offset)
        state["offset"] = offset
        return state["line"]

    return line_of


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def top_level_starts(lines: list[str], starts: list[bool]) -> list[int]:
    """0-based first lines of top-level statements; a decorated definition starts at its
    first decorator, ``else``/``except``/... lines continue their statement."""
    top: list[int] = []
    decorated = False  # the previous statement line was a decorator: this one is its target
    for index, line in enumerate(lines):
        if line and starts[index] and line[0] not in " \t" and not line.isspace():
            if _CLAUSE.match(line):
                continue
            if not decorated:
                top.append(index)
            decorated = line[0] == "@"
    return top


CLASS_HEADS = ("class ", "class\t")
DEF_HEADS = ("def ", "def\t", "async def ", "async\tdef")


def _header(lines: list[str], starts: list[bool], first: int, end: int, outer: int) -> int:
    """The line of the statement starting at ``first`` past its decorators (their
    continuation lines and the blank or comment lines between them)."""
    header = first
    while header < end and lines[header][outer:].startswith("@"):
        header += 1
        while header < end and (not starts[header] or not lines[header].strip()):
            header += 1
    return header


def body_members(lines: list[str], starts: list[bool], first: int, end: int,
                 heads: tuple[str, ...]) -> list[int] | None:
    """0-based first lines of the body statements of the compound statement in lines
    [first, end) whose header starts with one of ``heads`` (a class's members, a function's
    statements); [] if it is not such a statement or has its body on the header line; None
    if the layout is not understood."""
    outer = _indent(lines[first])
    header = _header(lines, starts, first, end, outer)
    if header >= end or not lines[header][outer:].startswith(heads):
        return []
    found: list[int] = []
    indent = None
    decorated = False
    for index in range(header + 1, end):
        if not starts[index]:
            continue
        line = lines[index]
        if not line or line.isspace():
            continue
        width = len(line) - len(line.lstrip(" \t"))  # _indent, inlined: called per line of the file
        if indent is None:
            indent = width
        if width < indent or width <= outer:
            return None
        if width > indent or _CLAUSE.match(line, width):
            continue
        if not decorated:
            found.append(index)
        decorated = line[width] == "@"
    return found


def mask(source: str, hot_lines: list[int]) -> tuple[str, list[tuple[int, int]]] | None:
    """(source with cold statements blanked, blanked 1-based inclusive line ranges), or
    None to parse the whole file. ``hot_lines``: sorted 1-based lines holding a relevant word."""
    if len(source) < MIN_PARTIAL_CHARS or len(hot_lines) * MAX_HOT_LINE_SHARE > source.count("\n"):
        return None
    lexed = code_lines(source)
    if lexed is None:
        return None
    lines, starts = lexed
    top = top_level_starts(lines, starts)
    original = source.split("\n")
    if len(original) != len(lines) or not top:
        return None
    hot = [line - 1 for line in hot_lines]
    code = "\n".join(lines)
    imports = _lines_holding(code, "import")
    # ``global`` (and, in a nested function, ``nonlocal``) makes an import bind an outer name
    global_lines = sorted({*_lines_holding(code, "global"), *_lines_holding(code, "nonlocal")})

    def holds(sorted_lines: list[int], first: int, end: int) -> bool:
        at = bisect_left(sorted_lines, first)
        return at < len(sorted_lines) and sorted_lines[at] < end

    def binds_imported_names(first: int, end: int) -> bool:
        """Can the statement in lines [first, end) bind, by an import, a name the kept code
        sees? Not a function: its imports bind names of its own scope (unless it has a
        ``global`` or ``nonlocal`` statement); a class only by its members that can."""
        if not holds(imports, first, end):
            return False
        outer = _indent(lines[first])
        header = _header(lines, starts, first, end, outer)
        if header < end and lines[header][outer:].startswith(DEF_HEADS):
            return holds(global_lines, first, end)
        members = body_members(lines, starts, first, end, CLASS_HEADS)
        if not members:  # not a class (or not understood)
            return True
        bounds = [*members[1:], end]
        return any(binds_imported_names(member, member_end) for member, member_end in zip(members, bounds))

    blanked: list[tuple[int, int]] = []  # 0-based [first, end)
    passes: dict[int, str] = {}

    def blank_cold(members: list[int], end: int, heads: tuple[str, ...] | None) -> bool:
        """Blank the cold ones of ``members`` (statement starts of one body, ending at
        ``end``) and, with ``heads``, the cold statements of the hot ones that are such
        compound statements (a class's methods). False: a layout not understood."""
        for at, member in enumerate(members):
            member_end = members[at + 1] if at + 1 < len(members) else end
            if not holds(hot, member, member_end):
                if not binds_imported_names(member, member_end):
                    blanked.append((member, member_end))
                    passes[member] = " " * _indent(lines[member]) + "pass"
            elif heads is not None:
                inner = body_members(lines, starts, member, member_end, heads)
                if inner is None or not blank_cold(inner, member_end, None):
                    return False
        return True

    bounds = top + [len(lines)]
    for position, first in enumerate(top):
        end = bounds[position + 1]
        if holds(hot, first, end):
            members = body_members(lines, starts, first, end, CLASS_HEADS)
            if members is None:
                return None
            if members:
                if not blank_cold(members, end, DEF_HEADS):
                    return None
            else:  # a function: its statements
                body = body_members(lines, starts, first, end, DEF_HEADS)
                if body is None or not blank_cold(body, end, None):
                    return None
        elif not binds_imported_names(first, end):
            blanked.append((first, end))
    if not blanked or sum(end - first for first, end in blanked) < MIN_BLANKED_SHARE * len(lines):
        return None
    return _blanked_source(original, blanked, passes), [(first + 1, end) for first, end in blanked]


def _blanked_source(original: list[str], blanked: list[tuple[int, int]], passes: dict[int, str]) -> str:
    """``original``'s lines with each 0-based [first, end) range of ``blanked`` emptied, line
    count kept: its first line becomes ``passes``' ``pass`` where a body would be left empty."""
    pieces: list[str] = []
    kept_from = 0
    for first, end in blanked:
        pieces.extend(original[kept_from:first])
        pieces.append(passes.get(first, ""))
        pieces.extend([""] * (end - first - 1))
        kept_from = end
    pieces.extend(original[kept_from:])
    return "\n".join(pieces)


def _lines_holding(code: str, word: str) -> list[int]:
    """Sorted 0-based indexes of the lines of ``code`` holding ``word``."""
    found: list[int] = []
    line = 0
    previous = 0
    for at in offsets(code, word):
        line += code.count("\n", previous, at)
        if not found or found[-1] != line:
            found.append(line)
        previous = at
    return found


def covers(ranges: list[tuple[int, int]], lines: set[int]) -> bool:
    """Does any of ``lines`` (1-based) fall in one of the inclusive ``ranges``?"""
    starts = [first for first, _ in ranges]
    for line in lines:
        at = bisect_right(starts, line) - 1
        if at >= 0 and line <= ranges[at][1]:
            return True
    return False
