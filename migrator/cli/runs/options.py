"""The one function that turns a command line and ``[tool.dflash-migrate]`` into
:class:`~migrator.base.options.Options` (:func:`build_options`), for every command that runs
files: the config, the target, the rule codes.

Errors that stop a run before it starts (a bad ``--target-version``, an unknown rule code,
a malformed config) raise :class:`~migrator.cli.UsageError`; ``migrator.cli.main`` prints them
as ``dflash-migrate: error: MESSAGE`` and exits 2, before any file is read.
"""

from __future__ import annotations

import os
from pathlib import Path

from migrator.base.options import Options, parse_codes
from migrator.catalog import target as targets
from migrator.catalog.guide import FROM_METADATA
from migrator.cli import UsageError
from migrator.run.config import (
    Config,
    ConfigError,
    line_length,
    load,
    load_file,
    pin_root,
    sglang_pins,
    unknown_code,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from migrator.catalog.target import Target


def load_config(paths: Sequence[Path], config_file: Path | None = None, isolated: bool = False) -> Config:
    """The one config of a run: ``config_file`` if given, none with ``isolated``, else the
    nearest ``[tool.dflash-migrate]`` from the first path (see :mod:`migrator.run.config` for
    where the search stops)."""
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
    start = paths[0] if paths and str(paths[0]) != "-" else Path.cwd()
    return str(config.root if config.root is not None else pin_root(start))


def _guide(configured: str | None) -> str:
    """Where the TODOs point (``migrator.catalog.guide``): the config's ``guide-url``, else the
    installed package's ``Migration guide`` address (read when a TODO is written), else the
    relative MIGRATION.md."""
    return configured or FROM_METADATA


def _line_length(paths: Sequence[Path]) -> int:
    """The scanned project's line length (``migrator.run.config.line_length``), from the first path."""
    return line_length(paths[0] if paths and str(paths[0]) != "-" else Path.cwd())


def describe(chosen: Target) -> str:
    """Where the releases came from, and the notes, for summaries and reports."""
    return "; ".join((chosen.source, *chosen.notes))


def run_target(options: Options) -> tuple[tuple[str, ...], str] | None:
    """(releases, source) of a run's options, for reports (None: no target)."""
    if options.target_version is None:
        return None
    return options.target_releases or (options.target_version,), options.target_source


def target_label(options: Options) -> str:
    """The releases the run migrates to as the reports spell them (``0.5.14..0.5.23``, never
    only the newest of a range), with where they came from."""
    target = run_target(options)
    if target is None:
        return "(the installed sglang)"
    return f"{targets.label(target[0])} ({target[1]})" if target[1] else targets.label(target[0])


def _extended(select: frozenset[str] | None, extra: frozenset[str] | None) -> frozenset[str] | None:
    """``--extend-select`` adds to a selection; with none (every rule) there is nothing to add."""
    return select if select is None or not extra else select | extra
