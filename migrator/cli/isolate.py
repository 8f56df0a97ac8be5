"""Keep the scanned repository out of ``sys.path``.

``python -m migrator`` puts the current folder first on
``sys.path``. Run from inside the repository being migrated, that folder's own
``typer.py``, ``libcst/``, ``ast.py``... would be imported -- executed -- instead of the
real ones. Scanned code is never imported, so the entry points drop that entry first.
"""

from __future__ import annotations

import os
import sys


def drop_current_folder_from_path() -> None:
    if sys.path and not sys.flags.safe_path and os.path.realpath(sys.path[0] or os.curdir) == os.path.realpath(os.curdir):
        del sys.path[0]
