"""Command line: a thin typer layer over ``migrator.engine``.

``dflash-migrate [PATH ...]`` (the default command, also ``dflash-migrate fix``) rewrites
in place; ``--diff`` prints a unified diff and writes nothing; ``--check`` writes nothing.
Other subcommands (``lint``, ``rules``, ``explain``, ``verify``, ``doctor``) register on
the same app. ``--version`` answers before typer or rich are imported, so it is instant.

Exit codes: 0 nothing left to do; 1 changes would be made (``--diff``/``--check``) or
manual findings remain; 2 some file could not be processed (every other file is still
processed and reported).
"""

from __future__ import annotations

import sys
from pathlib import Path

from . import __version__

TYPE_CHECKING = False

if TYPE_CHECKING:  # pragma: no cover
    import typer

    from .engine import Options, RunResult

#: Subcommands other than the default. Anything else in first position is a path.
SUBCOMMANDS = ("fix", "lint", "rules", "explain", "verify", "doctor")
EPILOG = "Docs and rule reference: MIGRATION.md. Exit codes: 0 clean, 1 work left, 2 a file could not be processed."


def _codes(values: list[str] | None) -> frozenset[str] | None:
    if not values:
        return None
    return frozenset(code.strip().upper() for value in values for code in value.split(",") if code.strip())


def build_options(
    mode: str,
    target_version: str | None,
    select: list[str] | None,
    ignore: list[str] | None,
    unsafe_fixes: bool,
    jobs: int | None,
    exclude: list[str] | None,
    allow_dirty: bool,
    paths: list[Path],
) -> "Options":
    """Options from the command line, layered over ``[tool.dflash-migrate]`` config."""
    from . import catalog
    from .engine import Options

    config = _load_config(paths)
    target = target_version or getattr(config, "target_version", None) or catalog.default_target_version()
    try:
        catalog.parse_version(target)
    except ValueError:
        raise SystemExit(f"dflash-migrate: error: --target-version {target!r} is not a version") from None
    return Options(
        mode=mode,  # type: ignore[arg-type]
        target_version=target,
        select=_codes(select) or frozenset(getattr(config, "select", ()) or ()) or None,
        ignore=(_codes(ignore) or frozenset()) | frozenset(getattr(config, "ignore", ()) or ()),
        unsafe_fixes=unsafe_fixes,
        jobs=jobs,
        exclude=tuple(exclude or ()) + tuple(getattr(config, "exclude", ()) or ()),
        allow_dirty=allow_dirty,
        per_file_ignores=tuple((glob, frozenset(codes)) for glob, codes in getattr(config, "per_file_ignores", ()) or ()),
    )


def _load_config(paths: list[Path]) -> object | None:
    try:
        from .config import load
    except ImportError:
        return None
    from .config import ConfigError

    start = paths[0] if paths and str(paths[0]) != "-" else Path.cwd()
    try:
        return load(start if start.is_dir() else start.parent)
    except ConfigError as error:
        raise SystemExit(f"dflash-migrate: error: {error}") from None


def _status(finding, options: "Options") -> str:  # noqa: ANN001 - model.Finding
    fix = finding.fix
    if fix is None or fix.applicability == "manual":
        return "manual"
    if fix.applicability == "unsafe" and not options.unsafe_fixes:
        return "unsafe fix available with --unsafe-fixes; TODO left" if options.mode == "fix" else "unsafe fix available"
    return "fixed" if options.mode == "fix" else "fixable"


def report_run(outcome: "RunResult", options: "Options", stream=None) -> None:  # noqa: ANN001
    """Report lines (``path:line:col: CODE message``) and errors, then the summary."""
    out = stream or (sys.stderr if options.mode == "diff" else sys.stdout)
    for result in outcome.results:
        if result.error is not None:
            print(str(result.error), file=sys.stderr)
        for finding in result.findings:
            print(f"{finding.path}:{finding.line}:{finding.column + 1}: {finding.code} {finding.message} [{_status(finding, options)}]", file=out)
    for path, reason in outcome.skipped:
        print(f"{path}: skipped: {reason}", file=sys.stderr)
    summary = outcome.summary
    verb = {"fix": "changed", "check": "would change", "diff": "would change", "lint": "with findings"}[options.mode]
    changed = summary.files_changed if options.mode != "lint" else sum(1 for r in outcome.results if r.findings)
    line = (
        f"dflash-migrate: {summary.files_scanned} files scanned, {changed} {verb}, "
        f"{summary.fixes_applied} fixes {'applied' if options.mode == 'fix' else 'available'}, "
        f"{summary.todos_left} manual TODOs left, {summary.files_with_errors} files with errors"
        f" (target sglang {options.target_version})"
    )
    if outcome.interrupted:
        line += "; INTERRUPTED: files not yet processed were left untouched"
    print(line, file=sys.stderr)


def print_diff(outcome: "RunResult") -> None:
    import difflib

    for result in outcome.results:
        if result.new_bytes is None:
            continue
        try:
            old = Path(result.path).read_bytes().decode("utf-8", errors="replace")
        except OSError:
            continue
        new = result.new_bytes.decode("utf-8", errors="replace")
        sys.stdout.writelines(
            difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{result.path}", f"b/{result.path}")
        )


def _progress_callback():  # noqa: ANN202
    """A rich progress bar on stderr for long runs when it is a terminal; else nothing."""
    if not sys.stderr.isatty():
        return None, None
    from rich.progress import Progress

    progress = Progress(transient=True, console=None)
    task = progress.add_task("migrating", total=None)

    def update(done: int, total: int) -> None:
        if total >= 50:
            progress.start()
            progress.update(task, completed=done, total=total)

    return progress, update


def run_fix(mode: str, paths: list[Path], options: "Options", stdin_filename: str | None) -> int:
    from .engine import process_bytes, run

    if [str(p) for p in paths] == ["-"]:
        data = sys.stdin.buffer.read()
        name = stdin_filename or "<stdin>.py"
        result = process_bytes(name, data, options)
        if result.error is not None:
            print(str(result.error), file=sys.stderr)
            if mode == "fix":
                sys.stdout.buffer.write(data)
            return 2
        for finding in result.findings:
            print(f"{name}:{finding.line}:{finding.column + 1}: {finding.code} {finding.message} [{_status(finding, options)}]", file=sys.stderr)
        if mode == "fix":
            sys.stdout.buffer.write(result.new_bytes if result.new_bytes is not None else data)
        elif mode == "diff" and result.new_bytes is not None:
            import difflib

            sys.stdout.writelines(difflib.unified_diff(data.decode(errors="replace").splitlines(True),
                                                       result.new_bytes.decode(errors="replace").splitlines(True), name, name))
        left = sum(1 for f in result.findings if f.fix is None or f.fix.applicability != "safe")
        return 1 if left or (mode != "fix" and result.new_bytes is not None) else 0
    progress, update = _progress_callback()
    try:
        outcome = run(paths, options, on_progress=update)
    finally:
        if progress is not None:
            progress.stop()
    if mode == "diff":
        print_diff(outcome)
    report_run(outcome, options)
    return outcome.exit_code


def fix(
    paths: list[Path] | None,
    diff: bool = False,
    check: bool = False,
    select: list[str] | None = None,
    ignore: list[str] | None = None,
    unsafe_fixes: bool = False,
    jobs: int | None = None,
    exclude: list[str] | None = None,
    allow_dirty: bool = False,
    target_version: str | None = None,
    stdin_filename: str | None = None,
    parse_all: bool = False,
) -> int:
    """The `fix` command (also `--check`/`--diff`) once its arguments are parsed."""
    mode = "diff" if diff else "check" if check else "fix"
    paths = paths or [Path(".")]
    options = build_options(mode, target_version, select, ignore, unsafe_fixes, jobs, exclude, allow_dirty, paths)
    options = options._replace(parse_all=parse_all)
    return run_fix(mode, paths, options, stdin_filename)


#: Options the typer-free fast path understands, per command (tests/test_cli_startup.py
#: keeps these in step with the typer declarations): flags, repeatable options, single-value
#: options (-> keyword of the function that runs the command).
FAST_OPTIONS: dict[str, tuple[dict[str, str], dict[str, str], dict[str, str]]] = {
    "fix": (
        {"--diff": "diff", "--check": "check", "--unsafe-fixes": "unsafe_fixes",
         "--allow-dirty": "allow_dirty", "--parse-all": "parse_all"},
        {"--select": "select", "--ignore": "ignore", "--exclude": "exclude"},
        {"--jobs": "jobs", "-j": "jobs", "--target-version": "target_version", "--stdin-filename": "stdin_filename"},
    ),
    "lint": (
        {"--exit-zero": "exit_zero", "--parse-all": "parse_all"},
        {"--select": "select", "--ignore": "ignore", "--exclude": "exclude"},
        {"--jobs": "jobs", "-j": "jobs", "--target-version": "target_version", "--format": "fmt",
         "--output": "output", "-o": "output"},
    ),
}
FAST_FLAGS, FAST_MULTI, FAST_SINGLE = FAST_OPTIONS["fix"]


def parse_fast(command: str, args: list[str]) -> dict | None:
    """Keyword arguments for a plain `fix` or `lint` command line, parsed without typer.

    Importing typer (and the pydantic it builds parameter adapters with) is most of a
    no-match run's time. Anything this does not fully understand (``--help``, ``--``,
    unknown or malformed options, a value that looks like an option, ``--jobs 0``, an
    unknown ``--format``) returns None and goes to typer, which stays the reference
    behaviour and reports the errors.
    """
    if command not in FAST_OPTIONS:
        return None
    flags, multi, single = FAST_OPTIONS[command]
    parsed: dict = {name: False for name in flags.values()}
    parsed.update({name: None for name in (*multi.values(), *single.values())})
    paths: list[Path] = []
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg == "-" or not arg.startswith("-"):
            paths.append(Path(arg))
            continue
        name, equals, value = arg.partition("=")
        if name in flags and not equals:
            parsed[flags[name]] = True
            continue
        if name not in multi and name not in single:
            return None
        if not equals:
            if index >= len(args):
                return None
            value = args[index]
            index += 1
        if not value or value.startswith("-"):
            return None
        if name in multi:
            parsed[multi[name]] = [*(parsed[multi[name]] or []), value]
        elif single[name] == "jobs":
            if not value.isdigit() or int(value) < 1:
                return None
            parsed["jobs"] = int(value)
        elif single[name] == "output":
            parsed["output"] = Path(value)
        else:
            parsed[single[name]] = value
    parsed["paths"] = paths or None
    if command == "lint":
        from .report import FORMATS

        if parsed["fmt"] is None:
            parsed["fmt"] = "text"
        elif parsed["fmt"] not in FORMATS:
            return None
    return parsed


def parse_fix_fast(args: list[str]) -> dict | None:
    return parse_fast("fix", args)


def lint(paths: list[Path] | None, **options) -> int:  # noqa: ANN003 - lint_cli's options
    """The `lint` command once its arguments are parsed (as ``migrator.lint_cli`` runs it)."""
    from .config import ConfigError
    from .report.commands import lint as run_lint

    try:
        return run_lint(list(paths or []), **options)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def build_app(command: str | None = None) -> "typer.Typer":
    """The typer app; with ``command``, only the subcommand module that provides it is
    imported (``verify`` alone costs ~70 ms of imports that ``fix`` and ``lint`` never use)."""
    import typer

    app = typer.Typer(
        add_completion=False,
        no_args_is_help=False,
        rich_markup_mode=None,
        help="Migrate code from SGLang's removed DFLASH V1 path to the V2 worker. "
        "`dflash-migrate PATH...` rewrites in place (same as `dflash-migrate fix`).",
        epilog=EPILOG,
    )

    @app.callback()
    def _group() -> None:
        """Migrate code from SGLang's removed DFLASH V1 path to the V2 worker."""

    @app.command("fix", epilog=EPILOG)
    def fix_command(
        paths: list[Path] = typer.Argument(None, help="Files or folders (default: .). `-` reads stdin and writes stdout."),
        diff: bool = typer.Option(False, "--diff", help="Print a unified diff; write nothing."),
        check: bool = typer.Option(False, "--check", help="Write nothing; exit 1 if anything would change."),
        select: list[str] | None = typer.Option(None, "--select", help="Only these rule codes (prefixes allowed: DFM1)."),
        ignore: list[str] | None = typer.Option(None, "--ignore", help="Skip these rule codes (prefixes allowed)."),
        unsafe_fixes: bool = typer.Option(False, "--unsafe-fixes", help="Also apply fixes marked unsafe."),
        jobs: int | None = typer.Option(None, "--jobs", "-j", min=1, help="Worker processes (default: CPUs)."),
        exclude: list[str] | None = typer.Option(None, "--exclude", help="Gitignore-style glob to skip (repeatable)."),
        allow_dirty: bool = typer.Option(False, "--allow-dirty", help="Modify files with uncommitted git changes."),
        target_version: str | None = typer.Option(
            None, "--target-version", help="sglang release to migrate to (default: installed if >= 0.5.14, else newest known)."
        ),
        stdin_filename: str | None = typer.Option(None, "--stdin-filename", help="Name to report for `-` input."),
        parse_all: bool = typer.Option(False, "--parse-all", help="Also parse files that cannot match, to report every syntax error (slower)."),
    ) -> None:
        """Rewrite every reference to the removed V1 API (default command)."""
        raise typer.Exit(fix(paths, diff, check, select, ignore, unsafe_fixes, jobs, exclude, allow_dirty,
                             target_version, stdin_filename, parse_all))

    _register_optional_commands(app, command)
    return app


#: Module that registers each subcommand living outside this file.
OPTIONAL_COMMANDS = {
    "lint": "migrator.lint_cli",
    "rules": "migrator.lint_cli",
    "explain": "migrator.lint_cli",
    "verify": "migrator.verify_cli",
    "doctor": "shims.doctor_cli",
}


def _register_optional_commands(app: "typer.Typer", command: str | None = None) -> None:
    """Subcommands living in their own modules register themselves here: all of them, or
    (``command`` given) only the one about to run."""
    modules: tuple[str, ...] = ("migrator.lint_cli", "migrator.verify_cli", "shims.doctor_cli")
    if command == "fix":
        modules = ()
    elif command in OPTIONAL_COMMANDS:
        modules = (OPTIONAL_COMMANDS[command],)
    for module_name in modules:
        try:
            module = __import__(module_name, fromlist=["register"])
        except ImportError:
            continue
        module.register(app)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in ("--version", "-V"):
        print(f"dflash-migrate {__version__}")
        return 0
    if not args or (args[0] not in SUBCOMMANDS and args[0] not in ("--help", "-h")):
        args = ["fix", *args]
    fast = parse_fast(args[0], args[1:])
    try:
        if fast is not None:
            return fix(**fast) if args[0] == "fix" else lint(**fast)
        app = build_app(args[0] if args[0] in SUBCOMMANDS else None)
        app(args=args, prog_name="dflash-migrate", standalone_mode=True)
    except SystemExit as exit_:
        code = exit_.code
        if isinstance(code, str):
            print(code, file=sys.stderr)
            return 2
        return 0 if code is None else code
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
