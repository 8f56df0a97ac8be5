"""Byte-exact positions of a notebook's cell sources inside its JSON text.

``json`` gives values, not positions; a rewrite must keep every byte outside the edited
cells. So the text is first validated by ``json.loads`` (a malformed file is an error
with its line and column), then walked once by a scanner that records, for each cell
(by its index in ``cells``), the span of every string of its ``source``. The two views
are checked against each other cell by cell: a cell whose ``source`` is not a string or
a list of strings (``null``, a number, a nested list) is reported as a problem naming
the cell, and the cells after it keep their own positions.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable

from migrator.base.records import NamedTuple, record

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_WS = re.compile(r"\s*")
_SCALAR = re.compile(r"-?[0-9][0-9.eE+-]*|true|false|null")


class NotebookError(ValueError):
    """The text is not a notebook the scanner can map; ``line`` is 1-based where known."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.line = line
        self.column = column


@record
class CellSource(NamedTuple):
    index: int
    cell_type: str
    #: (start, end) offsets of each JSON string token of ``source``, in order.
    tokens: list[tuple[int, int]]
    is_list: bool
    #: Offsets of the ``[`` ... ``]`` interior (list form) or of the single string.
    region: tuple[int, int]


@record
class CellProblem(NamedTuple):
    """A cell the rules cannot read: its 0-based ``index``, the file ``line`` it starts on."""

    index: int
    line: int
    message: str


class _Scanner:
    """Walks JSON text that ``json.loads`` accepted, recording the source strings of cells."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        #: cell index -> string spans of its (last) ``source`` value.
        self.sources: dict[int, list[tuple[int, int]]] = {}
        #: cell index -> offset where the cell's object starts.
        self.cell_starts: dict[int, int] = {}

    def ws(self) -> None:
        self.pos = _WS.match(self.text, self.pos).end()  # type: ignore[union-attr]

    def expect(self, char: str) -> None:
        self.ws()
        if self.text[self.pos:self.pos + 1] != char:
            raise NotebookError(f"expected {char!r} at offset {self.pos}")
        self.pos += 1

    def value(self, path: tuple) -> None:
        self.ws()
        ch = self.text[self.pos:self.pos + 1]
        if len(path) == 2 and path[0] == "cells" and isinstance(path[1], int):
            self.cell_starts[path[1]] = self.pos
        if ch == "{":
            self._object(path)
        elif ch == "[":
            self._array(path)
        elif ch == '"':
            m = _STRING.match(self.text, self.pos)
            if m is None:
                raise NotebookError(f"unterminated string at offset {self.pos}")
            self.pos = m.end()
            if len(path) in (3, 4) and path[0] == "cells" and path[2] == "source":
                self.sources.setdefault(path[1], []).append((m.start(), m.end()))
        else:
            m = _SCALAR.match(self.text, self.pos)
            if m is None:
                raise NotebookError(f"invalid JSON at offset {self.pos}")
            self.pos = m.end()

    def _object(self, path: tuple) -> None:
        def member(_: int) -> None:
            self.ws()
            m = _STRING.match(self.text, self.pos)
            if m is None:
                raise NotebookError(f"expected a key at offset {self.pos}")
            key = json.loads(m.group(0))
            self.pos = m.end()
            self.expect(":")
            if len(path) == 2 and path[0] == "cells" and key == "source":
                self.sources[path[1]] = []  # a repeated key: json keeps the last one, so do we
            self.value((*path, key))

        self._members("}", member)

    def _array(self, path: tuple) -> None:
        self._members("]", lambda index: self.value((*path, index)))

    def _members(self, close: str, member: Callable[[int], None]) -> None:
        """The comma-separated members of the object or array opening at ``pos``, up to
        ``close``: ``member(i)`` reads the i-th."""
        self.pos += 1
        self.ws()
        if self.text[self.pos:self.pos + 1] == close:
            self.pos += 1
            return
        for index in itertools.count():
            member(index)
            self.ws()
            if self.text[self.pos:self.pos + 1] != ",":
                self.expect(close)
                return
            self.pos += 1


def cell_sources(text: str) -> tuple[dict, list[CellSource], list[CellProblem]]:
    """The parsed notebook, the source positions of each readable cell, and the cells
    that cannot be read. Raises ``NotebookError`` when the text is not a notebook."""
    try:
        notebook = json.loads(text)
    except json.JSONDecodeError as error:
        raise NotebookError(f"not valid JSON: {error.msg}", error.lineno, error.colno - 1) from None
    except RecursionError:
        raise NotebookError("not a readable notebook: nesting too deep") from None
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        raise NotebookError("not a notebook: no top-level `cells` list")
    scanner = _Scanner(text)
    scanner.value(())
    cells: list[CellSource] = []
    problems: list[CellProblem] = []
    for index, cell in enumerate(notebook["cells"]):
        line = text.count("\n", 0, scanner.cell_starts.get(index, 0)) + 1
        problem = _problem(cell)
        if problem is not None:
            problems.append(CellProblem(index, line, f"cell {index + 1}: {problem}; cell not scanned"))
            continue
        source = cell.get("source", [])
        tokens = scanner.sources.get(index, [])
        if len(tokens) != (len(source) if isinstance(source, list) else 1):
            problems.append(CellProblem(index, line, f"cell {index + 1}: source positions could not be mapped; cell not scanned"))
            continue
        if not tokens:
            continue
        if isinstance(source, list):
            region = (text.rfind("[", 0, tokens[0][0]) + 1, text.find("]", tokens[-1][1]))
        else:
            region = tokens[0]
        cells.append(CellSource(index, cell.get("cell_type", ""), tokens, isinstance(source, list), region))
    return notebook, cells, problems


def _problem(cell: object) -> str | None:
    """Why the rules cannot read ``cell``, or None."""
    if not isinstance(cell, dict):
        return f"is {type(cell).__name__}, not an object"
    if not isinstance(cell.get("cell_type", ""), str):
        return "`cell_type` is not a string"
    if "source" not in cell:
        return None
    source = cell["source"]
    if isinstance(source, str):
        return None
    if isinstance(source, list) and all(isinstance(item, str) for item in source):
        return None
    shown = "null" if source is None else type(source).__name__
    if isinstance(source, list):
        shown = "a list holding something other than strings"
    return f"`source` is {shown}, not a string or a list of strings"
