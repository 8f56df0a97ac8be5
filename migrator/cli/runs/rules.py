"""What ``dflash-migrate rules`` runs: a table of rule codes."""

from __future__ import annotations

import sys

from migrator import catalog


def rules_table() -> str:
    """One line per rule code."""
    rows = [("CODE", "FIX", "REMOVED", "MESSAGE")]
    rows += [(e.code, e.fix, str(e.exists), e.message) for e in catalog.ENTRIES]
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    return "".join(f"{r[0]:<{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:<{widths[2]}}  {r[3]}\n" for r in rows)


def run() -> int:
    sys.stdout.write(rules_table())
    return 0
