"""Where a comment starts on one line of a file, as the file type's readers quote.

A suppression comment counts only where the program that reads the file sees a comment
(``migrator.base.suppressions``). Each quoting names its readers; where a file type has
several and they disagree on a line (bash and python-dotenv on ``'\\'``, make, which has no
quotes at all, and bash on a quoted ``#``), the line holds no comment:

* ``shell``: bash, through the shell parser of the fixes (:mod:`._shellparse`): ``"\\" # x"``
  is one string, ``$'...'`` takes escapes, ``'...'`` none;
* ``toml`` and ``yaml``: ``"..."`` with backslash escapes, ``'...'`` without (YAML's ``''``
  reads as a quote closed and opened again, which ends in the same place);
* ``backslash``: both quotes with backslash escapes (JSON, Python);
* ``dotenv``: bash and python-dotenv (``'...'`` takes a backslash escape there);
* ``make``: make and bash (a variable's value may reach a recipe's shell);
* ``text``: bash and the ``backslash`` reading (files of any other type);
* ``none``: the comment syntax has a scanner of its own (Markdown, notebooks).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from functools import cache

from migrator.base.suppressions import ColumnOf, Comments, quoted_column
from migrator.text._shellparse import comment_columns
from migrator.text.filetypes import FileType, fence_quoting


def _bash(line: str, marker: str) -> int | None:
    return comment_columns([line]).get(1) if marker == "#" else None


def _make(line: str, marker: str) -> int | None:
    """make's reading: no quotes; ``#`` starts a comment anywhere unless escaped."""
    at = line.find(marker)
    while at > 0 and _backslashes_before(line, at) % 2:
        at = line.find(marker, at + 1)
    return None if at < 0 else at


def _backslashes_before(line: str, at: int) -> int:
    start = at
    while start and line[start - 1] == "\\":
        start -= 1
    return at - start


def _basic_and_literal(line: str, marker: str) -> int | None:
    return quoted_column(line, marker, '"', "'")


def _backslash(line: str, marker: str) -> int | None:
    return quoted_column(line, marker, "\"'", "")


#: The readers of each quoting: a line holds a comment only where they all see the same one.
READINGS: dict[str, tuple[Callable[[str, str], int | None], ...]] = {
    "shell": (_bash,),
    "toml": (_basic_and_literal,),
    "yaml": (_basic_and_literal,),
    "backslash": (_backslash,),
    "dotenv": (_bash, _backslash),
    "make": (_make, _bash),
    "text": (_bash, _backslash),
    "none": (),
}


@cache
def column_reader(quoting: str, marker: str = "#") -> ColumnOf:
    """Where the comment of a line starts as every reader of ``quoting`` sees it, or None."""
    readers = READINGS[quoting]

    def column(line: str) -> int | None:
        columns = {read(line, marker) for read in readers}
        return columns.pop() if len(columns) == 1 else None

    return column


class _FenceReaders(Mapping[str, ColumnOf]):
    """The comment reader of each Markdown fence language, from the file type declarations
    (``filetypes.fence_quoting``), looked up only for a fence line holding a directive."""

    def __getitem__(self, language: str) -> ColumnOf:
        quoting = fence_quoting(language)
        if quoting is None:
            raise KeyError(language)
        return column_reader(quoting)

    def __contains__(self, language: object) -> bool:
        return isinstance(language, str) and fence_quoting(language) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(())  # looked up by language only

    def __len__(self) -> int:
        return 0


FENCES: Mapping[str, ColumnOf] = _FenceReaders()


def comments_of(filetype: FileType) -> Comments:
    """Where the comments of a file of ``filetype`` start: its own lines, its embedded shell
    lines and its Markdown fences."""
    return Comments(column_reader(filetype.quoting, "//" if filetype.comments == "json" else "#"),
                    column_reader("shell"), FENCES)
