"""A run over paths, and over one file's bytes (standard input): every front end calls
:func:`run` or :func:`run_bytes`.

``run(paths, options)`` starts ``git grep`` over each work tree (``migrator.run.gitscan``)
and the workers (``migrator.run.pool``) while it walks the folders (``migrator.run.files``);
the files git leaves go to the workers largest first (``migrator.run.batches``), one file
at a time down the pipeline (``migrator.run.pipeline``); the fork pass follows where the
fork's own modules re-export V1 objects (``migrator.run.fork``); this process then writes
(``migrator.run.write``) and counts (``migrator.run.result``). Lint and fix share one
analysis: a file is parsed twice only when the fork index concerns it. BENCHMARKS.md has the
measurements behind each step.

The scanned code is never imported or executed.
"""

from __future__ import annotations

import gc
import os
import stat
from pathlib import Path

from migrator.base.model import FileError, FileResult
from migrator.base.options import Options, selection
from migrator.base.repository import top_of
from migrator.run import gitscan, pool
from migrator.run.batches import largest_first_chunks, narrow_with_git
from migrator.run.files import OWN_OUTPUT, PIN_FILE_ENDINGS, discover, is_pin_file, lstat_mode
from migrator.run.fork import through_the_fork
from migrator.run.pipeline import process_bytes, process_chunk, warm_up
from migrator.run.passes import FIRST_PASS, Pass
from migrator.run.result import RunResult
from migrator.run.target import with_target
from migrator.run.write import write_result

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Sequence





POOL_MIN_FILES = 256  # below this many files a process pool costs more than it saves
FEW_NAMED_FILES = 8  # up to this many named files: read by the Python prefilter, not narrowed by git first


def run_bytes(name: str, data: bytes, options: Options) -> RunResult:
    """A run over one file's content (standard input), named ``name``: the same result,
    summary and exit code as a run over a file of that name; nothing is written."""
    outcome = RunResult(options.mode, options.unsafe_fixes)
    outcome.results = [process_bytes(name, data, options)]
    outcome.summary = outcome.summary._replace(files_scanned=1)
    outcome.summarize(options)
    return outcome


def default_jobs() -> int:
    """One process per core the run may use; one under pre-commit (``PRE_COMMIT=1``), which
    already runs one hook process per core, each on its own batch of the files (the published
    hooks are not ``require_serial``): workers of each batch would only compete with the
    other batches (BENCHMARKS.md, session 16)."""
    if os.environ.get("PRE_COMMIT") == "1":
        cores = 1
    elif hasattr(os, "sched_getaffinity"):
        cores = len(os.sched_getaffinity(0))
    else:
        cores = os.cpu_count() or 1
    return max(1, cores)


def run(
    paths: Sequence[Path],
    options: Options,
    on_progress: Callable[[int, int], None] | None = None,
) -> RunResult:
    """Process every file under ``paths``; see the module docstring.

    Ctrl-C (SIGINT) at any point stops the run cleanly: files already written are fully
    migrated, the others untouched, and the result says ``interrupted`` (exit code 2).
    """
    outcome = RunResult(options.mode, options.unsafe_fixes)
    options = with_target(options)
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


def _named_files_scan(paths: Sequence[Path], folders: list[Path], options: Options):  # noqa: ANN202 - gitscan.GitScan | None
    """The scan of the repository holding the first named file, where files are named (None:
    only folders, or no repository, or a folder named is that repository's top): with the
    summary cache, from git's index and the repository map kept there
    (``migrator.run.repo_map``), else a ``git grep`` of the repository."""
    if len(folders) == len(paths):
        return None
    first = paths[0].resolve()
    top = top_of(str(first if first.is_dir() else first.parent))
    if top is None or any(folder.resolve() == Path(top) for folder in folders):
        return None
    if options.no_cache:
        return gitscan.start(Path(top))
    from migrator.run import repo_map, summary_cache

    return repo_map.start(Path(top), summary_cache.SummaryCache(options))


def _leave_out_own_reports(outcome: RunResult) -> None:
    """Reports of this tool found by content (``migrator.report.own``): skipped and counted
    as those found by name are, not results."""
    own = [result for result in outcome.results if result.own_report]
    if own:
        outcome.results = [result for result in outcome.results if not result.own_report]
        outcome.skipped.extend((result.path, OWN_OUTPUT) for result in own)
        outcome.summary = outcome.summary._replace(own_outputs=outcome.summary.own_outputs + len(own))


def _with_release_scopes(options: Options, files: Sequence[str]) -> Options:
    """The parts of the tree the repository pins a release for (read once per run, from the
    pin files among ``files``; ``migrator.run.own_release``), in the options the workers get."""
    if not options.pin_folder:
        return options
    candidates = [path for path in files if path.endswith(PIN_FILE_ENDINGS) and is_pin_file(path)]
    if not candidates and not os.path.isfile(os.path.join(options.pin_folder, "pyproject.toml")):
        return options
    from migrator.run.own_release import release_scopes

    return options._replace(release_scopes=release_scopes(candidates, options.pin_folder))


def _as_if_narrowed(outcome: RunResult, scan, analyzed: set[str]) -> None:  # noqa: ANN001 - gitscan.GitScan
    """The named files analyzed without git's narrowing (``analyzed``) get what it would
    have given them: a file git settles (searched, no marker) has an empty result, even
    where reading it failed (too large, say), as in a folder's run."""
    failed = [result.path for result in outcome.results if result.error is not None and result.path in analyzed]
    if not failed:
        return
    settled: list[FileResult] = []
    narrow_with_git([scan], failed, settled)
    clean = {result.path for result in settled}
    outcome.results[:] = [FileResult(result.path) if result.path in clean else result for result in outcome.results]


def _run_into(outcome: RunResult, paths: Sequence[Path], options: Options, on_progress: Callable[[int, int], None] | None) -> None:
    jobs = options.jobs or default_jobs()
    modes = [lstat_mode(p) for p in paths]  # once per run: the folders start their scans, discovery reads the rest
    folders = [p for p, mode in zip(paths, modes) if mode is not None and stat.S_ISDIR(mode)]  # no link to one
    # git scans the bytes on all cores while the workers start (they import the analysis)
    # and this process walks the folder; git is the longest of the three, so it goes first.
    scans = [gitscan.start(folder) for folder in folders] if not options.parse_all else []
    # Files named one by one (pre-commit's) take the same narrowing, from one scan of their
    # repository, which the fork pass reads again for the index (``fork.index_scope``).
    named_scan = _named_files_scan(paths, folders, options) if not options.parse_all else None
    if named_scan is not None:
        scans.append(named_scan)
    # a few files named one by one: starting processes would cost more than it saves
    kind = pool.choose(jobs) if folders or len(paths) >= POOL_MIN_FILES else "serial"
    with pool.start(jobs, process_chunk, warm_up, kind) as workers:
        # ignore files do not apply to tracked files: the scans' listings say which they are
        by_root = {scan.root: scan for scan in scans if scan is not None}
        found = discover(paths, selection(options), options.respect_gitignore, force_exclude=options.force_exclude, modes=modes,
                         tracked=lambda root: by_root[root].tracked() if root in by_root else gitscan.tracked_files(root),
                         own_outputs=options.own_outputs)
        outcome.skipped = [(str(p), reason) for p, reason in found.skipped]
        for missing in found.missing:
            outcome.results.append(FileResult(str(missing), error=FileError(str(missing), "no such file or folder")))
        files = found.files
        options = _with_release_scopes(options, files)
        dirty = None  # read here only, when writing: never sent to the workers
        if options.writes and not options.allow_dirty:
            from migrator.run.uncommitted import Uncommitted

            dirty = Uncommitted()  # each repository's index read when a file of it is to be written
        outcome.summary = outcome.summary._replace(files_scanned=len(files), left_out=found.left_out,
                                                   own_outputs=found.own_outputs())
        # A few named files are prefiltered here while git lists the repository for the
        # fork pass (its answer would be waited for, and saves reading only these files).
        narrowing = [scan for scan in scans if scan is not named_scan or len(files) > FEW_NAMED_FILES]
        todo = narrow_with_git(narrowing, files, outcome.results)
        done = len(files) - len(todo)
        if on_progress and done:
            on_progress(done, len(files))
        chunks = largest_first_chunks(todo, jobs) if kind != "serial" else [[path] for path in todo]

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
        if named_scan is not None and named_scan not in narrowing:
            _as_if_narrowed(outcome, named_scan, set(todo))
        _leave_out_own_reports(outcome)
        through_the_fork(workers, outcome, paths, files, options, jobs, kind, named_scan)
        for result in outcome.results:
            result.module = None
            write_result(result, options, dirty)
            if options.writes:
                result.original = None
