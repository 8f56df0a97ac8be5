"""TODO comments as a reviewer accepts them: no longer than the project's line length.

A comment edit (``InsertComment``) carries one logical comment; it is written wrapped, at
the indentation of the line it goes above, so that no written line exceeds the project's
line length (ruff's ``line-length``, else 88: :data:`DEFAULT_LINE_LENGTH`). Continuation
lines start with :data:`CONTINUATION`. Reading a file back (is this TODO already there?
which TODO comments are left?) joins the continuation lines again, so a TODO written
wrapped at one width is recognised at any other, and one written on a single line by an
older release of the tool is recognised too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from migrator.base.patterns import on_first_use

#: ruff's and black's default ``line-length``.
DEFAULT_LINE_LENGTH = 88
#: How a wrapped comment's later lines start (``#`` and three spaces: not a new TODO).
CONTINUATION = "#   "
#: Below this many characters beside the indentation a comment is not wrapped narrower (a
#: deeply nested statement would get one word a line).
MIN_WRAP = 40


#: A Markdown code span: a run of backticks, its text, the same run again (only a fix wraps).
_CODE_SPAN = on_first_use(r"(`+)(.+?)\1")
#: What a space inside a code span stands as while the words are wrapped (no comment holds it:
#: sources with a NUL byte are refused before any fix).
_HELD_SPACE = "\0"


def wrap(text: str, indent: int, width: int) -> list[str]:
    """``text`` (one ``# ...`` or ``// ...`` comment) as the lines it is written on at
    ``indent`` characters of indentation, none longer than ``width`` where the words allow it
    (a word longer than the line, a long name or URL, is never broken, nor is a ``code
    span``: a break inside its backticks makes it unreadable in Markdown and in editors, so
    one longer than the line stands whole on its own line); later lines start with the
    comment's own marker and three spaces (:data:`CONTINUATION`)."""
    marker = marker_of(text)
    if marker is None or indent + len(text) <= width:
        return [text]
    import textwrap  # only a fix that writes a long TODO wraps one; lint never does (0.7 ms at start-up)

    held = _HELD_SPACE not in text and "`" in text
    if held:
        text = _CODE_SPAN().sub(lambda span: span.group(0).replace(" ", _HELD_SPACE), text)
    lines = textwrap.wrap(text, width=max(width - indent, MIN_WRAP), subsequent_indent=marker + CONTINUATION[1:],
                          break_long_words=False, break_on_hyphens=False) or [text]
    return [line.replace(_HELD_SPACE, " ") for line in lines] if held else lines


def marker_of(comment: str) -> str | None:
    """The comment marker ``comment`` (stripped) starts with: ``#``, ``//`` (JSON with
    comments, ``migrator.text.jsonfile``), or None."""
    return "#" if comment.startswith("#") else "//" if comment.startswith("//") else None


def normalized(text: str) -> str:
    """A comment's words, single-spaced: equal for the same comment however it was wrapped."""
    return " ".join(text.split())


#: The guide pointer a TODO ends with (``(MIGRATION.md#dfm201)``, ``(https://...#dfm201)``).
_POINTER = re.compile(r" \(\S+#[\w-]+\)$")


def same_todo(text: str) -> str:
    """What two TODOs compare by: their words (:func:`normalized`) without the guide pointer
    (``migrator.catalog.guide``), so that one written before a team set its ``guide-url``
    (or by a build pointing elsewhere) is the same TODO: not written again, not a leftover."""
    return _POINTER.sub("", normalized(text))


def is_continuation(line: str, marker: str = "#") -> bool:
    return line.lstrip(" \t").startswith(marker + CONTINUATION[1:])


def logical(lines: Sequence[str], index: int) -> tuple[str, int]:
    """The comment starting at ``lines[index]`` (0-based, line endings stripped) joined with
    its continuation lines, and the index of its last line."""
    first = lines[index]
    stripped = first.lstrip(" \t")
    if stripped.startswith("//"):  # a ``//`` comment: its ``#`` is the guide pointer's
        marker, start = "//", len(first) - len(stripped)
    else:
        marker, start = "#", max(first.find("#"), 0)  # a trailing comment: from its ``#`` on
    parts = [first[start:].strip()]
    last = index
    while last + 1 < len(lines) and is_continuation(lines[last + 1], marker):
        last += 1
        parts.append(lines[last].strip()[len(marker):])
    return normalized(" ".join(parts)), last
