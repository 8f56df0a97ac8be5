"""``dflash-migrate doctor``: what the installed sglang does with DFLASH and the legacy
environment variable (the report itself: :mod:`shims.doctor`)."""

from __future__ import annotations

from migrator.cli.commands.common import UsageError
from migrator.cli.commands.params import Command, Param


def run(as_json: bool = False) -> int:
    """Print the report; exit 2 with what happened and how to repair it where another
    distribution's ``shims`` (or ``migrator``) was installed over this one's."""
    import json

    try:
        from shims.doctor import doctor_report, render_doctor
    except Exception as error:  # noqa: BLE001 - whatever a foreign package raises
        from migrator.cli.isolate import ownership

        message = ownership().diagnose(error)
        if message is None:
            raise
        raise UsageError(message) from None

    report = doctor_report()
    print(json.dumps(report, indent=2) if as_json else render_doctor(report))
    return 0


COMMAND = Command("doctor", run, (Param("as_json", ("--json",), "flag", None, "Print the report as JSON."),),
                  "Installed sglang, V1/V2 presence, SGLANG_ENABLE_SPEC_V2 meaning, shim state, effective overlap.")
