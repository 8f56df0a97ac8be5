"""Shared machinery for non-Python files: decoding, findings, text edits, the handler driver.

Every handler is ``analyze(path, text, ctx) -> list[Finding]``, a pure function of the
decoded text; :func:`run` turns it into the engine's ``(path, data, ctx) ->
FileResult`` (``python``: the engine's analyser for embedded Python, kept in ``ctx``):
it decodes (keeping a BOM and the line-ending style), drops rules that are not selected or
do not fire for the target release, applies suppression comments, and outside lint mode
applies the fixes by splicing text, so every byte outside an edit is kept.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from functools import cache
from importlib import import_module

from migrator import catalog
from migrator.base.lines import split_lines, strip_comment  # noqa: F401 - the text rules call them as _core.*
from migrator.base.model import (
    Examples,
    FileError,
    FileResult,
    Finding,
    Fix,
    InsertComment,
    Replace,
    RewriteError,
    Span,
)
from migrator.base.records import NamedTuple, record
from migrator.base.suppressions import filter_findings
from migrator.catalog import names as catalog_names
from migrator.edit import applied, apply_text, chosen_edits
from migrator.edit.comments import DEFAULT_LINE_LENGTH
from migrator.python.analysis import rename_qualname
from migrator.text import wording
from migrator.text._guard import verdict
from migrator.text.filetypes import FileType, filetype_for, of_module
from migrator.text.quoting import comments_of

ENV = catalog.ENV_SPEC_V2
ENV_RE = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(ENV)}(?![A-Za-z0-9_])")
LAUNCH = catalog.LAUNCH_SERVER_MODULE
LAUNCH_RE = re.compile(rf"(?<![\w.]){re.escape(LAUNCH)}(?![\w.])")
FLAG = catalog.DISABLE_OVERLAP_FLAG
ENV_ENTRY = catalog.by_name()[ENV]
#: What a module that reads settings of the variable and launch commands emits itself.
ENV_AND_FLAG_CODES = (ENV_ENTRY.code, *catalog.codes_of_kind("cli-flag"))
BOM = "\ufeff"
#: Every character some reader ends a line with (``line.rstrip(BREAKS)``: the line's text).
BREAKS = "\r\n\x85\u2028\u2029"
PythonAnalyzer = Callable[..., "tuple[list[Finding], str | None]"]


@record
class Ctx(NamedTuple):
    """What a text rule is given beside the file (the run builds it from the user's options,
    ``migrator.run.python_file.text_context``): the target release; the Python analyser for
    code embedded in text (``python(source, path, report_only=False) -> (findings, new source
    or None)``, raising ``SourceError`` when the code does not parse; ``report_only``: no
    fixes, the target release alone); which rule codes are on for the file; whether fixes
    are made (``fixes``) and unsafe ones applied (``unsafe_fixes``)."""

    target: str
    python: PythonAnalyzer | None = None
    enabled: Callable[[str], bool] = lambda code: True
    fixes: bool = False
    unsafe_fixes: bool = False
    line_length: int = DEFAULT_LINE_LENGTH

    def fires(self, code: str) -> bool:
        return catalog.get(code).fires_for(self.target)


Analyzer = Callable[[str, str, Ctx], list[Finding]]


@record
class TextRule(NamedTuple):
    """A text-rule module's declaration of itself (``RULE = TextRule(...)``).

    * ``name``: the module, as :func:`migrator.text.filetypes.module_for` names it;
    * ``codes``: the codes its own scanner emits;
    * ``dotted_names``: fully qualified removed names (``worker_cls: sglang...DFlashWorker``)
      are looked for too (:func:`dotted_name_findings`, the codes of the catalog's modules,
      classes and functions), renamed unless ``fixes`` is False (report-only formats);
    * ``embeds``: the modules whose rules it runs on text embedded in its files (a Markdown
      block in shell, a notebook cell); ``"python"`` is the Python rules;
    * ``examples``: its own valid and invalid files (:class:`~migrator.base.model.Examples`,
      ``path`` naming a file of its type), which ``tests/test_rule_examples.py`` runs.

    What its files are (names, comments, quoting, where lines end, the write guard): the
    file type declarations, :mod:`migrator.text.filetypes`.

    The registry (:func:`migrator.text.text_rules`) adds up what each module may emit.
    """

    name: str
    codes: tuple[str, ...]
    dotted_names: bool = False
    fixes: bool = True
    embeds: tuple[str, ...] = ()
    examples: Examples | None = None


def finding(path: str, line: int, col: int, end_col: int, fix: Fix | None) -> Finding:
    """A finding of the variable (``ENV_ENTRY``) on ``line``."""
    return Finding(path, Span.of(line, col, line, end_col), ENV_ENTRY.code, ENV_ENTRY.message, fix)


def kept_fix(line: int, parsed: bool | None, kind: str, passed: int | None = None) -> Fix:
    """The TODO above ``line`` for a setting that stays: a falsy one (``parsed`` False) with
    no launch to move the flag to, or one whose value is not known to be true or false,
    worded for the file type ``kind`` (:mod:`migrator.text.wording`); ``passed``, the line
    where the flag is already passed to what the setting reaches."""
    return todo_fix(line, wording.kept(kind, parsed, passed is not None))


def use_fix(line: int, kind: str) -> Fix:
    """The TODO above ``line`` for a use of the variable's value in a file of type ``kind``."""
    return todo_fix(line, wording.used(kind))


def env_findings(path: str, line_no: int, text: str, fix: Fix | None, shift: int = 0) -> list[Finding]:
    """A finding with ``fix`` at each mention of the variable in ``text``, which starts at
    column ``shift`` of line ``line_no``."""
    return [finding(path, line_no, shift + m.start(), shift + m.end(), fix) for m in ENV_RE.finditer(text)]


def todo_fix(line: int, detail: str) -> Fix:
    return Fix("manual", (InsertComment(line, catalog.todo_comment(ENV_ENTRY, detail)),))


#: ``"sglang.launch_server"`` as an item of a list (TOML array, YAML flow sequence).
_LAUNCH_ITEM = re.compile(rf"(['\"]){re.escape(LAUNCH)}\1(?=\s*[,\]])")


def disable_overlap_edits(line_no: int, line: str) -> list[Replace]:
    """Where ``--disable-overlap-schedule`` goes on a line that launches the server: after
    the module as a list item (``, "FLAG"``, same quotes), else after the module in a command."""
    items = [Replace(Span.of(line_no, m.end(), line_no, m.end()), f", {m.group(1)}{FLAG}{m.group(1)}")
             for m in _LAUNCH_ITEM.finditer(line)]
    return items or [Replace(Span.of(line_no, m.end(), line_no, m.end()), " " + FLAG) for m in LAUNCH_RE.finditer(line)]


def cli_flag_findings(path: str, line_no: int, line: str, ctx: Ctx, *, rewrite: bool = True) -> list[Finding]:
    """Renamed ``launch_server`` flags (DFM203) anywhere in a line of a non-Python file: the
    name table's ``flag`` spellings among the line's tokens (``catalog.names.occurrences``)."""
    out = []
    for occurrence in catalog_names.occurrences(line):
        entry = next((row.entry for row in occurrence.rows if row.form == "flag"), None)
        if entry is None or not ctx.fires(entry.code):
            continue
        new = entry.replacement_for(ctx.target)
        span = Span.of(line_no, occurrence.start, line_no, occurrence.end)
        fix = Fix(entry.fix, (Replace(span, new),) if rewrite else (), new) if new else None
        out.append(Finding(path, span, entry.code, entry.message, fix))
    return out


#: Handlers whose files are structured data: a key there may be a launcher's flag.
_KEYED = ("yaml", "toml", "jsonfile")
#: Handlers whose whole values may name an object a loader or ``getattr`` resolves.
_VALUED = (*_KEYED, "dotenv", "shell", "dockerfile")
_QUOTES = "\"'"


#: How far around a token its delimiters are looked for (a line of 20,000 names stays linear).
_WINDOW = 256


class _Line:
    """One line and what stands around a token on it, read in bounded windows; where its
    quotes are is found once (for a line with many hits)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._quotes: dict[str, list[int]] | None = None

    def before(self, start: int) -> str:
        """The text before ``start``; a NUL stands for more text beyond the window."""
        low = max(0, start - _WINDOW)
        return ("\0" if low else "") + self.text[low:start]

    def after(self, end: int) -> str:
        high = end + _WINDOW
        return self.text[end:high] + ("\0" if high < len(self.text) else "")

    def inside_quotes(self, position: int) -> bool:
        """Is an odd number of ``"`` or of ``'`` before ``position``?"""
        if self._quotes is None:
            self._quotes = {q: [i for i, c in enumerate(self.text) if c == q] for q in _QUOTES}
        return any(bisect.bisect_left(where, position) % 2 for where in self._quotes.values())


def _is_key(line: _Line, start: int, end: int) -> bool:
    """The token at ``start:end`` is a mapping key (YAML/JSON ``key:``, TOML ``key =``)."""
    after = line.after(end).lstrip(_QUOTES).lstrip()
    before = line.before(start).rstrip(_QUOTES).strip()
    return (after[:1] in (":", "=") and before in ("", "-")) or (after[:1] == ":" and before.endswith(("{", ",")))


def _is_whole_value(line: _Line, start: int, end: int, handler: str) -> bool:
    """The token at ``start:end`` is a whole scalar or list item: between matching quotes
    that open after ``key:``/``key =``/``[``/``,``/``{``/a list dash/the line start, or
    unquoted (outside any quotes) after one of those and before the line end, ``,``/``]``/
    ``}``/a comment; a shell array's ``(``/``)`` too. A word in a sentence (``use
    DFlashWorker here``, ``"... (DFlashWorker) is gone"``, ``Optional[DFlashWorker]``) is not."""
    opens = ":=[,{(-" if handler == "shell" else ":=[,{-"
    closes = ",]})#" if handler == "shell" else ",]}#"
    text = line.text
    quote = text[start - 1] if start and text[start - 1] in _QUOTES else ""
    if quote:
        if text[end:end + 1] != quote:
            return False
        start, end = start - 1, end + 1
    elif line.inside_quotes(start):
        return False  # inside a quoted string it did not fill
    before = line.before(start).rstrip()
    after = line.after(end).strip()
    if before and (before[-1] not in opens or before[-1] == "-" and before.strip() != "-"):
        return False
    if before[-1:] in ("[", "(") and len(before) > 1 and (before[-2].isalnum() or before[-2] == "_"):
        return False  # a subscript or a call (``Optional[DFlashWorker]``), not a list
    return after == "" or after[0] in closes


def _qualified_finding(path: str, number: int, start: int, spelled: str, ctx: Ctx, rewrite: bool,
                       kind: str = "") -> Finding | None:
    entry = catalog.qualified_entry(spelled)
    if entry is None or not ctx.fires(entry.code):
        return None
    new = catalog.respelled(rename_qualname(catalog.dotted(spelled), ctx.target), spelled)
    span = Span.of(number, start, number, start + len(spelled))
    if new != spelled and rewrite:
        fix = Fix("safe", (Replace(span, new),), new)
    elif rewrite:  # no replacement: a TODO above the line (every such format has # comments), in the file's words
        fix = Fix("manual", (InsertComment(number, catalog.todo_comment(entry, wording.removed_api(kind, entry))),))
    else:
        fix = Fix("manual", (), new if new != spelled else None)
    return Finding(path, span, entry.code, entry.message, fix)


def _key_finding(path: str, number: int, start: int, spelled: str, entry: catalog.Entry, ctx: Ctx,
                 rewrite: bool) -> Finding:
    """A removed flag spelled as a config key: a TODO naming the key as the new flag would be
    spelled (dashes or underscores as written). Not renamed: a key is the file's structure
    (the YAML write guard refuses a changed key) and who reads it is not known here."""
    new_flag = entry.replacement_for(ctx.target)
    new = None if new_flag is None else new_flag.lstrip("-")
    if new is not None and "_" in spelled:
        new = new.replace("-", "_")
    detail = f"a launcher turns the key `{spelled}` into the flag" + (f"; rename it `{new}`" if new else "")
    span = Span.of(number, start, number, start + len(spelled))
    fix = Fix("manual", (InsertComment(number, catalog.todo_comment(entry, detail)),) if rewrite else (), new)
    return Finding(path, span, entry.code, entry.message, fix)


def _bare_finding(path: str, number: int, start: int, spelled: str, entry: catalog.Entry, rewrite: bool) -> Finding:
    """A unique bare name (or a removed member after its class's name) held as data (a hook
    list, a registry value): what resolves it is not known here, so a TODO."""
    span = Span.of(number, start, number, start + len(spelled))
    detail = f"`{spelled}` held as data: {entry.message}"
    fix = Fix("manual", (InsertComment(number, catalog.todo_comment(entry, detail)),) if rewrite else ())
    return Finding(path, span, entry.code, entry.message, fix)


def dotted_name_findings(path: str, text: str, ctx: Ctx, *, rewrite: bool, reader: str = "python",
                         handler: str = "", kind: str = "") -> list[Finding]:
    """The name table's spellings (``catalog.names.occurrences``) in config, data and scripts,
    classified by where they stand (comment lines are skipped):

    * a qualified spelling, in any value or key: dotted (``worker_cls: sglang...DFlashWorker``)
      or a loader's ``module:attr``: renamed (in the same spelling) where the catalog has a
      replacement for the target, otherwise a TODO;
    * in structured data (``handler`` YAML, TOML, JSON), a removed flag spelled as a key
      (``speculative_dflash_draft_window_size: 512``, which a launcher turns into the flag):
      renamed as the flag is;
    * in structured data, shell, ``.env`` and Dockerfiles, a unique bare name (no other
      sglang name is spelled so) as a whole value (``hooks: [_compute_paged_keep_slots]``):
      a TODO; so is a removed member after its class's name (``hooks: [DFlashVerifyInput.verify]``)
      and a removed module's file path (a whole value in structured data, anywhere in a
      shell or Dockerfile argument: ``COPY worker.py .../sglang/srt/speculative/dflash_worker.py``),
      the class proving the receiver. An ambiguous bare name (``verify``, ``draft_seq_lens``)
      alone is never reported here.

    ``kind``: the file type, for the TODO's words (``migrator.text.wording``).
    """
    out: list[Finding] = []
    lines = [l.rstrip(BREAKS) for l in split_lines(text, reader)]
    continued = handler in _VALUED and not of_module(handler).comment_in_continuation
    for number, line in enumerate(lines, start=1):
        if line.lstrip().startswith(("#", "//")):
            continue
        around = _Line(line)
        for occurrence in catalog_names.occurrences(line):
            found = _classified(path, number, around, occurrence, ctx, rewrite, handler, kind)
            if found is not None:
                out.append(_above_continuation(found, lines, number) if continued else found)
    return out


def _above_continuation(finding: Finding, lines: list[str], number: int) -> Finding:
    """``finding`` with its TODO above the first line of the ``\\``-continued line it is on (a
    comment line between continued lines ends the command there)."""
    first = number
    while first > 1 and lines[first - 2].rstrip().endswith("\\"):
        first -= 1
    if first == number or finding.fix is None:
        return finding
    edits = tuple(e._replace(line=first) if isinstance(e, InsertComment) and e.line == number else e
                  for e in finding.fix.edits)
    return finding._replace(fix=finding.fix._replace(edits=edits))


def _classified(path: str, number: int, line: _Line, occurrence: catalog_names.Occurrence, ctx: Ctx,
                rewrite: bool, handler: str, kind: str = "") -> Finding | None:
    start, end, spelled, rows = occurrence
    forms: dict[str, catalog_names.Name] = {}
    for row in rows:  # the first entry of a spelling (``DFlashDraftInput``: DFM103, not its re-export's)
        if ctx.fires(row.code):
            forms.setdefault(row.form, row)
    if "dotted" in forms or "module:attr" in forms:
        return _qualified_finding(path, number, start, spelled, ctx, rewrite, kind)
    if "key" in forms and handler in _KEYED and _is_key(line, start, end):
        return _key_finding(path, number, start, spelled, forms["key"].entry, ctx, rewrite)
    path_row = forms.get("path")
    if path_row is not None and handler in _VALUED and (
            handler not in _KEYED or _is_key(line, start, end) or _is_whole_value(line, start, end, handler)):
        return _bare_finding(path, number, start, spelled, path_row.entry, rewrite)
    member = forms.get("member")
    if member is not None and handler in _VALUED and not _is_key(line, start, end) and _is_whole_value(line, start, end, handler):
        return _bare_finding(path, number, start, spelled, member.entry, rewrite)
    bare = forms.get("bare")
    if bare is not None and bare.unique and bare.kind in ("class", "function", "method", "field") and handler in _VALUED \
            and not _is_key(line, start, end) and _is_whole_value(line, start, end, handler):
        return _bare_finding(path, number, start, spelled, bare.entry, rewrite)
    return None


# ---- the driver -----------------------------------------------------------------------


Regions = Callable[[str], "tuple[set[int], set[int]]"]
Guard = Callable[[str, str, str], "str | None"]


@cache
def _function(reference: str) -> Callable:
    module, name = reference.split(":")
    return getattr(import_module(module), name)


def guard_of(filetype: FileType) -> Guard | None:
    """The text-fix guard a file type declares (``"module:function"``), or None."""
    return None if filetype.guard is None else _function(filetype.guard)


def run(path: str, data: bytes, ctx: Ctx, rule: TextRule, analyze: Analyzer, *,
        regions: Regions | None = None) -> FileResult:
    """The handler driver (module docstring). The file's type (``migrator.text.filetypes``)
    gives its comment syntax and quoting, where its reader ends lines and its text-fix
    check (``guard``), run on the fixed text before it is kept; ``regions``: where the
    file's data and embedded languages are, for suppressions."""
    filetype = filetype_for(path)
    if filetype is None or filetype.module.rsplit(".", 1)[-1] != rule.name:  # a handler called for another name
        filetype = of_module(rule.name)
    reader = filetype.reader
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return FileResult(path, error=FileError(path, f"not UTF-8 text ({exc.reason} at byte {exc.start})"))
    bom = text.startswith(BOM)
    if bom:
        text = text[1:]
    found = analyze(path, text, ctx)
    if rule.dotted_names:  # one finding per place and code: a qualified name's own fix wins over embedded Python's TODO
        dotted = dotted_name_findings(path, text, ctx, rewrite=rule.fixes, reader=reader, handler=rule.name,
                                      kind=filetype.name)
        places = {(f.line, f.column, f.code) for f in dotted}
        found = [f for f in found if (f.line, f.column, f.code) not in places] + dotted
    raw = [f for f in found if ctx.enabled(f.code) and ctx.fires(f.code)]
    malformed: list[tuple[int, str]] = []
    kept, suppressed, unused = filter_findings(text, raw, filetype.comments, malformed, reader, regions,
                                               comments_of(filetype))
    result = FileResult(path, findings=sorted(kept, key=Finding.sort_key), suppressed=suppressed,
                        unused_suppressions=unused)
    if malformed:
        result.error = FileError(path, "; ".join(message for _, message in malformed), malformed[0][0])
    if ctx.fixes:
        guard = guard_of(filetype)
        try:
            kept, new_text, fixes, result.refused = guarded(guard, path, text, kept, ctx.unsafe_fixes, reader,
                                                            ctx.line_length)
        except RewriteError as error:  # the rules' edits do not fit together: nothing is written
            result.error = FileError(path, f"{error}; file left unchanged")
            return result
        result.findings = sorted(kept, key=Finding.sort_key)
        if new_text is not None and new_text != text:
            result.new_bytes = ((BOM if bom else "") + new_text).encode("utf-8")
            result.fixes_applied = fixes
    return result


def refused(finding: Finding, reason: str) -> Finding:
    """``finding`` with its fix turned into a TODO saying why the guard refused it, above
    the line its TODO would go (``fallback``), else above the finding's line."""
    anchors = [e.line for e in finding.fix.fallback if isinstance(e, InsertComment)]
    entry = catalog.get(finding.code)
    comment = catalog.todo_comment(entry, f"{finding.message}; not fixed automatically: {' '.join(reason.split())}")
    return finding._replace(fix=Fix("manual", (InsertComment(anchors[0] if anchors else finding.line, comment),)))


def guarded(guard: Guard | None, path: str, text: str, findings: list[Finding], unsafe: bool,
            reader: str = "python", width: int = DEFAULT_LINE_LENGTH) -> tuple[list[Finding], str | None, int, int]:
    """(findings, fixed text, fixes, fixes refused), TODOs wrapped to ``width``: the fixes
    applied when the text-fix guard (``migrator.text._guard``) accepts their result, compared with the
    same text carrying only the TODOs; otherwise the fixes to blame (each tried on its own
    in a file with few fixes, else all of them) become TODOs saying why."""
    edits, fixes = chosen_edits(findings, unsafe), sum(applied(f.fix, unsafe) for f in findings)
    new_text = apply_text(text, edits, reader, width)
    if new_text == text or not fixes or guard is None:
        return findings, new_text, fixes, 0

    def check(chosen: list[Finding]) -> tuple[str | None, str]:
        after = apply_text(text, chosen_edits(chosen, unsafe), reader, width)
        before = apply_text(text, chosen_edits([f for f in chosen if not applied(f.fix, unsafe)], unsafe), reader,
                            width)
        return verdict(guard, path, before, after), after

    reason, new_text = check(findings)
    if reason is None:
        return findings, new_text, fixes, 0
    blamed = {id(f): reason for f in findings if applied(f.fix, unsafe)}
    if len(blamed) <= MAX_SINGLY_CHECKED:  # find the fixes to blame: each checked on its own
        others = [f for f in findings if not applied(f.fix, unsafe)]
        for finding in findings:
            if id(finding) in blamed:
                why, _ = check([*others, finding])
                if why is None:
                    del blamed[id(finding)]
                else:
                    blamed[id(finding)] = why
        if check([refused(f, blamed[id(f)]) if id(f) in blamed else f for f in findings])[0] is not None:
            blamed = {id(f): blamed.get(id(f), reason) for f in findings if applied(f.fix, unsafe)}  # fine alone only
    findings = [refused(f, blamed[id(f)]) if id(f) in blamed else f for f in findings]
    edits, fixes = chosen_edits(findings, unsafe), sum(applied(f.fix, unsafe) for f in findings)
    return findings, apply_text(text, edits, reader, width), fixes, len(blamed)


#: Up to this many fixes in a file, a refused result is tried fix by fix to find the ones to
#: blame; above it, every fix of the file is refused (each try parses the whole file).
MAX_SINGLY_CHECKED = 16
