"""One Python file's content down the pipeline, bytes in and bytes out: the byte prefilter
(``migrator.relevance.prefilter``), the hot lines (``migrator.relevance.words``; a large
candidate's cold statements blanked in ``lint``: ``migrator.python.partial``), the parse,
the rules, suppressions, the edits (``migrator.edit``) and the write guard's verdict. Also
the analyser the text rules are given for Python embedded in notebooks and Markdown."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from migrator import catalog
from migrator.base.compat import holds_compatibility_character
from migrator.base.fileio import SourceError, declared_encoding, decode_python
from migrator.base.lines import may_suppress, split_lines
from migrator.base.model import INFO, FileError, FileResult, Finding, InsertComment, RewriteError, Span
from migrator.base.options import Options, enabled_for
from migrator.base.patterns import on_first_use
from migrator.edit import applied, apply, chosen_edits, needs_libcst
from migrator.edit.comments import logical, same_todo
from migrator.python import partial
from migrator.python.analysis import analyze, module_name_for
from migrator.python.forkindex import ForkView, package_root
from migrator.python.release_fit import fit
from migrator.python.rules import RuleContext, all_rules
from migrator.python.summary import summarize
from migrator.python.todo_merge import merged
from migrator.relevance.prefilter import _tokens, might_match_python
from migrator.relevance import words
from migrator.relevance.words import hot_text
from migrator.run.passes import FIRST_PASS, MAX_ANALYZE_BYTES, Pass
from migrator.run.target import with_target

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Iterable

    from migrator.python.analysis import HotText
    from migrator.python.forkindex import ForkIndex, ModuleSummary
    from migrator.text._core import Ctx


TODO_PATTERN = on_first_use(r"#\s*" + re.escape(catalog.TODO_MARKER) + r"\s*(DFM\d{3})\b")


MAX_REWRITE_BYTES = 2 * 1024 * 1024  # for edits that need libcst (splicing has no such limit)


def build_tables() -> None:
    """The rules' and the hot words' tables, built once (``migrator.run.pipeline.warm_up``)."""
    all_rules()
    words.word_groups()
    words.is_relevant_qualname("")


def too_large(path: str, data: bytes, candidate: bool, limit: int = MAX_ANALYZE_BYTES) -> FileResult:
    line = _first_trigger_line(data) if candidate else None
    return FileResult(path, error=FileError(
        path, f"file too large to analyse ({len(data) / 2**20:.1f} MiB > {limit // 2**20} MiB)"
        + ("; it mentions a V1 name on this line: migrate it by hand" if line else ""), line))


def text_context(path: str, options: Options) -> Ctx:
    """What a text rule gets for ``path`` from the user's ``options`` (``migrator.text._core.Ctx``):
    the text layer never sees ``Options``."""
    from migrator.text._core import Ctx

    options = with_target(options)  # an entry too: a library caller may give no target
    lint = Options(mode="lint", target_version=options.target_version)

    def python(source: str, where: str, report_only: bool = False) -> tuple[list[Finding], str | None]:
        return analyze_python(source, where, lint if report_only else options)

    return Ctx(options.target_version, python, enabled_for(path, options),
               options.fixes, options.unsafe_fixes, options.line_length)


def analyze_python(source: str, path: str, options: Options, module_name: str | None = None) -> tuple[list[Finding], str | None]:
    """Findings and rewritten source (None if unchanged) for Python source text.

    Used for notebook cells and other embedded Python; raises SourceError on bad input.
    The findings are all of them, suppressed ones included: the caller reads the
    suppression comments in its own coordinates and counts them (filtered here too, the
    caller saw its comments as unused); the rewrite leaves suppressed findings alone.
    """
    data = source.encode("utf-8")
    result = process_python(path, data, options, module_name, FIRST_PASS)
    if result.error is not None:
        raise SourceError(result.error.message, result.error.line, result.error.column)
    new = result.new_bytes.decode("utf-8") if result.new_bytes is not None else None
    if not result.suppressed:
        return result.findings, new
    every = process_python(path, data, options, module_name, Pass(index_only=True), suppress=False)
    return every.findings, new


def process_python(path: str, data: bytes, options: Options, module_name: str | None, this_pass: Pass,
                    suppress: bool = True) -> FileResult:
    result = FileResult(path)
    fork = this_pass.fork
    fixes = options.fixes and not this_pass.index_only
    candidate = might_match_python(data) or (fork is not None and fork.mentions(data))
    if not candidate and not options.parse_all:
        return result
    if len(data) > MAX_ANALYZE_BYTES:
        return too_large(path, data, candidate)
    try:
        source = decode_python(data)
        shortcuts = not options.parse_all and words_are_spelled(source)
        hot, masked = _masked_for_parsing(source, candidate and shortcuts and not (fixes or fork is not None))
        tree = _parse(masked[0], source, path) if masked else ast.parse(source, filename=path)
    except SourceError as error:
        result.error = FileError(path, error.message, error.line, error.column)
        return result
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        result.error = _parse_error(path, error)
        return result
    if not candidate:
        return result
    try:
        findings, module_name, result.module, exported, added = _run_rules(path, tree, source, options, module_name, fork,
                                                                           hot, complete=masked is None, shortcuts=shortcuts)
        if masked and any(partial.covers(masked[1], hot.lines_holding(source, word)) for word in added):
            findings, module_name, result.module, exported, _ = _run_rules(
                path, ast.parse(source, filename=path), source, options, module_name, fork, hot, shortcuts=shortcuts)
    except SyntaxError as error:  # the whole file, parsed again after a partial parse
        result.error = _parse_error(path, error)
        return result
    except RecursionError:
        result.error = FileError(path, "cannot analyse: nesting too deep")
        return result
    if suppress and may_suppress(source, python=True):
        from migrator.base.suppressions import filter_findings

        malformed: list[tuple[int, str]] = []
        findings, result.suppressed, result.unused_suppressions = filter_findings(source, findings, "python", malformed)
        if malformed:
            result.error = FileError(path, "; ".join(message for _, message in malformed), malformed[0][0])
    result.findings = findings
    if fixes:
        _apply(result, data, source, findings, options, module_name, exported, tree if masked is None else None)
    return result


def words_are_spelled(source: str) -> bool:
    """Can a word be found where it is written? Python reads identifiers NFKC-normalised
    (``\U0001d403FlashWorker`` is ``DFlashWorker``), so in a source holding a compatibility
    character the hot lines, which search the words as written, would miss it: such a
    file is analysed whole (``tests/test_shortcuts.py`` found the miss)."""
    return source.isascii() or not holds_compatibility_character(source.encode("utf-8", "surrogatepass"))


def _masked_for_parsing(source: str, allowed: bool) -> tuple[HotText | None, tuple[str, list[tuple[int, int]]] | None]:
    """The source's hot lines and, for a large file, its text with cold statements blanked
    and the blanked line ranges (``migrator.python.partial``); (None, None) when the whole file is
    parsed anyway."""
    if not allowed or len(source) < partial.MIN_PARTIAL_CHARS:
        return None, None
    hot = hot_text(source)
    return hot, partial.mask(source, hot.lines_hot)


def _parse(masked: str, source: str, path: str) -> ast.Module:
    """Parse the masked text; the whole file if the masked text does not parse (a syntax
    error the masking cut in half, or one inside a kept statement)."""
    try:
        return ast.parse(masked, filename=path)
    except SyntaxError:
        return ast.parse(source, filename=path)


def _parse_error(path: str, error: Exception) -> FileError:
    """What ``ast.parse`` raised, as the error users see (with the line where there is one)."""
    if isinstance(error, SyntaxError):
        return FileError(path, f"syntax error: {error.msg}", error.lineno, (error.offset or 1) - 1)
    return FileError(path, f"cannot parse: {type(error).__name__}: {error}")


def _run_rules(path: str, tree: ast.Module, source: str, options: Options, module_name: str | None,
               fork: ForkIndex | None = None, hot: HotText | None = None, complete: bool = True, shortcuts: bool = True,
               ) -> tuple[list[Finding], str, ModuleSummary | None, frozenset[str], list[str]]:
    """The findings of every rule, the module name the analysis used, the module's summary
    for the fork index, the names other modules import from it (the write guard keeps them)
    and the words the analysis made hot. ``fork``: the fork index, where the run has one;
    ``hot``: the source's hot lines where the caller made them; ``complete``: False where ``tree`` is of a masked text (``migrator.python.partial``),
    and so is the summary; ``shortcuts``: False to analyse every statement, cold ones too."""
    view = None
    if fork is not None:
        name = module_name or module_name_for(Path(path))
        if name is not None:
            view = ForkView(fork, package_root(Path(path).resolve(), name), name)
    if shortcuts and hot is None and view is None:
        hot = hot_text(source)
    analysis = analyze(tree, source, Path(path), module_name, skip_cold_functions=shortcuts, fork=view, hot=hot)
    enabled = enabled_for(path, options)
    releases = options.target_releases or (options.target_version,)
    context = RuleContext(analysis, path, options.target_version, enabled, releases)
    for rule in all_rules():
        rule(context)
    findings = _dedupe(context.findings)
    if findings:
        findings = fit(findings, tree, releases, options.target_version, source, analysis.lines)
        findings = [_informational(f) if _still_resolves(f.code, releases) else f for f in findings]
        # a TODO a run with the other ``--unsafe-fixes`` merged, or an older release wrote
        # unmerged, is explained too: not a leftover (only a source with a TODO has one)
        explaining = [*findings]
        if catalog.TODO_MARKER in source:
            explaining += merged(findings, tree, analysis.lines, not options.unsafe_fixes)
        findings = merged(findings, tree, analysis.lines, options.unsafe_fixes)
        explaining += findings
    else:
        explaining = findings
    findings.extend(_leftover_todos(path, source, explaining, enabled))
    exported = analysis.exported | (view.index.needed(view.module, view.root) if view is not None else frozenset())
    return (sorted(findings, key=Finding.sort_key), analysis.module_name, summarize(analysis, path, complete=complete),
            exported, analysis.added_words)


def _still_resolves(code: str, releases: tuple[str, ...]) -> bool:
    entry = catalog.by_code().get(code)
    return entry is not None and entry.still_resolves_on(releases)


def _informational(finding: Finding) -> Finding:
    """A finding whose old spelling still works on every release of the target: reported
    as information, with no fix and so no TODO (rewriting a spelling that works is churn,
    and wrong where it is a monkeypatch target)."""
    return finding._replace(fix=None, severity=INFO)


def _dedupe(findings: Iterable[Finding]) -> list[Finding]:
    seen: set[tuple] = set()
    unique = []
    for finding in findings:
        key = (finding.span, finding.code, finding.message)
        if key not in seen:
            seen.add(key)
            unique.append(finding)
    return unique


def _leftover_todos(path: str, source: str, findings: list[Finding], enabled: Callable[[str], bool]) -> list[Finding]:
    """TODO comments left by an earlier run stay findings until a human removes them (a
    wrapped one read whole: ``migrator.edit.comments``)."""
    if catalog.TODO_MARKER not in source:
        return []

    explained = {same_todo(edit.text) for f in findings if f.fix for edit in (*f.fix.edits, *f.fix.fallback)
                 if isinstance(edit, InsertComment)}
    leftovers = []
    lines = [line.rstrip("\r\n") for line in split_lines(source)]
    for index, line in enumerate(lines):
        match = TODO_PATTERN().search(line)
        if not match:
            continue
        text, _ = logical(lines, index)
        if same_todo(text) in explained or not enabled(match.group(1)):
            continue
        column = line.index("#")
        message = "unresolved migration TODO: " + text.split(match.group(1), 1)[1].strip()
        leftovers.append(Finding(path, Span.of(index + 1, column, index + 1, len(line)), match.group(1), message, None))
    return leftovers


def _first_trigger_line(data: bytes) -> int | None:
    found = [at for at in (data.find(token) for token in _tokens()) if at >= 0]
    return data.count(b"\n", 0, min(found)) + 1 if found else None


def _guarded(result: FileResult, data: bytes, source: str, findings: list[Finding], options: Options,
             exported: frozenset[str], module_name: str | None, written: bytes | None = None,
             tree: ast.Module | None = None) -> tuple[list[Finding], bytes]:
    """``migrator.python.guard``: the fixes whose output would break the file become TODOs.
    ``written``: the bytes every chosen edit gives, where the caller has them (the guard's
    first round needs exactly those, and a structural edit's libcst pass is not cheap);
    ``tree``: ``source``'s whole tree, where the caller parsed it (the guard's original)."""
    from migrator.python.guard import settle

    settled, new = settle(findings, data, source,
                          options.target_releases or (options.target_version,), options.unsafe_fixes, module_name,
                          Path(result.path).name in ("__init__.py", "__init__.pyi"), exported, options.line_length,
                          written, tree)
    result.findings = settled
    result.refused = (sum(applied(f.fix, options.unsafe_fixes) for f in findings)
                      - sum(applied(f.fix, options.unsafe_fixes) for f in settled))
    return settled, new


def _apply(result: FileResult, data: bytes, source: str, findings: list[Finding], options: Options,
           module_name: str | None = None, exported: frozenset[str] = frozenset(), tree: ast.Module | None = None) -> None:
    edits = chosen_edits(findings, options.unsafe_fixes)
    if not edits:
        return
    if len(data) > MAX_REWRITE_BYTES and needs_libcst(edits):  # libcst needs minutes and GBs there
        result.error = FileError(result.path, f"file too large to rewrite ({len(data) / 2**20:.1f} MiB > {MAX_REWRITE_BYTES // 2**20} MiB) "
                                 "with structural edits: findings reported, file left unchanged; apply them by hand")
        return

    if b"coding" in data:  # a declared encoding other than UTF-8 must round-trip
        encoding = declared_encoding(data)
        if encoding != "utf-8" and source.encode(encoding, "replace") != data:
            # ``unicode_escape`` writes a newline back as ``\n``: the rewrite would change every line
            result.error = FileError(result.path, f"cannot rewrite: the declared encoding ({encoding}) does not give "
                                     "back the file's bytes: findings reported, file left unchanged; apply them by hand")
            return
    try:
        new = apply(data, edits, source, options.line_length)
        ast.parse(decode_python(new))
    except RewriteError as error:
        result.error = FileError(result.path, str(error))
        return
    except (SyntaxError, SourceError, ValueError, RecursionError, MemoryError) as error:
        result.error = FileError(result.path, f"internal error: the rewrite would not parse ({error}); file left unchanged")
        return
    if new == data:
        return
    findings, new = _guarded(result, data, source, findings, options, exported, module_name, new, tree)
    if new == data:
        return
    result.new_bytes = new
    result.fixes_applied = sum(applied(f.fix, options.unsafe_fixes) for f in findings)
