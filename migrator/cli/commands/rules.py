"""``dflash-migrate rules`` (a table of rule codes) and ``dflash-migrate explain CODE``
(what they run: :mod:`migrator.cli.runs.rules`, :mod:`migrator.cli.runs.explain`)."""

from __future__ import annotations

from migrator.cli.commands.params import Command, Param

RULES = Command("rules", "migrator.cli.runs.rules:run", (), "Table of rule codes.")
EXPLAIN = Command("explain", "migrator.cli.runs.explain:run", (Param("code", (), "argument", "CODE", "A rule code, e.g. DFM101."),),
                  "What a rule catches, why, and how to fix it.")
