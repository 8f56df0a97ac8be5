"""A small, position-keeping shell word splitter (no expansion, no evaluation).

Enough to find assignments, ``export``, ``env``, ``docker run -e`` and the command that a
prefix assignment applies to: splits physical lines, joined by backslash continuations,
into simple commands at ``;``, ``&&``, ``||``, ``|`` and ``&``, and each into words with
their line and columns; each command keeps the operator that joins it to the command
before and after it (so a fix can remove one command of ``a && b`` cleanly). Comments (``#`` at a word start, outside quotes) are dropped, so a
commented-out line never matches. The ``&`` and ``|`` of a redirection (``2>&1``, ``>&2``,
``&>log``, ``>|f``) belong to its word. The body of a here-document (``<<EOF`` ... ``EOF``)
is data, not commands: its lines are skipped and listed in ``heredoc_lines``. Quoting is
bash's: ``'...'`` holds no escapes, ``$'...'`` and ``"..."`` take a backslash escape (so
``"\\" # x"`` is one string, no comment), a backslash outside quotes escapes one character.

The same walk answers where a line's comment starts (:func:`comment_columns`, for the
suppression comments) and which lines start inside a string or here-document, or after
text it cannot read for sure (:func:`unsafe_line_starts`, for ``--add-noqa``).
"""

from __future__ import annotations

import re

from migrator.base.records import NamedTuple, record


@record
class Word(NamedTuple):
    raw: str  # as written, quotes included
    value: str  # quotes removed
    line: int
    start: int
    end: int  # exclusive column on ``end_line``
    end_line: int


@record
class Operator(NamedTuple):
    text: str  # one of _OPERATORS
    line: int
    start: int


class ShellCommand:
    """One simple command: a mutable accumulator (``migrator.base.records``), filled in by
    :func:`split` word by word."""

    __slots__ = ("after", "before", "first_line", "words")

    def __init__(self, words: list[Word] | None = None, first_line: int = 0, before: Operator | None = None,
                 after: Operator | None = None) -> None:
        self.words: list[Word] = words if words is not None else []
        #: First line of the logical line (continuations joined) this command sits on.
        self.first_line = first_line
        #: The operator joining this command to the one before / after it in the same list
        #: (``&&``, ``||`` and ``|`` at a line end carry over to the next line, as in the shell).
        self.before = before
        self.after = after


_OPERATORS = ("&&", "||", ";;", ";", "|", "&")
#: Runs the splitter takes in one step (a character at a time is ~10 s for 2 MB).
_PLAIN = re.compile(r"[^ \t'\"\\;&|]+")
_DOUBLE_QUOTED = re.compile(r'[^"\\]*(?:\\.[^"\\]*)*\\?', re.S)  # up to the closing quote (or the line end)
_ANSI_C_QUOTED = re.compile(r"[^'\\]*(?:\\.[^'\\]*)*\\?", re.S)  # ``$'...'``: backslash escapes, like "..."
_ESCAPED = re.compile(r"\\(.)", re.S)
_HEREDOC = re.compile(r"^\d*<<(-?)(.*)$")


# long: one character-level state machine (quotes, here-documents, operators) whose state the nested
# flushes share; cut into functions, that state would travel through every call of the hot loop
def split(lines: list[str], first_line: int = 1, heredoc_lines: set[int] | None = None,
          string_lines: set[int] | None = None, comments: dict[int, int] | None = None) -> list[ShellCommand]:
    """Simple commands of ``lines`` (line numbers start at ``first_line``); the numbers of
    here-document body lines (delimiters included) are added to ``heredoc_lines``, those
    of lines that start inside a quoted string to ``string_lines``, and the column where
    each line's comment starts to ``comments`` (by line number)."""
    commands: list[ShellCommand] = []
    heredocs: list[tuple[str, bool]] = []  # delimiters opened on this line: (word, tabs stripped)
    open_heredoc = ""  # the delimiter after ``<<`` is the next word
    open_dash = False
    inside: tuple[str, bool] | None = None  # inside a here-document: its delimiter
    logical_start = first_line
    current = ShellCommand(first_line=logical_start)
    word: list[str] = []
    raw: list[str] = []
    w_start: tuple[int, int] | None = None
    quote = ""
    prev_end = (first_line, 0)
    pending: Operator | None = None  # the operator the next command follows

    def flush_word() -> None:
        nonlocal word, raw, w_start, open_heredoc, open_dash
        if w_start is not None:
            value = "".join(word)
            current.words.append(Word("".join(raw), value, w_start[0], w_start[1], prev_end[1], prev_end[0]))
            if open_heredoc:
                heredocs.append((value, open_dash))
                open_heredoc = ""
            elif (m := _HEREDOC.match(value)) and not value.lstrip("0123456789").startswith("<<<"):
                if m.group(2):
                    heredocs.append((m.group(2), bool(m.group(1))))
                else:
                    open_heredoc, open_dash = "<<", bool(m.group(1))
        word, raw, w_start = [], [], None

    def flush_command(op: Operator | None = None) -> None:
        nonlocal current, pending
        flush_word()
        if current.words:
            current.before, current.after = pending, op
            commands.append(current)
            pending = op
        elif op is not None:  # e.g. ``;;`` or a leading operator: nothing to join
            pending = None
        current = ShellCommand(first_line=logical_start)

    for index, line in enumerate(lines):
        number = first_line + index
        text = line.rstrip("\r\n")
        if quote and string_lines is not None:
            string_lines.add(number)
        if inside is not None:
            if heredoc_lines is not None:
                heredoc_lines.add(number)
            if (text.lstrip("\t") if inside[1] else text) == inside[0]:
                inside = heredocs.pop(0) if heredocs else None
            continue
        continued = False
        i = 0
        end = len(text)
        while i < end:
            ch = text[i]
            if quote in ('"', "$'"):  # bodies where a backslash escapes: one pattern each
                body = (_DOUBLE_QUOTED if quote == '"' else _ANSI_C_QUOTED).match(text, i).group(0)
                raw.append(body)
                word.append(_ESCAPED.sub(r"\1", body) if "\\" in body else body)
                i += len(body)
                if i < end:  # the closing quote
                    raw.append(quote[-1])
                    quote = ""
                    i += 1
                prev_end = (number, i)
                continue
            if quote == "'":
                close = text.find("'", i)
                stop = end if close < 0 else close
                raw.append(text[i:stop + 1])
                word.append(text[i:stop])
                quote = "" if close >= 0 else quote
                i = min(stop + 1, end)
                prev_end = (number, i)
                continue
            if ch == "\\" and i == end - 1:
                continued = True
                break
            if ch in " \t":
                flush_word()
                i += 1
                continue
            if ch == "#" and w_start is None:
                if comments is not None:
                    comments[number] = i
                break
            if (ch in "&|" and i and text[i - 1] in "<>" and w_start is not None) or (ch == "&" and text.startswith(">", i + 1)):
                if w_start is None:  # ``&>log``
                    w_start = (number, i)
                raw.append(ch)
                word.append(ch)
                i += 1
                prev_end = (number, i)
                continue
            if ch in ";&|":
                op = next(o for o in _OPERATORS if text.startswith(o, i))
                flush_command(Operator(op, number, i))
                i += len(op)
                continue
            if w_start is None:
                w_start = (number, i)
            if ch in "'\"":
                ansi_c = ch == "'" and bool(raw) and _opens_ansi_c(raw[-1])
                raw.append(ch)
                quote = "$'" if ansi_c else ch
                i += 1
            elif ch == "\\":
                raw.append(text[i:i + 2])
                word.append(text[i + 1])
                i += 2
            else:
                plain = _PLAIN.match(text, i).group(0)
                raw.append(plain)
                word.append(plain)
                i += len(plain)
            prev_end = (number, i)
        if quote or continued:
            if not quote:
                flush_word()
            continue
        logical_start = number + 1  # the line of the command ``flush_command`` starts
        flush_command()
        if heredocs:
            inside = heredocs.pop(0)
        if pending is not None and pending.text not in ("&&", "||", "|"):
            pending = None  # a newline ends the list; after ``&&`` the list goes on
    flush_command()
    return commands


def _opens_ansi_c(before: str) -> bool:
    """Does a ``'`` after the raw text ``before`` (of the same word) open ``$'...'``? An
    unescaped ``$`` just before it (``$$`` is the process id, ``\\$`` a dollar sign)."""
    dollars = len(before) - len(before.rstrip("$"))
    return dollars % 2 == 1 and not before.endswith("\\$")


def comment_columns(lines: list[str], first_line: int = 1) -> dict[int, int]:
    """Where each line's comment starts (``#`` at a word start, outside quotes and
    here-documents), by line number, as bash reads ``lines``."""
    columns: dict[int, int] = {}
    split(lines, first_line, comments=columns)
    return columns


#: Text this walk does not model (quotes nested in a command substitution inside ``"..."``,
#: backquotes): after it, where a string ends is not known for sure.
_UNSURE = re.compile(r'`|"[^"]*\$\(')


def unsafe_line_starts(lines: list[str]) -> tuple[set[int], int | None]:
    """(lines, 1-based, that start inside a quoted string or a here-document; the first
    line holding a word whose quoting this walk may misread, or None)."""
    inside: set[int] = set()
    commands = split(lines, 1, inside, inside)
    unsure = min((w.line for c in commands for w in c.words if _UNSURE.search(w.raw)), default=None)
    return inside, unsure
