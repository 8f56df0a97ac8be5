"""``dflash-migrate verify``: registered into the typer app by ``migrator.cli``.

The body lives in :mod:`migrator.verify.command` (also runnable as ``python -m migrator.verify``).
"""

from __future__ import annotations



def register(app: "typer.Typer") -> None:  # noqa: F821 - typer imported lazily
    import typer

    from migrator.verify.command import DEFAULT_FROM_VERSION, run_verify

    @app.command("verify")
    def verify_command(
        paths: list[str] = typer.Argument(None, help="Files or folders (default: .)."),
        sglang: str | None = typer.Option(None, "--sglang", metavar="DIR", help="A folder holding the sglang package."),
        target_version: str | None = typer.Option(None, "--target-version", metavar="X.Y.Z",
                                                     help="A released sglang wheel from PyPI (downloaded once, cached)."),
        from_version: str = typer.Option(DEFAULT_FROM_VERSION, "--from-version",
                                         help="Release the fork was written against, to recognise overrides ('none': catalog only)."),
        fmt: str = typer.Option("text", "--format", help="text, json, sarif, github or junit."),
        skip_todos: bool = typer.Option(False, "--skip-todos", help="Do not report lines under a TODO(dflash-migrate) comment."),
    ) -> None:
        """Check statically that every sglang.* reference exists in the target sglang (DFM900 unresolved,
        DFM901 override of a method the base class no longer has). Default target: the installed sglang."""
        output, code = run_verify(
            paths or ["."], sglang=sglang, target_version=target_version,
            from_version=None if from_version.lower() == "none" else from_version, fmt=fmt, skip_todos=skip_todos,
        )
        typer.echo(output.rstrip("\n"))
        raise typer.Exit(code)
