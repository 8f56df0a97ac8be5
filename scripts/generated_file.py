"""What the scripts that write a generated module of the package share
(``scripts/name_table.py``, ``scripts/surface_index.py``): write it, or with ``--check``
say that the committed file differs and how to refresh it.

Imported as a sibling module: ``python scripts/X.py`` puts this folder first on
``sys.path``; the tests that load a script by its path (``importlib``) get it from pytest's
``pythonpath`` (``pyproject.toml``).
"""

from __future__ import annotations

import sys
from pathlib import Path


def write_or_check(target: Path, text: str, argv: list[str], script: str) -> int:
    """Write ``text`` to ``target`` (0), or with ``--check`` in ``argv`` compare: 0 when equal,
    else 1 with a line naming ``script``, the command that writes it."""
    if "--check" in argv:
        if target.read_text() != text:
            print(f"{target} is out of date: run python {script}", file=sys.stderr)
            return 1
        return 0
    target.write_text(text)
    return 0
