"""``dflash-migrate doctor``: what the installed sglang does with DFLASH and the legacy
environment variable (the report itself: :mod:`shims.doctor`)."""

from __future__ import annotations

from migrator.cli.commands.params import Command, Param


def run(as_json: bool = False) -> int:
    import json

    from shims.doctor import doctor_report, render_doctor

    report = doctor_report()
    print(json.dumps(report, indent=2) if as_json else render_doctor(report))
    return 0


COMMAND = Command("doctor", run, (Param("as_json", ("--json",), "flag", None, "Print the report as JSON."),),
                  "Installed sglang, V1/V2 presence, SGLANG_ENABLE_SPEC_V2 meaning, shim state, effective overlap.")
