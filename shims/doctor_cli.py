"""Registers ``dflash-migrate doctor`` on the CLI's typer app (``migrator.cli`` looks this module up)."""

from __future__ import annotations

import json


def register(app) -> None:  # noqa: ANN001 - typer.Typer, imported lazily by migrator.cli
    import typer

    @app.command("doctor")
    def doctor_command(
        as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
    ) -> None:
        """Installed sglang, V1/V2 presence, SGLANG_ENABLE_SPEC_V2 meaning, shim state, effective overlap."""
        from shims.doctor import doctor_report, render_doctor

        report = doctor_report()
        typer.echo(json.dumps(report, indent=2) if as_json else render_doctor(report))
