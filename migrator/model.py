"""Plain data shared by the engine, the rules, the report formats and the front ends.

Positions: ``line`` is 1-based, ``column`` is 0-based and counts characters (code points)
of the decoded line, as libcst's PositionProvider does. Report formats add 1 to the
column where their consumers expect 1-based columns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Union

Applicability = Literal["safe", "unsafe", "manual"]


@dataclass(frozen=True, order=True)
class Position:
    line: int
    column: int


@dataclass(frozen=True, order=True)
class Span:
    start: Position
    end: Position

    @classmethod
    def of(cls, line: int, column: int, end_line: int, end_column: int) -> "Span":
        return cls(Position(line, column), Position(end_line, end_column))


# ---- edits -------------------------------------------------------------------------
# Python edits are applied by migrator.rewrite with libcst, matched to nodes by span;
# text-file edits (shell, YAML, ...) are applied by splicing the same spans.


@dataclass(frozen=True)
class Replace:
    """Replace the node (or text) exactly covering ``span`` by ``text``."""

    span: Span
    text: str


@dataclass(frozen=True)
class RemoveStatement:
    """Remove the simple statement exactly covering ``span`` (a line, for text files)."""

    span: Span


@dataclass(frozen=True)
class RemoveDictEntry:
    """Remove the dict element whose key exactly covers ``span``."""

    span: Span


@dataclass(frozen=True)
class AddKeyword:
    """Add ``keyword=value`` to the call exactly covering ``span`` unless already passed."""

    span: Span
    keyword: str
    value: str


@dataclass(frozen=True)
class AppendListItem:
    """Append the expression ``text`` to the list/tuple literal exactly covering ``span``."""

    span: Span
    text: str


@dataclass(frozen=True)
class AddImport:
    """Ensure ``from module import name`` exists in the module (libcst's AddImportsVisitor)."""

    module: str
    name: str


@dataclass(frozen=True)
class InsertComment:
    """Put ``text`` (a full ``# ...`` comment) on its own line above the statement starting
    at ``line``, unless an identical comment is already there (idempotent)."""

    line: int
    text: str


Edit = Union[Replace, RemoveStatement, RemoveDictEntry, AddKeyword, AppendListItem, AddImport, InsertComment]


@dataclass(frozen=True)
class Fix:
    applicability: Applicability
    edits: tuple[Edit, ...]
    #: Human-readable replacement text where one exists (shown by lint, SARIF, JSON).
    replacement: str | None = None
    #: Edits used instead when this fix is not applied (an unsafe fix without
    #: ``--unsafe-fixes``): the TODO comment that tells a human what to do.
    fallback: tuple[Edit, ...] = ()


@dataclass(frozen=True)
class Finding:
    path: str
    span: Span
    code: str
    message: str
    fix: Fix | None = None

    @property
    def line(self) -> int:
        return self.span.start.line

    @property
    def column(self) -> int:
        return self.span.start.column

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path, self.span.start.line, self.span.start.column, self.code)


@dataclass(frozen=True)
class FileError:
    """A file that could not be processed. ``line`` is set where the problem has one."""

    path: str
    message: str
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}:{(self.column or 0) + 1}"
        return f"{where}: error: {self.message}"


@dataclass
class FileResult:
    path: str
    findings: list[Finding] = field(default_factory=list)
    #: Bytes after applying fixes; None when nothing changes (or in report-only mode).
    new_bytes: bytes | None = None
    error: FileError | None = None
    fixes_applied: int = 0
    todos_added: int = 0
    #: Findings hidden by ``# dflash-migrate: ignore[...]`` comments.
    suppressed: int = 0
    #: Suppression comments that suppressed nothing: (line, codes).
    unused_suppressions: list[tuple[int, tuple[str, ...]]] = field(default_factory=list)
    written: bool = False

    @property
    def changed(self) -> bool:
        return self.new_bytes is not None


@dataclass
class RunSummary:
    files_scanned: int = 0
    files_changed: int = 0
    fixes_applied: int = 0
    todos_left: int = 0
    files_with_errors: int = 0
    findings: int = 0
    suppressed: int = 0
