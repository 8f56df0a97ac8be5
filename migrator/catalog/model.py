"""What a catalog entry is: ``Entry`` (one removed or changed V1 name) with its
``Replacement``s, the kinds of entry, the text mirror of an entry, the example files of an
entry and the TODO comment the fix writes for it. No entry is spelled here
(``migrator.catalog.entries`` holds them).
"""

from __future__ import annotations

from functools import cache

from migrator.base.records import NamedTuple, record
from migrator.catalog.guide import pointer
from migrator.catalog.versions import (
    NEWEST_RELEASE,
    VersionRange,
    next_release,
    parse_version,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

    Kind = Literal[
        "module",  # a whole module
        "class",
        "function",  # module-level function
        "method",  # method on a class (old = module.Class.method)
        "attribute",  # field/attribute on a class or module-level object
        "call-form",  # a call whose *form* changed (same name, other signature)
        "env",  # environment variable
        "cli-flag",  # command-line flag of sglang.launch_server
        "server-arg",  # ServerArgs/Engine keyword
        "text",  # a name of another entry spelled in free text (DFM4xx, report-only)
        "fork",  # a V1 object followed through the fork's own modules (DFM5xx, migrator.python.forkindex)
        "history",  # a V1 name mentioned in a history file (DFM490, informational, off unless selected)
        "behaviour",  # V1-era behaviour in a fork's own code (no removed name: ``old`` is the setting it is about)
    ]
    Applicability = Literal["safe", "unsafe", "manual"]
else:  # at run time: plain text
    Kind = Applicability = str

#: Kinds whose old spelling is a name that resolves or not (``Entry.still_resolves_on``).
SPELLING_KINDS = frozenset({"module", "class", "function", "method", "attribute"})
TEXT_KIND = "text"
HISTORY_KIND = "history"
FORK_KIND = "fork"
BEHAVIOUR_KIND = "behaviour"


@record
class Replacement(NamedTuple):
    """What replaces the old thing (``new``, None: nothing does) for targets in ``targets``."""

    targets: VersionRange
    new: str | None


# Rules ask these of the same few entries and targets in every file: answered once each.
@cache
def _first_target(fires_from: str | None, last: str | None, code: str) -> str:
    if fires_from:
        return fires_from
    assert last is not None, code
    nxt = next_release(last)
    assert nxt is not None, code
    return nxt


@cache
def _fires_for(fires_from: str | None, last: str | None, code: str, target: str) -> bool:
    return parse_version(target) >= parse_version(_first_target(fires_from, last, code))


@record
class Entry(NamedTuple):
    """One removed or changed V1 name: the single source of truth for rules, lint, shim and
    MIGRATION.md.

    * ``code`` (DFMnnn), ``old`` (qualified name, env var or flag), ``kind`` (see ``Kind``),
      ``exists`` (``VersionRange`` of releases that have it), ``replacements`` (tuple of
      ``Replacement``), ``fix`` ("safe", "unsafe" or "manual"), ``message``, ``guidance``,
      ``before``/``after`` (example code);
    * ``also``: sibling names handled by the same rule (several removed fields of one class);
    * ``fires_from``: first target release for which the rule fires (default: the release
      after ``exists``);
    * ``cues``: for members of a class that still exists in V2, spellings one of which must
      also occur in a file for the rule to fire there (sharpens the byte prefilter);
    * ``patterns``: regular expressions over the file's bytes one of which must also match,
      where a cue cannot say enough (a behaviour rule's shape of code); linear patterns only
      (bounded repetition over lines, never nested unbounded repetition): hostile files pass
      through them;
    * ``example_file``: the file ``before``/``after`` are written in (its suffix decides the
      file type); an example of several files starts each with a ``# file: NAME`` line
      (:func:`example_files`). ``tests/test_catalog_examples.py`` runs every example;
    * ``distinctive``: a member name no other library spells, so its rule reports it on
      receivers of unknown type and the name itself is the byte trigger (for other members
      the class name is: a `.verify(` alone proves nothing).
    """

    code: str
    old: str
    kind: Kind
    exists: VersionRange
    replacements: tuple[Replacement, ...]
    fix: Applicability
    message: str
    guidance: str
    before: str
    after: str
    also: tuple[str, ...] = ()
    fires_from: str | None = None
    cues: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()
    distinctive: bool = False
    example_file: str = "example.py"

    @property
    def anchor(self) -> str:
        return self.code.lower()

    @property
    def names(self) -> tuple[str, ...]:
        return (self.old, *self.also)

    @property
    def first_target(self) -> str:
        return _first_target(self.fires_from, self.exists.last, self.code)

    def fires_for(self, target: str) -> bool:
        return _fires_for(self.fires_from, self.exists.last, self.code, target)

    def replacement_for(self, target: str) -> str | None:
        for replacement in self.replacements:
            if target in replacement.targets:
                return replacement.new
        return None

    def still_resolves_on(self, releases: tuple[str, ...]) -> bool:
        """Whether the old spelling still works on every release of ``releases``: a name
        (not a call form, flag or behaviour) that exists on each of them and whose
        replacement there is another spelling of it. A finding of it is informational
        (DFM306: `managers.scheduler` still imports `validate_dflash_request` on 0.5.13-0.5.23)."""
        return (self.kind in SPELLING_KINDS and self.fix == "safe" and bool(releases)
                and all(r in self.exists and self.replacement_for(r) is not None for r in releases))

    @property
    def owner_class(self) -> str | None:
        """For members (``module.Class.member``): ``module.Class``."""
        if self.kind in ("method", "attribute", "call-form") and "." in self.old:
            owner, _, _ = self.old.rpartition(".")
            if owner.rpartition(".")[2][:1].isupper():
                return owner
        return None

    @property
    def member(self) -> str:
        return self.old.rpartition(".")[2]


#: The text codes (DFM4xx, the fallback text scanner): each mirrors the entry whose name it
#: finds, so the name is spelled once (in that entry) and the text code fires for the same
#: targets. ``style`` says which spelling
#: of the name is unambiguous in free text (``migrator.text.mentions``):
#: "module": the dotted path (not followed by ``_v2``) or the file path ``<package>/<module>.py``;
#: "word": the last component as a whole word; "member": ``Class.member``;
#: "context": the member name only on a line that also holds an unambiguous spelling
#: (``forward_batch_generation`` is also NGRAM's and the target worker's method).
@record
class TextMirror(NamedTuple):
    """A text code (``code``) that finds the names of the entry ``mirrors`` in ``style``."""

    code: str
    mirrors: str
    style: str


def _text_example(style: str, shown: str, before: bool, context_module: str) -> str:
    """A sentence naming ``shown`` as the scanner reports it: a "context" name (one other
    code uses too) is reported only on a line that also names the V1 module, so the
    ``before`` sentence names it."""
    if style == "context" and before:
        return f"See `{shown}` in `{context_module}`."
    return f"See `{shown}`."


def text_entry(mirror: TextMirror, entries: tuple[Entry, ...], context_module: str) -> Entry:
    """The text code ``mirror`` as an entry, derived from the entry it mirrors among ``entries``;
    its ``before`` example names a "context" name on a line naming ``context_module``."""
    source = next(entry for entry in entries if entry.code == mirror.mirrors)
    shown = source.old.rpartition(".")[2] if mirror.style != "member" else ".".join(source.old.split(".")[-2:])
    shown = source.old if mirror.style == "module" else shown
    new = source.replacement_for(NEWEST_RELEASE)
    new_shown = new if new is None or mirror.style == "module" else (
        ".".join(new.split(".")[-2:]) if mirror.style == "member" else new.rpartition(".")[2])
    return Entry(
        code=mirror.code,
        old=source.old,
        kind=TEXT_KIND,
        exists=source.exists,
        replacements=source.replacements,
        fix="manual",
        message=f"text names `{shown}` ({source.code}: {source.message})",
        guidance=f"Report-only. The text scanner found the V1 name of {source.code} in a file no "
        "structured rule reads (JavaScript/TypeScript, MDX, reStructuredText, Jinja/Helm templates, "
        "Makefiles, INI/CFG, HCL, any other text file), in Markdown prose or in a notebook's Markdown "
        "cell. Comments are skipped where the file type's comment syntax is known. Update the text by "
        f"hand; select or ignore these findings with `{mirror.code}` or `DFM4`.",
        before=_text_example(mirror.style, shown, True, context_module),
        after=_text_example(mirror.style, new_shown, False, context_module) if new_shown
        else f"(the sentence goes: {source.code} has no replacement)",
        fires_from=source.first_target,
        example_file="notes.txt",
    )


EXAMPLE_FILE_MARKER = "# file: "


def example_files(entry: Entry, text: str) -> tuple[tuple[str, str], ...]:
    """(file name, content) of an example (``entry.before`` or ``entry.after``): one file named
    ``entry.example_file``, or the files its ``# file: NAME`` lines start."""
    if not text.startswith(EXAMPLE_FILE_MARKER):
        return ((entry.example_file, text + "\n"),)
    files: list[tuple[str, list[str]]] = []
    for line in text.split("\n"):
        if line.startswith(EXAMPLE_FILE_MARKER):
            files.append((line[len(EXAMPLE_FILE_MARKER):].strip(), []))
        else:
            files[-1][1].append(line)
    return tuple((name, "\n".join(lines) + "\n" if lines else "") for name, lines in files)


def todo_comment(entry: Entry, detail: str | None = None) -> str:
    """The TODO a fix writes for ``entry``, pointing at the guide (``migrator.catalog.guide``)."""
    text = detail or entry.message
    return f"# TODO(dflash-migrate): {entry.code} {text} ({pointer()}#{entry.anchor})"


def todo_detail(entry: Entry, comment: str) -> str | None:
    """What :func:`todo_comment` said about ``entry`` in ``comment`` (None: not its TODO)."""
    head, tail = f"# TODO(dflash-migrate): {entry.code} ", f" ({pointer()}#{entry.anchor})"
    if comment.startswith(head) and comment.endswith(tail):
        return comment[len(head):len(comment) - len(tail)]
    return None


TODO_MARKER = "TODO(dflash-migrate):"


@record
class EnvMeaning(NamedTuple):
    """What the variable does (``meaning``) in the releases ``versions``."""

    versions: VersionRange
    meaning: str
