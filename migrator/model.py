"""Plain data shared by the engine, the rules, the report formats and the front ends.

Positions: ``line`` is 1-based, ``column`` is 0-based and counts characters (code points)
of the decoded line, as libcst's PositionProvider does. Report formats add 1 to the
column where their consumers expect 1-based columns.
"""

from __future__ import annotations

from collections import namedtuple

from .records import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal, Union

    Applicability = Literal["safe", "unsafe", "manual"]
    Edit = Union["Replace", "RemoveStatement", "RemoveDictEntry", "AddKeyword", "AppendListItem", "AddImport", "InsertComment"]


class Position(Record, namedtuple("Position", "line column")):
    """``line`` (1-based, int) and ``column`` (0-based characters, int)."""

    __slots__ = ()


class Span(Record, namedtuple("Span", "start end")):
    """``start`` and ``end`` ``Position``; spans order by start, then end."""

    __slots__ = ()

    @classmethod
    def of(cls, line: int, column: int, end_line: int, end_column: int) -> "Span":
        return cls(Position(line, column), Position(end_line, end_column))


# ---- edits -------------------------------------------------------------------------
# Python edits are applied by migrator.rewrite with libcst, matched to nodes by span;
# text-file edits (shell, YAML, ...) are applied by splicing the same spans.


class Replace(Record, namedtuple("Replace", "span text")):
    """Replace the node (or text) exactly covering ``span`` by ``text``."""

    __slots__ = ()


class RemoveStatement(Record, namedtuple("RemoveStatement", "span")):
    """Remove the simple statement exactly covering ``span`` (a line, for text files)."""

    __slots__ = ()


class RemoveDictEntry(Record, namedtuple("RemoveDictEntry", "span")):
    """Remove the dict element whose key exactly covers ``span``."""

    __slots__ = ()


class AddKeyword(Record, namedtuple("AddKeyword", "span keyword value")):
    """Add ``keyword=value`` to the call exactly covering ``span`` unless already passed."""

    __slots__ = ()


class AppendListItem(Record, namedtuple("AppendListItem", "span text")):
    """Append the expression ``text`` to the list/tuple literal exactly covering ``span``."""

    __slots__ = ()


class AddImport(Record, namedtuple("AddImport", "module name")):
    """Ensure ``from module import name`` exists in the module (libcst's AddImportsVisitor)."""

    __slots__ = ()


class InsertComment(Record, namedtuple("InsertComment", "line text")):
    """Put ``text`` (a full ``# ...`` comment) on its own line above the statement starting
    at ``line``, unless an identical comment is already there (idempotent)."""

    __slots__ = ()


if not TYPE_CHECKING:  # at run time: the edit classes (isinstance works) and plain text
    Edit = (Replace, RemoveStatement, RemoveDictEntry, AddKeyword, AppendListItem, AddImport, InsertComment)
    Applicability = str


class Fix(Record, namedtuple("Fix", "applicability edits replacement fallback", defaults=(None, ()))):
    """How to fix a finding.

    * ``applicability``: "safe", "unsafe" or "manual";
    * ``edits``: tuple of edits;
    * ``replacement``: human-readable replacement text where one exists (shown by lint,
      SARIF, JSON), else None;
    * ``fallback``: edits used instead when this fix is not applied (an unsafe fix
      without ``--unsafe-fixes``): the TODO comment that tells a human what to do.
    """

    __slots__ = ()


class Finding(Record, namedtuple("Finding", "path span code message fix", defaults=(None,))):
    """One V1 reference: ``path``, ``span``, rule ``code``, ``message``, ``fix`` (or None)."""

    __slots__ = ()

    @property
    def line(self) -> int:
        return self.span.start.line

    @property
    def column(self) -> int:
        return self.span.start.column

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path, self.span.start.line, self.span.start.column, self.code)


class FileError(Record, namedtuple("FileError", "path message line column", defaults=(None, None))):
    """A file that could not be processed. ``line`` (and ``column``) where the problem has one."""

    __slots__ = ()

    def __str__(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}:{(self.column or 0) + 1}"
        return f"{where}: error: {self.message}"


class FileResult:
    """What happened to one file (mutable: the engine fills it in as it goes)."""

    __slots__ = ("path", "findings", "new_bytes", "error", "fixes_applied", "todos_added", "suppressed",
                 "unused_suppressions", "written")

    def __init__(
        self,
        path: str,
        findings: list[Finding] | None = None,
        new_bytes: bytes | None = None,
        error: FileError | None = None,
        fixes_applied: int = 0,
        todos_added: int = 0,
        suppressed: int = 0,
        unused_suppressions: list[tuple[int, tuple[str, ...]]] | None = None,
        written: bool = False,
    ) -> None:
        self.path = path
        self.findings: list[Finding] = findings if findings is not None else []
        #: Bytes after applying fixes; None when nothing changes (or in report-only mode).
        self.new_bytes = new_bytes
        self.error = error
        self.fixes_applied = fixes_applied
        self.todos_added = todos_added
        #: Findings hidden by ``# dflash-migrate: ignore[...]`` comments.
        self.suppressed = suppressed
        #: Suppression comments that suppressed nothing: (line, codes).
        self.unused_suppressions: list[tuple[int, tuple[str, ...]]] = unused_suppressions if unused_suppressions is not None else []
        self.written = written

    @property
    def changed(self) -> bool:
        return self.new_bytes is not None

    def _fields(self) -> tuple:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return type(other) is FileResult and self._fields() == other._fields()  # type: ignore[union-attr]

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return "FileResult(" + ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__) + ")"

    def __getstate__(self) -> tuple:
        return self._fields()

    def __setstate__(self, state: tuple) -> None:
        for name, value in zip(self.__slots__, state):
            setattr(self, name, value)


class RunSummary:
    """Counts over a whole run (mutable)."""

    __slots__ = ("files_scanned", "files_changed", "fixes_applied", "todos_left", "files_with_errors",
                 "findings", "suppressed")

    def __init__(self, files_scanned: int = 0, files_changed: int = 0, fixes_applied: int = 0, todos_left: int = 0,
                 files_with_errors: int = 0, findings: int = 0, suppressed: int = 0) -> None:
        self.files_scanned = files_scanned
        self.files_changed = files_changed
        self.fixes_applied = fixes_applied
        self.todos_left = todos_left
        self.files_with_errors = files_with_errors
        self.findings = findings
        self.suppressed = suppressed

    def __eq__(self, other: object) -> bool:
        return type(other) is RunSummary and all(getattr(self, n) == getattr(other, n) for n in self.__slots__)

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return "RunSummary(" + ", ".join(f"{name}={getattr(self, name)}" for name in self.__slots__) + ")"
