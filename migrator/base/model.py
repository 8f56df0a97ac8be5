"""Plain data shared by the engine, the rules, the report formats and the front ends.

Positions: ``line`` is 1-based, ``column`` is 0-based and counts characters (code points)
of the decoded line, as libcst's PositionProvider does. Report formats add 1 to the
column where their consumers expect 1-based columns.
"""

from __future__ import annotations

from migrator.base.records import NamedTuple, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal, Union

    Applicability = Literal["safe", "unsafe", "manual"]
    Edit = Union["Replace", "RemoveStatement", "RemoveDictEntry", "AddKeyword", "AppendListItem", "AddImport", "InsertComment",
                 "RemoveImportName", "InsertStatementAfter", "InsertStatementBefore"]


@record
class Position(NamedTuple):
    """``line`` (1-based, int) and ``column`` (0-based characters, int)."""

    line: int
    column: int


@record
class Span(NamedTuple):
    """``start`` and ``end`` ``Position``; spans order by start, then end."""

    start: Position
    end: Position

    @classmethod
    def of(cls, line: int, column: int, end_line: int, end_column: int) -> "Span":
        return cls(Position(line, column), Position(end_line, end_column))


# ---- edits -------------------------------------------------------------------------
# Python edits are applied by migrator.edit.splice with libcst, matched to nodes by span;
# text-file edits (shell, YAML, ...) are applied by splicing the same spans.


@record
class Replace(NamedTuple):
    """Replace the node (or text) exactly covering ``span`` by ``text``."""

    span: Span
    text: str


@record
class RemoveStatement(NamedTuple):
    """Remove the simple statement (or ``if`` block) exactly covering ``span`` (a line, for text files);
    ``code``: the rule that removes it (the tombstone comment left in a Python file names
    it; :func:`migrator.edit.chosen_edits` fills it from the finding)."""

    span: Span
    code: str = ""


@record
class RemoveDictEntry(NamedTuple):
    """Remove the dict element whose key exactly covers ``span``."""

    span: Span


@record
class AddKeyword(NamedTuple):
    """Add ``keyword=value`` to the call exactly covering ``span`` unless already passed."""

    span: Span
    keyword: str
    value: str


@record
class AppendListItem(NamedTuple):
    """Append the expression ``text`` to the list/tuple literal exactly covering ``span``."""

    span: Span
    text: str


@record
class AddImport(NamedTuple):
    """Ensure ``from module import name`` exists in the module (libcst's AddImportsVisitor);
    ``relative``: the number of leading dots (``module`` is then relative to the file's package)."""

    module: str
    name: str
    relative: int = 0


@record
class InsertComment(NamedTuple):
    """Put ``text`` (a full ``# ...`` comment) on its own line above the statement starting
    at ``line``, unless an identical comment is already there (idempotent)."""

    line: int
    text: str


@record
class RemoveImportName(NamedTuple):
    """Drop the imported name whose name is at ``span`` from its ``from`` import; ``cut``:
    the text that goes with it (the name, its ``as`` part, one comma and what follows)."""

    span: Span
    cut: Span


@record
class InsertStatementAfter(NamedTuple):
    """Put the statement ``text`` on its own line, same indentation, after the simple
    statement exactly covering ``span`` (the moved half of a split import)."""

    span: Span
    text: str


@record
class InsertStatementBefore(NamedTuple):
    """Put ``text`` (a statement, after any ``# ...`` comment lines of its own) on lines of
    its own above the statement starting at ``line`` and above the TODO comments that go
    there, below that statement's own comments, with its indentation (an import moved to
    the top of a function body)."""

    line: int
    text: str


if not TYPE_CHECKING:  # at run time: the edit classes (isinstance works) and plain text
    Edit = (Replace, RemoveStatement, RemoveDictEntry, AddKeyword, AppendListItem, AddImport, InsertComment,
            RemoveImportName, InsertStatementAfter, InsertStatementBefore)
    Applicability = str


@record
class Fix(NamedTuple):
    """How to fix a finding.

    * ``applicability``: "safe", "unsafe" or "manual";
    * ``edits``: tuple of edits;
    * ``replacement``: human-readable replacement text where one exists (shown by lint,
      SARIF, JSON), else None;
    * ``fallback``: edits used instead when this fix is not applied (an unsafe fix
      without ``--unsafe-fixes``): the TODO comment that tells a human what to do;
    * ``adaptive``: the fix already serves every release of the target by itself (a
      ``try``/``except ImportError`` with each spelling, ``migrator.python.release_fit``).
    """

    applicability: Applicability
    edits: tuple[Edit, ...]
    replacement: str | None = None
    fallback: tuple[Edit, ...] = ()
    adaptive: bool = False


#: The severity of a finding whose old spelling still resolves on every release of the target.
INFO = "info"


@record
class Finding(NamedTuple):
    """One V1 reference: ``path``, ``span``, rule ``code``, ``message``, ``fix`` (or None),
    ``related`` files."""

    path: str
    span: Span
    code: str
    message: str
    fix: Fix | None = None
    #: (path, line) of other files the finding comes through (a fork module re-exporting
    #: a V1 object, a base class defined elsewhere): SARIF related locations.
    related: tuple[tuple[str, int], ...] = ()
    #: ``error``, or ``info`` (:data:`INFO`): the old spelling still works on every release of
    #: the target; reported, never fixed, no TODO, no exit code, never in a baseline.
    severity: str = "error"

    @property
    def informational(self) -> bool:
        return self.severity == INFO

    @property
    def line(self) -> int:
        return self.span.start.line

    @property
    def column(self) -> int:
        return self.span.start.column

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path, self.span.start.line, self.span.start.column, self.code)


class RewriteError(Exception):
    """Edits that cannot be applied to a file as they stand (overlapping, outside the file,
    not matched by libcst): the file is left untouched and reported, never half-edited."""


@record
class FileError(NamedTuple):
    """A file that could not be processed. ``line`` (and ``column``) where the problem has one."""

    path: str
    message: str
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}:{(self.column or 0) + 1}"
        return f"{where}: error: {self.message}"


class FileResult:
    """What happened to one file (mutable: the engine fills it in as it goes)."""

    __slots__ = ("path", "findings", "new_bytes", "error", "fixes_applied", "suppressed",
                 "unused_suppressions", "written", "module", "original", "refused", "own_report", "narrowed")

    def __init__(
        self,
        path: str,
        findings: list[Finding] | None = None,
        error: FileError | None = None,
        suppressed: int = 0,
        unused_suppressions: list[tuple[int, tuple[str, ...]]] | None = None,
    ) -> None:
        self.path = path
        self.findings: list[Finding] = findings if findings is not None else []
        #: Bytes after applying fixes; None when nothing changes (or in report-only mode).
        self.new_bytes: bytes | None = None
        self.error = error
        self.fixes_applied = 0
        #: Findings hidden by ``# dflash-migrate: ignore[...]`` comments.
        self.suppressed = suppressed
        #: Suppression comments that suppressed nothing: (line, codes).
        self.unused_suppressions: list[tuple[int, tuple[str, ...]]] = unused_suppressions if unused_suppressions is not None else []
        self.written = False
        #: Fixes the write guard (``migrator.python.guard``, ``migrator.text._guard``) turned into TODOs.
        self.refused = 0
        #: The file is one of this tool's own reports (``migrator.report.own``): left out, not analysed.
        self.own_report = False
        #: The module's summary for the fork index (``migrator.python.forkindex``), while a run needs it.
        self.module = None
        #: The bytes the new bytes were made from, until they are written.
        self.original: bytes | None = None
        #: The file's own releases and what says so, where they narrowed the run's target
        #: (``migrator.run.own_release``): ``(("0.5.6",), "its folder v0.5.6")``; no release:
        #: not known (the repository pins several).
        self.narrowed: tuple[tuple[str, ...], str] | None = None

    @property
    def changed(self) -> bool:
        return self.new_bytes is not None

    def __repr__(self) -> str:
        return "FileResult(" + ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__) + ")"


@record
class RunSummary(NamedTuple):
    """Counts over a whole run."""

    files_scanned: int = 0
    files_changed: int = 0
    fixes_applied: int = 0
    todos_left: int = 0
    #: Fixes the write guard refused (left as TODOs saying why).
    fixes_refused: int = 0
    files_with_errors: int = 0
    findings: int = 0
    suppressed: int = 0
    #: Files and folders discovery left out: ignore files (untracked paths only), exclude
    #: patterns, default folder excludes (``migrator.run.files``); a folder counts once.
    left_out: int = 0
    #: The tool's own reports and baselines left out of the scan (``migrator.run.files.OWN_OUTPUT``).
    own_outputs: int = 0


@record
class Examples(NamedTuple):
    """A rule's own cases, declared on the rule (as Fixit's ``VALID``/``INVALID``) and run by
    ``tests/test_rule_examples.py``: each ``invalid`` source gives one of the codes the rule
    emits, each ``valid`` one gives none of them. ``path``: the file each source is written
    to; a source that starts with ``# file: NAME`` lines holds several files of one fork (the
    last one is the file checked)."""

    invalid: tuple[str, ...]
    valid: tuple[str, ...]
    path: str = "example.py"
