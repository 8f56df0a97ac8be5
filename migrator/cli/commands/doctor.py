"""``dflash-migrate doctor``: what the installed sglang does with DFLASH and the legacy
environment variable (the report itself: :mod:`shims.doctor`)."""

from __future__ import annotations

from migrator.cli.commands.params import Command, Param

COMMAND = Command("doctor", "migrator.cli.runs.doctor:run", (Param("as_json", ("--json",), "flag", None, "Print the report as JSON."),),
                  "Installed sglang, V1/V2 presence, SGLANG_ENABLE_SPEC_V2 meaning, shim state, effective overlap.")
