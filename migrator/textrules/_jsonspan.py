"""Byte-exact positions of a notebook's cell sources inside its JSON text.

``json`` gives values, not positions; a rewrite must keep every byte outside the edited
cells, so this scanner walks the JSON text once and records, for each cell, the span of
every string of its ``source`` (a list of strings, or one string).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_WS = re.compile(r"\s*")
_SCALAR = re.compile(r"-?[0-9][0-9.eE+-]*|true|false|null")


@dataclass
class CellSource:
    index: int
    cell_type: str
    #: (start, end) offsets of each JSON string token of ``source``, in order.
    tokens: list[tuple[int, int]]
    is_list: bool
    #: Offsets of the ``[`` ... ``]`` interior (list form) or of the single string.
    region: tuple[int, int]


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.cells: list[CellSource] = []

    def ws(self) -> None:
        self.pos = _WS.match(self.text, self.pos).end()

    def value(self, path: tuple) -> object:
        self.ws()
        ch = self.text[self.pos]
        if ch == "{":
            self.pos += 1
            out = {}
            self.ws()
            if self.text[self.pos] == "}":
                self.pos += 1
                return out
            while True:
                self.ws()
                m = _STRING.match(self.text, self.pos)
                key = json.loads(m.group(0))
                self.pos = m.end()
                self.ws()
                assert self.text[self.pos] == ":"
                self.pos += 1
                out[key] = self.value((*path, key))
                self.ws()
                if self.text[self.pos] == ",":
                    self.pos += 1
                    continue
                assert self.text[self.pos] == "}"
                self.pos += 1
                return out
        if ch == "[":
            self.pos += 1
            items: list = []
            self.ws()
            if self.text[self.pos] == "]":
                self.pos += 1
                return items
            while True:
                items.append(self.value((*path, len(items))))
                self.ws()
                if self.text[self.pos] == ",":
                    self.pos += 1
                    continue
                assert self.text[self.pos] == "]"
                self.pos += 1
                return items
        if ch == '"':
            m = _STRING.match(self.text, self.pos)
            self.pos = m.end()
            if len(path) >= 3 and path[0] == "cells" and path[2] == "source":
                self.strings.append((m.start(), m.end()))
            return json.loads(m.group(0))
        m = _SCALAR.match(self.text, self.pos)
        if not m:
            raise ValueError(f"invalid JSON at offset {self.pos}")
        self.pos = m.end()
        return json.loads(m.group(0))

    strings: list[tuple[int, int]]


def cell_sources(text: str) -> tuple[dict, list[CellSource]]:
    """The parsed notebook and the source positions of each cell."""
    scanner = _Scanner(text)
    scanner.strings = []
    notebook = scanner.value(())
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        raise ValueError("not a notebook: no top-level `cells` list")
    # Source strings were recorded in document order, cell by cell.
    cells = []
    spans = scanner.strings
    pos = 0
    for index, cell in enumerate(notebook["cells"]):
        source = cell.get("source", [])
        n = len(source) if isinstance(source, list) else 1
        tokens = spans[pos:pos + n]
        pos += n
        if not tokens:
            continue
        if isinstance(source, list):
            open_ = text.rfind("[", 0, tokens[0][0])
            close = text.find("]", tokens[-1][1])
            region = (open_ + 1, close)
        else:
            region = tokens[0]
        cells.append(CellSource(index, cell.get("cell_type", ""), tokens, isinstance(source, list), region))
    return notebook, cells
