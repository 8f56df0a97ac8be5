"""Command line: ``dflash-migrate [COMMAND] [ARGS]...``.

Every command lives in :mod:`migrator.cli.commands` (``fix`` the default, ``lint`` alias
``check``, ``rules``, ``explain``, ``verify``, ``doctor``) and declares its parameters once,
as data (:mod:`migrator.cli.commands.params`). This module reads those declarations two ways:

* :func:`click_app`: the typer app (help, usage errors, every unusual command line), in
  :mod:`migrator.cli.typer_app`;
* :func:`parse_fast`: plain ``fix``/``lint`` command lines parsed without importing typer,
  which is most of the start-up time of a run that finds nothing. Anything it does not
  fully understand goes to typer, which stays the reference behaviour.

``--version`` answers before anything else is imported. The first argument picks the
command: a command name wins over a folder of the same name (``./check`` or ``-- check``
for the folder). Without a command the fix runs, which writes, so the command line must
say so plainly: a first word that is no existing path (``format .``, or ``lnt``, then named
as a likely typo) and a command name placed after options (``-q lint .``) are usage errors
before anything is read or written. Shell completion is typer's
(``--install-completion``; the shell's requests go straight to the typer app).
"""

from __future__ import annotations

import gc
import os
import sys
from importlib import import_module
from pathlib import Path

from migrator import __version__
from migrator.cli import UsageError
from migrator.run.result import CLEAN, USAGE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from migrator.cli.commands.params import Command, Param

#: The variable through which a shell asks click (typer) for completions of ``dflash-migrate``.
COMPLETE_VARIABLE = "_DFLASH_MIGRATE_COMPLETE"
#: How close (difflib ratio) a first argument must be to a command name to be taken for a typo of it.
TYPO_CUTOFF = 0.75


def commands() -> tuple[Command, ...]:
    """Every subcommand, in help order."""
    from migrator.cli.commands import doctor, fix, lint, rules, verify

    return (fix.COMMAND, lint.COMMAND, rules.RULES, rules.EXPLAIN, verify.COMMAND, doctor.COMMAND)


def by_name() -> dict[str, Command]:
    """Command by name and by alias."""
    return {name: command for command in commands() for name in (command.name, *command.aliases)}


def split_command(args: list[str]) -> tuple[Command | None, list[str]]:
    """The command a command line runs and its arguments (None: the app's own ``--help``).
    Raises UsageError for a command line without a command that cannot be meant as one
    (:func:`_check_implicit_fix`)."""
    names = by_name()
    if not args:
        return names["fix"], []
    first = args[0]
    if first in names:
        return names[first], args[1:]
    if first in ("--help", "-h"):
        return None, args
    _check_implicit_fix(args, names)
    return names["fix"], args


def _check_implicit_fix(args: list[str], names: dict[str, Command]) -> None:
    """A command line without a command runs ``fix``, which writes: refuse it (UsageError,
    before anything is read) when its first path does not exist (a mistyped or unknown
    command: ``format .``) or when a later word is a command name (an option placed before
    the command: ``-q lint .``)."""
    positional, after_dashes = _positionals(args, names["fix"])
    for word in positional[:len(positional) - after_dashes]:
        if word in names:
            raise UsageError(f"options go after the command: `dflash-migrate {word} "
                             f"{' '.join(a for a in args if a != word)}` (a folder of that name: ./{word}; nothing was run)")
    if not positional or positional[0] == "-" or os.path.lexists(positional[0]):
        return
    first = positional[0]
    import difflib

    close = difflib.get_close_matches(first.lower(), list(names), n=1, cutoff=TYPO_CUTOFF)
    hint = f"; did you mean `dflash-migrate {close[0]}`?" if close else " (`dflash-migrate --help` lists the commands)"
    raise UsageError(f"{first!r} is no command and no file or folder{hint} (nothing was run)")


def _positionals(args: list[str], command: Command) -> tuple[list[str], int]:
    """The positional words of ``command``'s arguments (option values skipped) and how many
    of them came after ``--`` (paths, even where they spell a command name)."""
    takes_value = {flag for param in command.params if param.kind not in ("flag", "paths") for flag in param.flags}
    words: list[str] = []
    rest = iter(args)
    for arg in rest:
        if arg == "--":
            after_dashes = list(rest)
            return words + after_dashes, len(after_dashes)
        if arg == "-" or not arg.startswith("-"):
            words.append(arg)
        elif "=" not in arg and arg in takes_value:
            next(rest, None)
    return words, 0


def pre_commit_arguments(args: list[str]) -> list[str]:
    """``args`` with the file names pre-commit passed moved after ``--``.

    pre-commit runs the hook's entry, then the user's ``args:``, then the file names, so a
    committed file named ``--exit-zero`` or ``--output=README.md`` would otherwise be an
    option (the hook passes, or a tracked file is overwritten with the report). A ``--`` in
    the hook's entry is no answer: it would turn the user's ``args:`` (``--fix``) into paths.
    So under pre-commit a word that starts with ``-`` and names a file git tracks is a path;
    where a word is repeated, only its last occurrence (the file names come last), so
    ``args: [--fix]`` stays an option beside a file named ``--fix``. Costs nothing unless
    such a file exists: git is asked only about words that name an existing file."""
    end = args.index("--") if "--" in args else len(args)
    candidates = {word for word in args[:end] if word.startswith("-") and word != "-" and os.path.lexists(word)}
    if not candidates:
        return args
    from migrator.run.gitscan import tracked_among

    files = tracked_among(candidates, os.getcwd())
    if not files:
        return args
    last = {word: index for index, word in enumerate(args[:end]) if word in files}
    as_paths = set(last.values())
    options = [word for index, word in enumerate(args[:end]) if index not in as_paths]
    return [*options, "--", *(args[index] for index in sorted(as_paths)), *args[end + 1:]]


# ---- the fast path ------------------------------------------------------------------


def parse_fast(command: str, args: list[str]) -> dict[str, object] | None:
    """Keyword arguments for a plain command line of ``command`` (one with ``fast``),
    parsed from its declaration without typer; None for anything unusual (``--help``,
    unknown or malformed options, a value that looks like an option, an unknown choice),
    which typer then parses and reports."""
    declared = by_name().get(command)
    if declared is None or not declared.fast:
        return None
    options = {flag: param for param in declared.params for flag in param.flags}
    parsed: dict[str, object] = {param.name: False if param.kind == "flag" else param.default
                                 for param in declared.params}
    paths: list[Path] = []
    rest = iter(args)
    for arg in rest:
        if arg == "--":
            paths.extend(Path(word) for word in rest)
            break
        if arg == "-" or not arg.startswith("-"):
            paths.append(Path(arg))
            continue
        flag, equals, value = arg.partition("=")
        param = options.get(flag)
        if param is None:
            return None
        if param.kind == "flag":
            if equals:
                return None
            parsed[param.name] = True
            continue
        if not equals:
            value = next(rest, "")  # none left: "", refused below
        if not value or value.startswith("-"):
            return None
        converted = _convert(param, value)
        if converted is None:
            return None
        parsed[param.name] = [*(parsed[param.name] or []), converted] if param.kind == "multi" else converted  # type: ignore[misc]
    parsed["paths"] = paths or None
    return parsed


def _convert(param: Param, value: str) -> object | None:
    if param.kind == "int":
        return int(value) if value.isdigit() else None
    if param.kind == "path":
        return Path(value)
    if param.kind == "choice":
        return value if value in param.choices else None
    return value


# ---- the typer app ------------------------------------------------------------------


def click_app():  # noqa: ANN201 - the click group typer builds
    """The typer app (:mod:`migrator.cli.typer_app`) as the click group that runs it."""
    from migrator.cli import typer_app  # the seam: typer, only where a command line needs it

    return typer_app.click_app(commands(), run_command)


def _completion(args: list[str]) -> bool:
    """Is this typer's shell completion (``--install-completion``, ``--show-completion``, or
    the shell asking for completions through ``_DFLASH_MIGRATE_COMPLETE``)? It goes to the
    typer app as it is: never to the default command, which would run a fix."""
    return args[:1] in (["--install-completion"], ["--show-completion"]) or COMPLETE_VARIABLE in os.environ


# ---- running ------------------------------------------------------------------------


def run_command(command: Command, keywords: dict[str, object]) -> int:
    """Run ``command``; an error that stops it before it starts is printed in the one
    format (``dflash-migrate: error: ...``) and exits 2."""
    if command.name not in ("fix", "lint") and _COLLECTOR[0]:
        gc.enable()  # the other commands run as Python runs them (see main)
    module, _, function = command.run.partition(":")
    try:
        # the seam: the one command that runs, its run module (migrator.cli.runs) and what it imports
        return getattr(import_module(module), function)(**keywords)
    except UsageError as error:
        return _usage_error(error)


def _usage_error(error: Exception) -> int:
    """Print ``error`` in the one format (its words may be user data: control characters
    made visible) and return the usage exit code."""
    print(f"dflash-migrate: error: {_visible(str(error))}", file=sys.stderr)
    return USAGE


def _visible(text: str) -> str:
    """``text`` with its control characters made visible (an error's words may be user data);
    :mod:`migrator.report.escape`, imported only where an error is printed."""
    from migrator.report.escape import visible

    return visible(text)


#: The exit code of a Unix filter whose reader went away (128 + SIGPIPE), as `yes | head` gives.
CLOSED_PIPE = 141
#: Whether the cyclic garbage collector ran when :func:`main` was entered (restored on the way out).
_COLLECTOR = [True]


def main(argv: list[str] | None = None, exiting: bool = False) -> int:
    """The command line. A reader that closed the pipe (``lint . | head``) ends the run
    quietly with :data:`CLOSED_PIPE`, as a Unix filter does; whatever else escapes a command
    (a bug, or an input no check foresaw) ends the run here as a usage error: one line on
    stderr and exit 2, never a traceback with exit 1 that ``--exit-zero`` or a CI step could
    read as "findings". ``exiting``: the process ends right after (the console script, ``python
    -m migrator``): the collector is left off, or its first pass would walk every object of
    the run (~10 ms after a one-file lint) for nothing."""
    # Start-up imports ~200 modules and makes no garbage cycles: the collector's passes over
    # them cost ~2% of a one-file lint. Off until the command runs; fix and lint keep it off
    # (``migrator.run.engine.run`` turns it off for a run anyway), the others turn it on again.
    _COLLECTOR[0] = gc.isenabled()
    gc.disable()
    try:
        code = _main(list(sys.argv[1:] if argv is None else argv))
        sys.stdout.flush()  # here, not at exit, where a closed pipe could only be reported
        return code
    except BrokenPipeError:
        return _closed_pipe()
    except Exception as error:  # the last resort (RecursionError, MemoryError too): see above
        return _internal_error(error)
    finally:
        if _COLLECTOR[0] and not exiting:
            gc.enable()


def _closed_pipe() -> int:
    """Point the closed standard streams at the null device, so that the flushes of the
    exit write nothing and say nothing."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            try:
                os.dup2(devnull, stream.fileno())
            except (OSError, ValueError):
                pass
    return CLOSED_PIPE


def _internal_error(error: BaseException) -> int:
    where = ""
    trace = error.__traceback__
    while trace is not None:  # the innermost frame of the tool's own code: where to look
        if "migrator" in trace.tb_frame.f_code.co_filename:
            where = f" at {os.path.basename(trace.tb_frame.f_code.co_filename)}:{trace.tb_lineno}"
        trace = trace.tb_next
    message = _visible(f"{type(error).__name__}: {error}")[:500]
    print(f"dflash-migrate: error: internal error{where} ({message}); the run stopped here, please report it",
          file=sys.stderr)
    return USAGE


def _main(args: list[str]) -> int:
    if args[:1] in (["--version"], ["-V"]):
        print(f"dflash-migrate {__version__}")
        return 0
    try:
        command, rest = (None, args) if _completion(args) else split_command(args)
    except UsageError as error:
        return _usage_error(error)
    if command is not None and command.name in ("fix", "lint") and os.environ.get("PRE_COMMIT") == "1":
        rest = pre_commit_arguments(rest)
    if command is not None:
        fast = parse_fast(command.name, rest)
        if fast is not None:
            return run_command(command, fast)
        args = [command.name, *rest]
    try:
        click_app().main(args=args, prog_name="dflash-migrate", standalone_mode=True)
    except SystemExit as exit_:
        code = exit_.code
        if isinstance(code, str):
            print(code, file=sys.stderr)
            return USAGE
        return CLEAN if code is None else code
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
