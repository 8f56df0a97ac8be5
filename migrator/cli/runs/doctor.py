"""What ``dflash-migrate doctor`` runs (declared in :mod:`migrator.cli.commands.doctor`): the
report of :mod:`shims.doctor`, or what went wrong where another distribution's ``shims`` (or
``migrator``) was installed over this one's."""

from __future__ import annotations

import json

from migrator.cli import UsageError
from migrator.cli.isolate import ownership


def run(as_json: bool = False) -> int:
    """Print the report; exit 2 with what happened and how to repair it where another
    distribution's ``shims`` (or ``migrator``) was installed over this one's."""
    try:
        from shims.doctor import doctor_report, render_doctor
    except Exception as error:  # noqa: BLE001 - whatever a foreign package raises
        message = ownership().diagnose(error)
        if message is None:
            raise
        raise UsageError(message) from None

    report = doctor_report()
    print(json.dumps(report, indent=2) if as_json else render_doctor(report))
    return 0
