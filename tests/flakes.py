"""pyflakes as the oracle of every fix: what a migrated file must not gain."""

from __future__ import annotations

import ast
from collections import Counter

from pyflakes import checker, messages

ORACLE = (messages.UndefinedName, messages.UndefinedExport, messages.UnusedImport, messages.ImportStarUsage,
          messages.UndefinedLocal)


def flakes(source: str, path: str = "module.py") -> Counter:
    """(kind, name) of each undefined name, undefined export, unused import of ``source``."""
    tree = ast.parse(source, filename=path)
    found = checker.Checker(tree, filename=path, withDoctest=False).messages
    return Counter((type(m).__name__, str(m.message_args[0])) for m in found if isinstance(m, ORACLE))


def new_flakes(before: str, after: str, path: str = "module.py") -> list[tuple[str, str]]:
    """What pyflakes reports on ``after`` that it did not on ``before`` (a rename may swap
    one unused import for another of the same count, not add one)."""
    old, new = flakes(before, path), flakes(after, path)
    added = sorted((new - old).elements())
    undefined = [item for item in added if item[0] != "UnusedImport"]
    unused_growth = sum(n for (kind, _), n in new.items() if kind == "UnusedImport") - sum(
        n for (kind, _), n in old.items() if kind == "UnusedImport")
    return undefined + ([item for item in added if item[0] == "UnusedImport"] if unused_growth > 0 else [])
