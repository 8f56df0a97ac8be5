"""What every command shares: the parameters they have in common, the one function that
turns a command line and ``[tool.dflash-migrate]`` into :class:`~migrator.base.options.Options`,
the progress bar and the error format.

Errors that stop a run before it starts (a bad ``--target-version``, an unknown rule code,
a malformed config) raise :class:`UsageError`; ``migrator.cli.main`` prints them as
``dflash-migrate: error: MESSAGE`` and exits 2, before any file is read.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from migrator import __version__
from migrator.base.options import Options, parse_codes, selection
from migrator.catalog.guide import FROM_METADATA
from migrator.cli import UsageError
from migrator.cli.commands.params import Param

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Sequence, TextIO

    from migrator.catalog.target import Target
    from migrator.run.config import Config
    from migrator.run.result import RunResult

SELECT = Param("select", ("--select",), "multi", "CODES",
               "Only these rule codes, comma-separated or repeated (prefixes allowed: DFM1,DFM201).")
IGNORE = Param("ignore", ("--ignore",), "multi", "CODES", "Skip these rule codes (comma-separated or repeated; prefixes allowed).")
EXCLUDE = Param("exclude", ("--exclude",), "multi", "GLOB",
                "Gitignore-style pattern to skip, relative to the current folder (repeatable); "
                "added to the config's `exclude`.")
FORCE_EXCLUDE = Param("force_exclude", ("--force-exclude",), "flag", None,
                      "Apply the exclude patterns also to files named on the command line (as pre-commit passes them).")
TARGET_VERSION = Param("target_version", ("--target-version",), "text", "RELEASES",
                       "sglang releases to migrate to: one (0.5.17), a range (0.5.14..0.5.23) or a PEP 440 specifier "
                       "(>=0.5.16,<0.5.22); a fix is applied only where it serves each of them (default: the fork's "
                       "sglang pin, else every V2 release the catalog knows).")
JOBS = Param("jobs", ("--jobs", "-j"), "int", "N", "Worker processes (default: CPUs).")
PARSE_ALL = Param("parse_all", ("--parse-all",), "flag", None,
                  "Turn every shortcut off: parse every file whole, also those that cannot match (every syntax error "
                  "is reported), and analyse every statement (slower; same findings).")
EXTEND_SELECT = Param("extend_select", ("--extend-select",), "multi", "CODES",
                      "Rule codes to add to the selection (the config's `select` or --select), as in ruff.")
EXTEND_IGNORE = Param("extend_ignore", ("--extend-ignore",), "multi", "CODES",
                      "Rule codes to skip in addition to the config's and --ignore's, as in ruff.")
CONFIG = Param("config_file", ("--config",), "path", "FILE",
               "Use the settings in FILE (a pyproject.toml with [tool.dflash-migrate], or a TOML file of the same "
               "keys) instead of searching for one.")
NO_RESPECT_GITIGNORE = Param("no_respect_gitignore", ("--no-respect-gitignore",), "flag", None,
                             "Also read the files that .gitignore files name (config: respect-gitignore = false).")
ISOLATED = Param("isolated", ("--isolated",), "flag", None, "Ignore every configuration file (as in ruff).")
SHOW_FILES = Param("show_files", ("--show-files",), "flag", None,
                   "Print the files this command line would read, one per line, and exit (as in ruff).")
SHOW_SETTINGS = Param("show_settings", ("--show-settings",), "flag", None,
                      "Print the settings this command line resolves to (config file, target, rules, excludes) and exit.")
VERBOSE = Param("verbose", ("--verbose", "-v"), "flag", None,
                "Also say on stderr which config and target the run used, how many files it found and how long it took.")
CACHE_DIR = Param("cache_dir", ("--cache-dir",), "path", "DIR",
                  "Keep the fork index's per-module summaries between runs here (default: "
                  "$DFLASH_MIGRATE_CACHE/summaries, ~/.cache/dflash-migrate/summaries).")
NO_CACHE = Param("no_cache", ("--no-cache",), "flag", None,
                 "Neither read nor write the summary cache (the findings are the same, a run over named files slower).")
#: The file-selection and rule-selection parameters of ``fix`` and ``lint``, and ruff's
#: ways of asking what a run would do.
SHARED = (SELECT, IGNORE, EXTEND_SELECT, EXTEND_IGNORE, EXCLUDE, FORCE_EXCLUDE, NO_RESPECT_GITIGNORE, TARGET_VERSION, JOBS,
          PARSE_ALL, CONFIG, ISOLATED, SHOW_FILES, SHOW_SETTINGS, VERBOSE, CACHE_DIR, NO_CACHE)


def load_config(paths: Sequence[Path], config_file: Path | None = None, isolated: bool = False) -> Config:
    """The one config of a run: ``config_file`` if given, none with ``isolated``, else the
    nearest ``[tool.dflash-migrate]`` from the first path (see :mod:`migrator.run.config` for
    where the search stops)."""
    from migrator.run.config import Config, ConfigError, load, load_file

    if isolated:
        if config_file is not None:
            raise UsageError("--config and --isolated contradict each other")
        return Config()
    start = paths[0] if paths and str(paths[0]) != "-" else Path.cwd()
    try:
        return load_file(config_file) if config_file is not None else load(start)
    except ConfigError as error:
        raise UsageError(str(error)) from None


def choose_target(paths: Sequence[Path], target_version: str | None, config: Config) -> Target:
    """The releases a run migrates to (:mod:`migrator.catalog.target`): ``--target-version``, else the
    config's ``target-version``, else the fork's sglang pins in the configuration root, else
    every known V2 release; with a note where the installed sglang lies outside them."""
    from migrator.catalog import target as targets
    from migrator.run.config import ConfigError, pin_root, sglang_pins

    try:
        if target_version is not None:
            chosen = targets.parse(target_version, "--target-version")
        elif config.target_version is not None:
            chosen = targets.parse(config.target_version, f"target-version in {config.source}")
        else:
            start = paths[0] if paths and str(paths[0]) != "-" else Path.cwd()
            pins = sglang_pins(config.root if config.root is not None else pin_root(start))
            chosen = targets.pinned(pins.found)
            chosen = chosen._replace(notes=chosen.notes + pins.ignored)
    except (targets.TargetError, ConfigError) as error:
        raise UsageError(str(error)) from None
    return chosen._replace(notes=chosen.notes + targets.installed_note(chosen))


def _codes(values: list[str] | None, flag: str) -> frozenset[str] | None:
    from migrator.run.config import unknown_code

    codes = parse_codes(values)
    unknown = unknown_code(codes or ())
    if unknown is not None:
        raise UsageError(f"{flag}: unknown rule code {unknown!r} (`dflash-migrate rules` lists them)")
    return codes


def build_options(
    mode: str,
    paths: Sequence[Path],
    *,
    target_version: str | None = None,
    select: list[str] | None = None,
    ignore: list[str] | None = None,
    extend_select: list[str] | None = None,
    extend_ignore: list[str] | None = None,
    exclude: list[str] | None = None,
    force_exclude: bool = False,
    no_respect_gitignore: bool = False,
    unsafe_fixes: bool = False,
    jobs: int | None = None,
    allow_dirty: bool = False,
    parse_all: bool = False,
    default_target: bool = True,
    config_file: Path | None = None,
    isolated: bool = False,
    cache_dir: Path | None = None,
    no_cache: bool = False,
) -> Options:
    """Options for every command from its command line, layered over the run's config.

    Command-line ``--select`` replaces the config's (its ``extend-select`` too, as in ruff);
    ``--ignore`` and ``--exclude`` add to it; ``--target-version`` wins over
    ``target-version``; a flag given on the command line wins over the config's ``false``. Without either, the target is
    the fork's sglang pin or every known V2 release (:func:`choose_target`;
    ``default_target=False``: None, for ``verify``, which then checks against the installed
    sglang itself).
    """
    config = load_config(paths, config_file, isolated)
    chosen = None
    if default_target or target_version is not None or config.target_version is not None:
        chosen = choose_target(paths, target_version, config)
    if jobs is not None and jobs < 1:
        raise UsageError(f"--jobs: {jobs} is not a number of workers (1 or more)")
    cwd = os.getcwd()
    root = str(config.root) if config.root is not None else cwd
    return Options(
        mode=mode,
        target_version=chosen.newest if chosen else None,
        target_releases=chosen.releases if chosen else (),
        target_source=describe(chosen) if chosen else "",
        select=_extended(_codes(select, "--select") or _extended(frozenset(config.select) if config.select else None,
                                                                 frozenset(config.extend_select)),
                         _codes(extend_select, "--extend-select")),
        ignore=((_codes(ignore, "--ignore") or frozenset()) | frozenset(config.ignore)
                | (_codes(extend_ignore, "--extend-ignore") or frozenset())),
        unsafe_fixes=unsafe_fixes or bool(config.unsafe_fixes),
        jobs=jobs,
        exclude=tuple((cwd, pattern) for pattern in exclude or ()) + tuple((root, pattern) for pattern in config.exclude),
        allow_dirty=allow_dirty,
        per_file_ignores=tuple((root, pattern, frozenset(codes)) for pattern, codes in config.per_file_ignores),
        parse_all=parse_all,
        force_exclude=force_exclude or bool(config.force_exclude),
        respect_gitignore=not no_respect_gitignore and config.respect_gitignore is not False,
        config=str(config.source) if config.source is not None else None,
        cache_dir=str(cache_dir) if cache_dir is not None else config.cache_dir,
        no_cache=no_cache,
        line_length=_line_length(paths) if mode != "lint" else Options().line_length,  # lint writes no TODO
        target_from_flag=target_version is not None,
        pin_folder=_pin_folder(paths, config) if chosen else "",
        guide=_guide(config.guide_url) if mode != "lint" else "",  # lint writes no TODO
    )


def _pin_folder(paths: Sequence[Path], config: Config) -> str:
    """Where the run's own sglang pin is read from (:func:`choose_target`'s folder)."""
    from migrator.run.config import pin_root

    start = paths[0] if paths and str(paths[0]) != "-" else Path.cwd()
    return str(config.root if config.root is not None else pin_root(start))


def _guide(configured: str | None) -> str:
    """Where the TODOs point (``migrator.catalog.guide``): the config's ``guide-url``, else the
    installed package's ``Migration guide`` address (read when a TODO is written), else the
    relative MIGRATION.md."""
    return configured or FROM_METADATA


def _line_length(paths: Sequence[Path]) -> int:
    """The scanned project's line length (``migrator.run.config.line_length``), from the first path."""
    from migrator.run.config import line_length

    return line_length(paths[0] if paths and str(paths[0]) != "-" else Path.cwd())


def describe(chosen: Target) -> str:
    """Where the releases came from, and the notes, for summaries and reports."""
    return "; ".join((chosen.source, *chosen.notes))


def run_target(options: Options) -> tuple[tuple[str, ...], str] | None:
    """(releases, source) of a run's options, for reports (None: no target)."""
    if options.target_version is None:
        return None
    return options.target_releases or (options.target_version,), options.target_source


def _extended(select: frozenset[str] | None, extra: frozenset[str] | None) -> frozenset[str] | None:
    """``--extend-select`` adds to a selection; with none (every rule) there is nothing to add."""
    return select if select is None or not extra else select | extra


class progress:
    """``with progress("linting") as on_progress:``: a rich progress bar on stderr for runs
    of many files when stderr is a terminal; ``on_progress`` is None otherwise."""

    MIN_FILES = 200

    def __init__(self, label: str, stream: TextIO | None = None) -> None:
        self.label = label
        self.stream = stream or sys.stderr
        self.bar = None
        self.task = None

    def __enter__(self) -> Callable[[int, int], None] | None:
        if not (hasattr(self.stream, "isatty") and self.stream.isatty()):
            return None
        return self.update

    def update(self, done: int, total: int) -> None:
        if self.bar is None:
            if total < self.MIN_FILES:
                return
            from rich.console import Console
            from rich.progress import Progress

            self.bar = Progress(console=Console(file=self.stream), transient=True)
            self.bar.start()
            self.task = self.bar.add_task(self.label, total=total)
        self.bar.update(self.task, completed=done)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()


def reads_stdin(paths: Sequence[Path]) -> bool:
    """Is the one input standard input (``-``)?"""
    return [str(path) for path in paths] == ["-"]


def run_inputs(paths: list[Path], options: Options, stdin_filename: str | None, label: str,
               stdout: TextIO | None = None, stderr: TextIO | None = None) -> tuple[RunResult, dict[str, bytes]]:
    """The run of ``fix`` or ``lint``: the files under ``paths`` (a progress bar ``label`` on
    ``stderr``), or, where the one path is ``-``, standard input as one file named
    ``stdin_filename`` (default ``<stdin>.py``). Returns the run and the bytes read from
    standard input, by that name.

    ``-`` in a writing mode: the fixed source on stdout (the input itself where nothing
    changed or the file could not be processed); the result counts as written when what
    went out differs, and the summary is counted again."""
    from migrator.run import engine

    if not reads_stdin(paths):
        with progress(label, stderr) as on_progress:
            return engine.run(paths, options, on_progress), {}
    name = stdin_filename or "<stdin>.py"
    data = sys.stdin.buffer.read()
    outcome = engine.run_bytes(name, data, options)
    if options.writes:
        result = outcome.results[0]
        written = result.new_bytes if result.new_bytes is not None and result.error is None else data
        if stdout is not None:
            stdout.flush()
        sys.stdout.flush()
        sys.stdout.buffer.write(written)
        sys.stdout.buffer.flush()
        result.written = written is not data
        outcome.summarize(options)
    return outcome, {name: data}


def require_existing(paths: Sequence[Path]) -> None:
    """A run that writes refuses a named path that does not exist before it writes anything
    (a report-only run reports it as a file error and goes on, as ruff's E902)."""
    missing = [str(path) for path in paths if str(path) != "-" and not os.path.lexists(path)]
    if missing:
        from migrator.report.escape import visible

        raise UsageError(f"no such file or folder: {', '.join(visible(name) for name in missing)} (nothing was written)")


def shown(paths: Sequence[Path], options: Options, show_files: bool, show_settings: bool,
          stdout: TextIO | None = None) -> bool:
    """``--show-files`` / ``--show-settings``: print what was asked and say so (the command
    then exits 0 without reading a file's content)."""
    if not (show_files or show_settings):
        return False
    from migrator.report.escape import visible

    out = stdout or sys.stdout
    if show_settings:
        out.write("".join(f"{visible(key)} = {visible(value)}\n" for key, value in settings(paths, options)))
    if show_files:
        from migrator.run.files import discover

        found = discover(paths, selection(options), options.respect_gitignore, force_exclude=options.force_exclude,
                         own_outputs=options.own_outputs)
        out.write("".join(visible(os.path.abspath(path)) + "\n" for path in sorted(found.files)))
    return True


def settings(paths: Sequence[Path], options: Options) -> list[tuple[str, str]]:
    """The resolved settings of a run, as ``--show-settings`` prints them."""
    def codes(values: frozenset[str] | None, default: str) -> str:
        return ", ".join(sorted(values)) if values else default

    return [
        ("paths", " ".join(str(path) for path in paths)),
        ("mode", options.mode),
        ("config", options.config or "(none)"),
        ("target-version", _target_label(options)),
        ("select", codes(options.select, "(every rule)")),
        ("ignore", codes(options.ignore, "(none)")),
        ("exclude", ", ".join(f"{pattern} (in {folder})" for folder, pattern in options.exclude) or "(none)"),
        ("per-file-ignores", ", ".join(f"{pattern}: {','.join(sorted(c))} (in {folder})"
                                       for folder, pattern, c in options.per_file_ignores) or "(none)"),
        ("force-exclude", str(options.force_exclude).lower()),
        ("unsafe-fixes", str(options.unsafe_fixes).lower()),
        ("respect-gitignore", str(options.respect_gitignore).lower()),
        ("jobs", str(options.jobs or "(CPUs)")),
        ("cache-dir", options.cache_dir or "(default)"),
    ]


def _target_label(options: Options) -> str:
    """The releases the run migrates to as the reports spell them (``0.5.14..0.5.23``, never
    only the newest of a range), with where they came from."""
    target = run_target(options)
    if target is None:
        return "(the installed sglang)"
    from migrator.catalog.target import label

    return f"{label(target[0])} ({target[1]})" if target[1] else label(target[0])


def verbose_note(options: Options, files_scanned: int, started: float, stderr: TextIO | None = None,
                 index_read: str = "") -> None:
    """``-v``: what the run used and found, on stderr; ``index_read``: what the fork index
    read besides the scanned files (``RunResult.index_read``)."""
    from migrator.report.escape import visible
    from migrator.report.text import counted

    print(visible(f"dflash-migrate {__version__}: config {options.config or '(none)'}, target sglang "
                  f"{_target_label(options)}, {counted(files_scanned, 'file')} scanned in "
                  f"{time.monotonic() - started:.2f} s"), file=stderr or sys.stderr)
    if index_read:
        print(visible(f"fork index: read {index_read}"), file=stderr or sys.stderr)


def report_skipped(skipped: Sequence[tuple[Path, str]]) -> None:
    """``PATH: skipped: REASON`` on stderr for each path a run left out, control characters
    made visible (a file name is user data)."""
    from migrator.report.escape import visible

    for path, reason in skipped:
        print(visible(f"{path}: skipped: {reason}"), file=sys.stderr)


def paths_or_here(paths: Sequence[Path] | None) -> list[Path]:
    return list(paths or [Path(".")])


def write_report(path: Path, outcome: RunResult, options: Options, paths: Sequence[Path]) -> bool:
    """``--report FILE`` (:mod:`migrator.run.report`); False, with the error on stderr, where
    it cannot be written."""
    from migrator.base.fileio import SourceError
    from migrator.base.repository import up_to_top
    from migrator.report.escape import visible
    from migrator.run import report

    first = os.path.abspath(paths[0]) if paths and str(paths[0]) != "-" else os.getcwd()
    top = up_to_top(first if os.path.isdir(first) else os.path.dirname(first))[-1]
    try:
        report.write(path, report.build(outcome.results, outcome.summary, options.mode, options.unsafe_fixes,
                                        run_target(options), top))
    except SourceError as error:
        print(visible(f"dflash-migrate: --report {path}: {error.message}"), file=sys.stderr)
        return False
    return True
