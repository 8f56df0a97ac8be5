"""Typer commands ``lint``, ``rules`` and ``explain``; thin over :mod:`migrator.report.commands`."""

from __future__ import annotations

from pathlib import Path


def register(app) -> None:  # noqa: ANN001 - typer.Typer, imported lazily by migrator.cli
    import typer

    from migrator.report import FORMATS

    @app.command("lint")
    def lint_command(
        paths: list[Path] = typer.Argument(None, help="Files or folders (default: .)"),
        fmt: str = typer.Option("text", "--format", help=f"One of: {', '.join(FORMATS)}"),
        output: Path | None = typer.Option(None, "--output", "-o", help="Write the report here"),
        exit_zero: bool = typer.Option(False, "--exit-zero", help="Exit 0 even with findings (2 still means errors)"),
        select: list[str] | None = typer.Option(None, "--select", help="Only these codes/prefixes"),
        ignore: list[str] | None = typer.Option(None, "--ignore", help="Skip these codes/prefixes"),
        exclude: list[str] | None = typer.Option(None, "--exclude", help="gitignore-style patterns"),
        target_version: str | None = typer.Option(None, "--target-version", help="sglang release to target"),
        jobs: int | None = typer.Option(None, "--jobs", "-j"),
        parse_all: bool = typer.Option(False, "--parse-all", help="Also parse files that cannot match, to report every syntax error (slower)"),
    ) -> None:
        """Report every DFLASH V1 reference; exit 0 clean, 1 findings, 2 unprocessable file."""
        from migrator.config import ConfigError
        from migrator.report.commands import lint

        if fmt not in FORMATS:
            raise typer.BadParameter(f"choose one of {', '.join(FORMATS)}", param_hint="--format")
        try:
            code = lint(list(paths or []), fmt=fmt, output=output, exit_zero=exit_zero, select=select,
                        ignore=ignore, exclude=exclude, target_version=target_version, jobs=jobs,
                        parse_all=parse_all)
        except ConfigError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        raise typer.Exit(code)

    @app.command("rules")
    def rules_command() -> None:
        """Table of rule codes."""
        from migrator.report.commands import rules_table

        typer.echo(rules_table(), nl=False)

    @app.command("explain")
    def explain_command(code: str = typer.Argument(..., help="A rule code, e.g. DFM101")) -> None:
        """What a rule catches, why, and how to fix it."""
        from migrator.report.commands import explain

        try:
            typer.echo(explain(code), nl=False)
        except KeyError as exc:
            typer.echo(f"error: {exc.args[0]}", err=True)
            raise typer.Exit(2) from None
