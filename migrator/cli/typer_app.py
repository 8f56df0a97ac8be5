"""The typer app (help, usage errors, every unusual command line), built from the commands'
declarations (:mod:`migrator.cli.commands.params`). Imported by :mod:`migrator.cli.main` only
where typer is needed: a plain ``fix`` or ``lint`` command line never imports typer (the
start-up seam)."""

from __future__ import annotations

import enum
import inspect
from pathlib import Path

import typer
import typer.main

from migrator import __version__

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from migrator.cli.commands.params import Command, Param

EPILOG = ("COMMAND defaults to fix: `dflash-migrate PATH...` is `dflash-migrate fix PATH...`. A command name wins over "
          "a folder of that name: write `./check` or `-- check` for the folder. Options go after the command. "
          "Rule reference: MIGRATION.md. "
          "Exit codes: 0 clean, 1 work left, 2 a file could not be processed or the command line is wrong.")


def build_app(commands: Sequence[Command], run_command: Callable[[Command, dict[str, object]], int]) -> typer.Typer:
    """The typer app, built from the commands' declarations (:func:`click_app` runs it);
    ``run_command``: how a parsed command line runs (``migrator.cli.main.run_command``)."""
    app = typer.Typer(add_completion=True, no_args_is_help=False, rich_markup_mode=None, epilog=EPILOG)

    def show_version(value: bool) -> None:
        if value:
            typer.echo(f"dflash-migrate {__version__}")
            raise typer.Exit(0)

    @app.callback()
    def _group(
        version: bool = typer.Option(False, "--version", "-V", help="Show the version and exit.",
                                     is_eager=True, callback=show_version),
    ) -> None:
        """Migrate code from SGLang's removed DFLASH V1 path to the V2 worker."""

    for command in commands:
        app.command(command.name, help=command.help, epilog=EPILOG)(_typer_callback(command, run_command))
        for alias in command.aliases:
            app.command(alias, help=f"Same as `{command.name}`.", epilog=EPILOG)(_typer_callback(command, run_command))
    return app


def click_app(commands: Sequence[Command], run_command: Callable[[Command, dict[str, object]], int]):  # noqa: ANN201
    """The app as the click group that runs it. Typer labels a positional argument with its
    Python type (``[PATH]... <list[Path]>``) whatever its metavar: the label is dropped."""
    group = typer.main.get_command(build_app(commands, run_command))
    for command in group.commands.values():  # type: ignore[attr-defined]
        for param in command.params:
            if param.param_type_name == "argument":
                param.display_type_rich = lambda ctx: None
    return group


def _typer_callback(command: Command, run_command: Callable[[Command, dict[str, object]], int]):  # noqa: ANN202
    def callback(**keywords: object) -> None:
        plain = {name: getattr(value, "value", value) if name in choices else value for name, value in keywords.items()}
        raise typer.Exit(run_command(command, plain))

    choices = {param.name: _choice_type(param) for param in command.params if param.kind == "choice"}

    callback.__signature__ = inspect.Signature([  # type: ignore[attr-defined]
        inspect.Parameter(param.name, inspect.Parameter.KEYWORD_ONLY, default=_typer_default(param),
                          annotation=choices.get(param.name) or _annotation(param))
        for param in command.params
    ])
    callback.__name__ = command.name
    return callback


def _annotation(param: Param) -> object:
    return {"paths": list[Path] | None, "argument": str, "flag": bool, "multi": list[str] | None,
            "text": str | None, "int": int | None, "path": Path | None}[param.kind]


def _choice_type(param: Param) -> type:
    """An Enum of the choices: what typer shows as ``[text|json|...]`` and checks."""
    return enum.Enum(param.name, {choice: choice for choice in param.choices})  # type: ignore[return-value]


def _typer_default(param: Param) -> object:
    if param.kind == "paths":
        return typer.Argument(None, metavar=param.metavar, help=param.help, show_default=False)
    if param.kind == "argument":
        return typer.Argument(..., metavar=param.metavar, help=param.help)
    if param.kind == "flag":
        return typer.Option(False, *param.flags, help=param.help)
    if param.kind == "choice":
        return typer.Option(param.default, *param.flags, help=param.help)
    return typer.Option(None, *param.flags, metavar=param.metavar, help=param.help, show_default=False)
