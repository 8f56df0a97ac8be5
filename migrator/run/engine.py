"""The pipeline every front end shares: prefilter -> parse -> rules -> edits, bytes in and
bytes out.

* ``process_bytes(path, data, options)`` handles one file's content and never touches
  the disk: tests, stdin and the CLI all go through it.
* ``run(paths, options)`` discovers files, prefilters them on raw bytes (``git grep``
  where a folder is a work tree, ``migrator.run.gitscan``; else in the workers), analyses the
  candidates largest first in forked workers started before the walk (``migrator.run.pool``),
  then, only where the fork's own modules re-export V1 objects (or another module's types
  would decide a call, ``summary.wanted``), indexes them and analyses again the files that
  import from them (``migrator.python.forkindex``), and writes changed files
  atomically in this process (``migrator.base.fileio``). Lint and fix share one analysis: a file
  is parsed twice only when the fork index concerns it. ``lint`` parses only the statements
  of a large candidate that can hold a finding (``migrator.python.partial``). BENCHMARKS.md has the
  measurements behind each step.

The scanned code is never imported or executed.
"""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path
from typing import NamedTuple

from migrator import catalog
from migrator.base.fileio import (
    SourceError,
    declared_encoding,
    decode_python,
    read_bytes,
    write_atomic,
)
from migrator.base.lines import may_suppress, split_lines
from migrator.base.model import (
    Edit,
    FileError,
    FileResult,
    Finding,
    Fix,
    InsertComment,
    RewriteError,
    RunSummary,
    Span,
)
from migrator.base.options import Options, enabled_for, selection
from migrator.base.records import record
from migrator.python import partial
from migrator.relevance.prefilter import (  # noqa: F401 - COARSE_MARKERS: named here too
    COARSE_MARKERS,
    _groups,
    _tokens,
    might_match,
    might_match_python,
)
from migrator.run import config
from migrator.run.exitcode import exit_code, left_for_humans
from migrator.run.files import discover, is_python

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Iterable, Sequence

    from migrator.base.options import Mode
    from migrator.python.analysis import HotText
    from migrator.python.forkindex import ForkIndex, ModuleSummary
    from migrator.run.uncommitted import Uncommitted
TODO_PATTERN = re.compile(r"#\s*" + re.escape(catalog.TODO_MARKER) + r"\s*(DFM\d{3})\b")
POOL_MIN_FILES = 256  # below this many files a process pool costs more than it saves
#: Above these sizes a file is reported, not parsed (ast needs ~150x the source in memory
#: and the analysis ~3 s per MB of hot statements; text files ~3 s per MB of settings)
#: or not rewritten (libcst needs minutes per MB): one generated (or hostile) giant must
#: not stall or exhaust the machine; the other files are still processed.
MAX_ANALYZE_BYTES = 2 * 1024 * 1024
MAX_REWRITE_BYTES = 2 * 1024 * 1024  # for edits that need libcst (splicing has no such limit)
#: A notebook is mostly outputs (images), and its code cells go through the Python limit
#: one by one; but the whole JSON is parsed first (~15x its size in memory, ~0.3 s per MB).
MAX_NOTEBOOK_BYTES = 16 * 1024 * 1024
TRIE_MAX_WORD = 100  # longer index words: a plain alternation (the trie's nesting follows the length)


@record
class Pass(NamedTuple):
    """What one pass of a run hands to the work on each file beside the options (which hold
    only what the user asked): the fork index once the run built it (its names are
    prefilter words too, and the analysis follows V1 objects through the fork's modules),
    and whether the pass only indexes (findings and module summaries, no fixes: the fork
    pass's first reads). Pickled to every worker chunk with the paths, so it holds nothing
    that grows with the repository but the index the workers need."""

    fork: ForkIndex | None = None
    index_only: bool = False


FIRST_PASS = Pass()


class RunResult:
    """A whole run: every file's result, the summary, what was skipped and why."""

    __slots__ = ("results", "summary", "skipped", "interrupted", "mode", "unsafe_fixes")

    def __init__(self, mode: Mode = "lint", unsafe_fixes: bool = False) -> None:
        self.results: list[FileResult] = []
        self.summary = RunSummary()
        self.skipped: list[tuple[str, str]] = []
        self.interrupted = False
        self.mode = mode
        self.unsafe_fixes = unsafe_fixes

    @property
    def exit_code(self) -> int:
        """The run's exit code (:func:`migrator.run.exitcode.exit_code`)."""
        return exit_code(self.results, self.mode, unsafe_fixes=self.unsafe_fixes, interrupted=self.interrupted)

    def summarize(self, options: Options) -> None:
        """Count the results (a writing run counts the files it wrote: a refused write
        changed nothing; the other modes what would change)."""
        results = self.results
        changed = [r for r in results if (r.written if options.writes else r.changed)]
        self.summary = RunSummary(
            files_scanned=self.summary.files_scanned,
            files_changed=len(changed),
            fixes_applied=sum(r.fixes_applied for r in changed),
            todos_left=sum(1 for r in results for f in r.findings if left_for_humans(f, options.unsafe_fixes)),
            files_with_errors=sum(1 for r in results if r.error is not None),
            findings=sum(len(r.findings) for r in results),
            suppressed=sum(r.suppressed for r in results),
            own_outputs=self.summary.own_outputs,
            left_out=self.summary.left_out,
            fixes_refused=sum(r.refused for r in results),
        )


def run_bytes(name: str, data: bytes, options: Options) -> RunResult:
    """A run over one file's content (standard input), named ``name``: the same result,
    summary and exit code as a run over a file of that name; nothing is written."""
    outcome = RunResult(options.mode, options.unsafe_fixes)
    outcome.results = [process_bytes(name, data, options)]
    outcome.summary = RunSummary(files_scanned=1)
    outcome.summarize(options)
    return outcome


# ---- one file ---------------------------------------------------------------------


def process_bytes(path: str, data: bytes, options: Options, module_name: str | None = None,
                  this_pass: Pass = FIRST_PASS) -> FileResult:
    """Findings (and, unless linting, the fixed bytes) for one file's content.

    Never raises for bad input: whatever goes wrong becomes the result's ``error`` and the
    caller moves on to the next file.
    """
    if options.target_version is None:
        options = options._replace(target_version=catalog.NEWEST_RELEASE)
    try:
        return _process_bytes(path, data, options, module_name, this_pass)
    except Exception as error:  # noqa: BLE001 - one file's failure must not stop the run
        return FileResult(path, error=FileError(path, f"internal error ({type(error).__name__}: {error}); file left unchanged"))


def _too_large(path: str, data: bytes, candidate: bool, limit: int = MAX_ANALYZE_BYTES) -> FileResult:
    line = _first_trigger_line(data) if candidate else None
    return FileResult(path, error=FileError(
        path, f"file too large to analyse ({len(data) / 2**20:.1f} MiB > {limit // 2**20} MiB)"
        + ("; it mentions a V1 name on this line: migrate it by hand" if line else ""), line))


def _process_bytes(path: str, data: bytes, options: Options, module_name: str | None, this_pass: Pass) -> FileResult:
    if is_python(path):
        return _process_python(path, data, options, module_name, this_pass)
    from migrator.text import handler_for

    handler = handler_for(path)
    if handler is None:
        return FileResult(path)
    limit = MAX_NOTEBOOK_BYTES if path.endswith(".ipynb") else MAX_ANALYZE_BYTES
    if len(data) > limit:
        return _too_large(path, data, True, limit)
    return handler(path, data, options, analyze_python)


def analyze_python(source: str, path: str, options: Options, module_name: str | None = None) -> tuple[list[Finding], str | None]:
    """Findings and rewritten source (None if unchanged) for Python source text.

    Used for notebook cells and other embedded Python; raises SourceError on bad input.
    The findings are all of them, suppressed ones included: the caller reads the
    suppression comments in its own coordinates and counts them (filtered here too, the
    caller saw its comments as unused); the rewrite leaves suppressed findings alone.
    """
    data = source.encode("utf-8")
    result = _process_python(path, data, options, module_name, FIRST_PASS)
    if result.error is not None:
        raise SourceError(result.error.message, result.error.line, result.error.column)
    new = result.new_bytes.decode("utf-8") if result.new_bytes is not None else None
    if not result.suppressed:
        return result.findings, new
    every = _process_python(path, data, options, module_name, Pass(index_only=True), suppress=False)
    return every.findings, new


def _process_python(path: str, data: bytes, options: Options, module_name: str | None, this_pass: Pass,
                    suppress: bool = True) -> FileResult:
    result = FileResult(path)
    fork = this_pass.fork
    fixes = options.fixes and not this_pass.index_only
    candidate = might_match_python(data) or (fork is not None and fork.mentions(data))
    if not candidate and not options.parse_all:
        return result
    if len(data) > MAX_ANALYZE_BYTES:
        return _too_large(path, data, candidate)
    try:
        source = decode_python(data)
        hot, masked = _masked_for_parsing(source, candidate and not (options.parse_all or fixes or fork is not None))
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
                                                                           hot, complete=masked is None)
        if masked and any(partial.covers(masked[1], hot.lines_holding(source, word)) for word in added):
            findings, module_name, result.module, exported, _ = _run_rules(
                path, ast.parse(source, filename=path), source, options, module_name, fork, hot)
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
        _apply(result, data, source, findings, options, module_name, exported)
    return result


def _masked_for_parsing(source: str, allowed: bool) -> tuple[HotText | None, tuple[str, list[tuple[int, int]]] | None]:
    """The source's hot lines and, for a large file, its text with cold statements blanked
    and the blanked line ranges (``migrator.python.partial``); (None, None) when the whole file is
    parsed anyway."""
    if not allowed or len(source) < partial.MIN_PARTIAL_CHARS:
        return None, None
    from migrator.python.analysis import HotText

    hot = HotText(source)
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
               fork: ForkIndex | None = None, hot: HotText | None = None, complete: bool = True,
               ) -> tuple[list[Finding], str, ModuleSummary | None, frozenset[str], list[str]]:
    """The findings of every rule, the module name the analysis used, the module's summary
    for the fork index, the names other modules import from it (the write guard keeps them)
    and the words the analysis made hot. ``fork``: the fork index, where the run has one;
    ``hot``: the source's hot lines where the caller made them; ``complete``: False where ``tree`` is of a masked text (``migrator.python.partial``),
    and so is the summary."""
    from migrator.python.analysis import analyze, module_name_for
    from migrator.python.forkindex import ForkView, package_root
    from migrator.python.rules import RuleContext, all_rules
    from migrator.python.summary import summarize

    view = None
    if fork is not None:
        name = module_name or module_name_for(Path(path))
        if name is not None:
            view = ForkView(fork, package_root(Path(path).resolve(), name), name)
    analysis = analyze(tree, source, Path(path), module_name, fork=view, hot=hot)
    enabled = enabled_for(path, options)
    releases = options.target_releases or (options.target_version,)
    context = RuleContext(analysis, path, options.target_version, enabled, releases)
    for rule in all_rules():
        rule(context)
    findings = _dedupe(context.findings)
    if findings:
        from migrator.python.release_fit import fit

        findings = fit(findings, tree, releases, options.target_version, source, analysis.lines)
    findings.extend(_leftover_todos(path, source, findings, enabled))
    exported = analysis.exported | (view.index.needed(view.module, view.root) if view is not None else frozenset())
    return (sorted(findings, key=Finding.sort_key), analysis.module_name, summarize(analysis, path, complete=complete),
            exported, analysis.added_words)


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
    """TODO comments left by an earlier run stay findings until a human removes them."""
    if catalog.TODO_MARKER not in source:
        return []
    explained = {edit.text.strip() for f in findings if f.fix for edit in (*f.fix.edits, *f.fix.fallback) if isinstance(edit, InsertComment)}
    leftovers = []
    for number, line in enumerate((line.rstrip("\r\n") for line in split_lines(source)), start=1):
        match = TODO_PATTERN.search(line)
        if not match or line.strip() in explained or not enabled(match.group(1)):
            continue
        column = line.index("#")
        text = line[column:].strip()
        message = "unresolved migration TODO: " + text.split(match.group(1), 1)[1].strip()
        leftovers.append(Finding(path, Span.of(number, column, number, len(line)), match.group(1), message, None))
    return leftovers


def chosen_edits(findings: Sequence[Finding], options: Options) -> list[Edit]:
    edits: list[Edit] = []
    for finding in findings:
        fix: Fix | None = finding.fix
        if fix is None:
            continue
        if fix.applicability == "unsafe" and not options.unsafe_fixes:
            edits.extend(fix.fallback)
        else:
            edits.extend(fix.edits)
    return edits


def _first_trigger_line(data: bytes) -> int | None:
    found = [at for at in (data.find(token) for token in _tokens()) if at >= 0]
    return data.count(b"\n", 0, min(found)) + 1 if found else None


def _guarded(result: FileResult, data: bytes, source: str, findings: list[Finding], options: Options,
             exported: frozenset[str], module_name: str | None) -> tuple[list[Finding], bytes]:
    """``migrator.python.guard``: the fixes whose output would break the file become TODOs."""
    from migrator.edit.splice import apply_edits
    from migrator.python.guard import settle

    settled, new = settle(findings, source, lambda chosen: apply_edits(data, chosen_edits(chosen, options), source),
                          options.target_releases or (options.target_version,), options.unsafe_fixes, module_name,
                          Path(result.path).name in ("__init__.py", "__init__.pyi"), exported)
    result.findings = settled
    from migrator.text._core import applied

    result.refused = (sum(applied(f.fix, options.unsafe_fixes) for f in findings)
                      - sum(applied(f.fix, options.unsafe_fixes) for f in settled))
    return settled, new


def _apply(result: FileResult, data: bytes, source: str, findings: list[Finding], options: Options,
           module_name: str | None = None, exported: frozenset[str] = frozenset()) -> None:
    edits = chosen_edits(findings, options)
    if not edits:
        return
    from migrator.edit.splice import apply_edits, needs_libcst

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
        new = apply_edits(data, edits, source)
        ast.parse(decode_python(new))
    except RewriteError as error:
        result.error = FileError(result.path, str(error))
        return
    except (SyntaxError, SourceError, ValueError, RecursionError, MemoryError) as error:
        result.error = FileError(result.path, f"internal error: the rewrite would not parse ({error}); file left unchanged")
        return
    if new == data:
        return
    findings, new = _guarded(result, data, source, findings, options, exported, module_name)
    if new == data:
        return
    edits = chosen_edits(findings, options)
    result.new_bytes = new
    present = {line.rstrip("\r\n") for line in split_lines(source)}
    for edit in edits:
        if isinstance(edit, InsertComment):
            if not any(line.strip() == edit.text for line in present):
                result.todos_added += 1
    result.fixes_applied = sum(
        1 for f in findings if f.fix and f.fix.applicability != "manual" and (f.fix.applicability == "safe" or options.unsafe_fixes)
    )


# ---- a whole run ------------------------------------------------------------------


def _module_name(path: Path) -> str | None:
    from migrator.python.analysis import module_name_for

    return module_name_for(path)


def analyze_path(path: Path | str, options: Options, this_pass: Pass = FIRST_PASS) -> FileResult:
    """Read and process one file; nothing is written (``write_result`` does that)."""
    shown = str(path)
    try:
        data = read_bytes(shown)
    except SourceError as error:
        return FileResult(shown, error=FileError(shown, error.message))
    python = is_python(shown)
    fork = this_pass.fork
    if not (might_match_python(data) if python else might_match(data)) and not (options.parse_all and python) and not (
            fork is not None and python and fork.mentions(data)):
        return FileResult(shown)
    path = Path(path)
    result = process_bytes(shown, data, options, _module_name(path) if python else None, this_pass)
    if options.writes and result.new_bytes is not None:
        result.original = data  # the write refuses a file that changed since
    return result


def write_result(result: FileResult, options: Options, dirty: Uncommitted | None = None) -> None:
    """In fix mode, write a result's new bytes atomically, unless the file changed since it
    was read or holds uncommitted work (``dirty``: which files do; None: no check)."""
    if not (options.writes and result.new_bytes is not None and result.error is None):
        return
    shown = result.path
    try:
        data = read_bytes(shown)
    except SourceError as error:
        result.error = FileError(shown, error.message)
        return
    refusal = None if options.allow_dirty or dirty is None else dirty.reason(shown, data)
    if refusal is not None:
        result.error = FileError(shown, refusal)
        return
    try:
        write_atomic(Path(shown), result.new_bytes, result.original if result.original is not None else data,
                     write_read_only=options.write_read_only)
        result.original = None
        result.written = True
    except SourceError as error:
        result.error = FileError(shown, error.message)


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


def run(
    paths: Sequence[Path],
    options: Options,
    on_progress: Callable[[int, int], None] | None = None,
) -> RunResult:
    """Process every file under ``paths``; see the module docstring.

    Ctrl-C (SIGINT) at any point stops the run cleanly: files already written are fully
    migrated, the others untouched, and the result says ``interrupted`` (exit code 2).
    """
    import gc

    outcome = RunResult(options.mode, options.unsafe_fixes)
    if options.target_version is None:
        options = options._replace(target_version=catalog.NEWEST_RELEASE)
    # The objects made here (ASTs, findings) are freed by reference counting; the cyclic
    # collector only costs time, ~15% of a lint run (BENCHMARKS.md).
    collecting = gc.isenabled()
    gc.disable()
    try:
        _run_into(outcome, paths, options, on_progress)
    except KeyboardInterrupt:
        outcome.interrupted = True
    finally:
        if collecting:
            gc.enable()
    outcome.results.sort(key=lambda r: r.path)
    outcome.summarize(options)
    return outcome


def _run_into(outcome: RunResult, paths: Sequence[Path], options: Options, on_progress: Callable[[int, int], None] | None) -> None:
    from migrator.run import gitscan, pool

    jobs = options.jobs or default_jobs()
    folders = [p for p in paths if p.is_dir() and not p.is_symlink()]
    # git scans the bytes on all cores while the workers start (they import the analysis)
    # and this process walks the folder; git is the longest of the three, so it goes first.
    scans = [gitscan.start(folder) for folder in folders] if not options.parse_all else []
    # a few files named one by one: starting processes would cost more than it saves
    kind = pool.choose(jobs) if folders or len(paths) >= POOL_MIN_FILES else "serial"
    with pool.start(jobs, _process_chunk_task, _warm_up, kind) as workers:
        # ignore files do not apply to tracked files: the scans' listings say which they are
        by_root = {scan.root: scan for scan in scans if scan is not None}
        found = discover(paths, selection(options), options.respect_gitignore, force_exclude=options.force_exclude,
                         tracked=lambda root: by_root[root].tracked() if root in by_root else gitscan.tracked_files(root),
                         own_outputs=options.own_outputs)
        outcome.skipped = [(str(p), reason) for p, reason in found.skipped]
        for missing in found.missing:
            outcome.results.append(FileResult(str(missing), error=FileError(str(missing), "no such file or folder")))
        files = found.files
        dirty = None  # read here only, when writing: never sent to the workers
        if options.writes and not options.allow_dirty:
            from migrator.run.uncommitted import Uncommitted

            dirty = Uncommitted().scan(files)
        outcome.summary = outcome.summary._replace(files_scanned=len(files), left_out=found.left_out,
                                                   own_outputs=found.own_outputs())
        todo = _narrow_with_git(scans, files, outcome.results)
        done = len(files) - len(todo)
        if on_progress and done:
            on_progress(done, len(files))
        chunks = _largest_first_chunks(todo, jobs) if kind != "serial" else [[path] for path in todo]

        def collect(payload: tuple[list[str], Options, Pass], ok: bool, value: object) -> None:
            nonlocal done
            if ok:
                outcome.results.extend(value)  # type: ignore[arg-type]
            else:
                batch = f" (a batch of {len(payload[0])} files including this one)" if len(payload[0]) > 1 else ""
                outcome.results.extend(FileResult(path, error=FileError(path, f"internal error: {value}{batch}; file left unchanged"))
                                       for path in payload[0])
            done += len(payload[0])
            if on_progress:
                on_progress(done, len(files))

        workers.run([(chunk, options, FIRST_PASS) for chunk in chunks], collect, small=len(todo) < POOL_MIN_FILES)
        _through_the_fork(workers, outcome, paths, files, options, jobs, kind)
        for result in outcome.results:
            result.module = None
            write_result(result, options, dirty)
            result.original = None


def _through_the_fork(workers, outcome: RunResult, paths: Sequence[Path], files: list[str],  # noqa: ANN001
                      options: Options, jobs: int, kind: str) -> None:
    """Second step, only where the fork's modules re-export V1 objects (``migrator.python.forkindex``):
    index the project's modules, look for the names they re-export under new names in the
    files not parsed yet (to a fixed point), and analyse again, with the index, the files
    that import from those modules or that other modules import from."""
    from migrator.python.forkindex import ForkIndex

    summaries = {r.path: r.module for r in outcome.results if r.module is not None}
    scanned = set(files)
    index_only: set[str] = set()
    root = config.project_root(paths[0]) if paths else None  # the folder the index covers
    if root is not None and not all(p.is_dir() and p.resolve() == root for p in paths):
        # The index covers the whole project, so one file gives the findings it has in a run of all.
        found = discover([root], selection(options), options.respect_gitignore)
        from migrator.run import gitscan

        given = {os.path.abspath(f) for f in files}
        extra = [p for p in found.files if is_python(p) and os.path.abspath(p) not in given]
        index_only.update(extra)
        # git narrows them as in the first step: only files holding a marker are read
        narrowed = _narrow_with_git([gitscan.start(root)], extra, [])
        _analyze(workers, narrowed, options, Pass(index_only=True), kind, jobs, summaries, None)
    if not summaries:
        return
    _read_wanted(summaries, (*files, *index_only))
    index = _completed(summaries, ForkIndex(list(summaries.values()), might_match))
    carriers = index.carriers()
    if not carriers and not any(summary.wanted for summary in summaries.values()):
        return
    searched: set[str] = set()
    contents: dict[str, bytes] = {}  # read once, however many rounds a chain of renames takes
    while index.words - searched:  # names re-exported under new names: a second byte-level pass
        words = index.words - searched
        searched |= words
        unparsed = [p for p in (*files, *index_only) if p not in summaries and is_python(p)]
        pattern = any_word_pattern(words)
        hits = [p for p in unparsed if _holds_any(p, pattern, contents)]
        if not hits:
            break
        _analyze(workers, hits, options, Pass(index, index_only=True), kind, jobs, summaries, None)
        index = _completed(summaries, ForkIndex(list(summaries.values()), might_match))
        carriers = index.carriers()
    again = [p for p, summary in summaries.items() if index.touches(summary, carriers) and p in scanned]
    replaced: dict[str, FileResult] = {}
    _analyze(workers, again, options, Pass(index), kind, jobs, {}, replaced)
    outcome.results[:] = [replaced.get(r.path, r) for r in outcome.results]
    known = {r.path for r in outcome.results}
    outcome.results.extend(r for p, r in replaced.items() if p not in known)


def _completed(summaries: dict[str, ModuleSummary], index: ForkIndex) -> ForkIndex:
    """``index`` once the summaries of masked files (``ModuleSummary.complete`` False) that
    import from a module carrying V1 objects, the only ones whose blanked statements can
    matter to it, are the whole files'."""
    from migrator.python.forkindex import ForkIndex

    while True:
        carriers = index.carriers()
        redo = [path for path, summary in summaries.items() if not summary.complete and index.touches(summary, carriers)]
        if not redo:
            return index
        for path in redo:
            masked, whole = summaries[path], _summary_only(path)
            # what its own (hot) analysis wants decided stays wanted
            summaries[path] = masked._replace(complete=True) if whole is None else whole._replace(
                wanted=tuple(sorted({*whole.wanted, *masked.wanted})))
        index = ForkIndex(list(summaries.values()), might_match)


def _read_wanted(summaries: dict, known: Sequence[str]) -> None:
    """Index the modules that would decide a finding of an analysed file (``summary.wanted``:
    the class of a receiver defined in another module), and theirs in turn, if they are
    among the project's files (``known``) and not indexed yet. They are few (one per
    undecided call), hold no V1 word and are analysed here, for their summary only."""
    from migrator.python.forkindex import module_files

    if not any(summary.wanted for summary in summaries.values()):
        return  # most runs: the paths of every project file are not worth joining
    by_real = {os.path.abspath(path): path for path in known if is_python(path)}
    done = {os.path.abspath(path) for path, summary in summaries.items() if summary.complete}
    asked: set[tuple[str, str]] = set()
    while True:
        todo: list[str] = []
        for summary in list(summaries.values()):
            for wanted in summary.wanted:
                if (wanted, summary.root) in asked:
                    continue
                asked.add((wanted, summary.root))
                for candidate in module_files(wanted, summary.root):
                    if candidate in by_real:
                        if candidate not in done:
                            done.add(candidate)
                            todo.append(by_real[candidate])
                        break
        if not todo:
            return
        for path in todo:
            summary = _summary_only(path)
            if summary is not None:
                summaries[path] = summary


def _summary_only(path: str) -> ModuleSummary | None:
    """The fork index's summary of one file, every statement walked (a constructor's
    ``self.x = X()`` too); None where it cannot be read or parsed (its own run reports that)."""
    from migrator.python.analysis import analyze
    from migrator.python.summary import summarize

    module_name = _module_name(Path(path))
    if module_name is None:
        return None
    try:
        data = read_bytes(path)
        if len(data) > MAX_ANALYZE_BYTES:
            return None
        source = decode_python(data)
        tree = ast.parse(source, filename=path)
        return summarize(analyze(tree, source, Path(path), module_name, skip_cold_functions=False), path)
    except (SourceError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def any_word_pattern(words: Iterable[str]) -> re.Pattern[bytes]:
    """A pattern that finds any of ``words`` (non-empty), as a trie: the engine tries one
    branch per next byte instead of every word at every position (the index's words are
    often hundreds of class names sharing a prefix, ``Worker0`` ... ``Worker199``: 40% less
    time per file than the plain alternation). Words from hostile code that would nest it
    too deeply get the plain alternation."""
    words = sorted(set(words), key=len, reverse=True)
    if len(words[0]) > TRIE_MAX_WORD:
        return re.compile(b"|".join(re.escape(word.encode()) for word in words))
    trie: dict = {}
    for word in words:
        node = trie
        for byte in word.encode():
            node = node.setdefault(byte, {})
        node[None] = {}

    def branch(node: dict) -> bytes:
        parts = [re.escape(bytes([byte])) + branch(child) for byte, child in sorted(
            (key, value) for key, value in node.items() if key is not None)]
        if not parts:
            return b""
        body = parts[0] if len(parts) == 1 else b"(?:" + b"|".join(parts) + b")"
        return b"(?:" + body + b")?" if None in node else body  # a word ends here: the rest is optional

    try:
        return re.compile(branch(trie))
    except RecursionError:
        return re.compile(b"|".join(re.escape(word.encode()) for word in words))


def _holds_any(path: str, pattern: re.Pattern[bytes], contents: dict[str, bytes]) -> bool:
    """Does the file hold one of the words ``pattern`` matches (one pass, however many words)?"""
    data = contents.get(path)
    if data is None:
        try:
            data = contents[path] = read_bytes(path)
        except SourceError:
            contents[path] = b""
            return False
    return pattern.search(data) is not None


def _analyze(workers, paths: list[str], options: Options, this_pass: Pass, kind: str, jobs: int,  # noqa: ANN001
             summaries: dict, results: dict | None) -> None:
    """Analyse ``paths`` on the pool in ``this_pass``; their summaries go to ``summaries``,
    their results to ``results`` (None: dropped)."""
    if not paths:
        return
    size = max(1, len(paths) // (jobs * 4)) if kind != "serial" else 1
    chunks = [paths[start:start + size] for start in range(0, len(paths), size)]

    def collect(payload: tuple[list[str], Options, Pass], ok: bool, value: object) -> None:
        for result in (value if ok else ()):  # type: ignore[union-attr]
            if result.module is not None:
                summaries[result.path] = result.module
            if results is not None:
                results[result.path] = result
        if not ok and results is not None:
            for path in payload[0]:
                results[path] = FileResult(path, error=FileError(path, f"internal error: {value}; file left unchanged"))

    workers.run([(chunk, options, this_pass) for chunk in chunks], collect, small=True)


def _narrow_with_git(scans: list, files: list[str], results: list[FileResult]) -> list[str]:
    """The files the Python prefilter must look at; files git searched and found no marker
    in get their (empty) result here. See ``migrator.run.gitscan``."""
    from migrator.run import gitscan

    answers = [gitscan.finish(scan) for scan in scans if scan is not None]
    if not scans or None in scans or None in answers:
        return list(files)
    # Discovery joins names onto the root exactly as given, so a file's path relative to
    # its root (what git prints) is a slice of its text.
    roots = [(scan.root.rstrip(os.sep) + os.sep, answer) for scan, answer in zip(scans, answers)]
    todo = []
    for path in files:
        for prefix, (searched, hits) in roots:
            if path.startswith(prefix):
                relative = path[len(prefix):]
                if relative in searched and relative not in hits:
                    results.append(FileResult(path))
                    break
        else:
            todo.append(path)
    return todo


def _largest_first_chunks(todo: list[str], jobs: int) -> list[list[str]]:
    """Files by decreasing size, grouped into chunks of similar total size: the largest
    files start first, so no worker is left with one big file at the end."""
    sizes = {path: _size(path) for path in todo}
    ordered = sorted(todo, key=lambda path: -sizes[path])
    target = max(sum(sizes.values()) // (jobs * 16), 32 * 1024)
    chunks: list[list[str]] = []
    current: list[str] = []
    current_bytes = 0
    for path in ordered:
        current.append(path)
        current_bytes += sizes[path]
        if current_bytes >= target or len(current) >= 256:
            chunks.append(current)
            current, current_bytes = [], 0
    if current:
        chunks.append(current)
    return chunks


def _size(path: str) -> int:
    """For scheduling only: a file that cannot be read reports its error when analysed."""
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _warm_up() -> None:
    """The imports and tables every candidate needs: run once before the workers fork (they
    inherit it), or in each worker where they are not forked (``migrator.run.pool``). Among them
    ``tokenize`` (the coding cookie of every Python file the byte prefilter rejects) and
    ``unicodedata`` (NFKC): imported in each worker, they cost twice."""
    import tokenize  # noqa: F401
    import unicodedata  # noqa: F401

    from migrator.base.compat import text_pattern
    from migrator.python import analysis, probes  # noqa: F401
    from migrator.python.fallbacks import known_names
    from migrator.python.release_fit import fit  # noqa: F401
    from migrator.python.rules import all_rules

    all_rules()
    catalog.relevant_word_groups()
    catalog.is_relevant_qualname("")
    _groups()
    known_names()
    text_pattern()


def _process_chunk_task(task: tuple[list[str], Options, Pass]) -> list[FileResult]:
    paths, options, this_pass = task
    return [analyze_path(path, options, this_pass) for path in paths]
