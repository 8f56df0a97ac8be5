"""Keep the scanned repository out of ``sys.path``.

``python -m migrator`` puts the current folder first on
``sys.path``. Run from inside the repository being migrated, that folder's own
``typer.py``, ``libcst/``, ``ast.py``... would be imported -- executed -- instead of the
real ones. Scanned code is never imported, so the entry points drop that entry first.
"""

from __future__ import annotations

import importlib.util
import os
import sys


def drop_current_folder_from_path() -> None:
    if sys.path and not sys.flags.safe_path and os.path.realpath(sys.path[0] or os.curdir) == os.path.realpath(os.curdir):
        del sys.path[0]


def ownership():  # noqa: ANN201 - the module shims/_pth.py
    """The ownership check of ``shims/_pth.py`` (installed beside the packages as
    ``dflash_migrate_shim_hook.py`` too), loaded by path: ``import shims._pth`` would run
    ``shims/__init__.py``, which may be another distribution's."""
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for path in (os.path.join(top, "dflash_migrate_shim_hook.py"), os.path.join(top, "shims", "_pth.py")):
        spec = importlib.util.spec_from_file_location("dflash_migrate_ownership", path) if os.path.isfile(path) else None
        if spec is not None and spec.loader is not None:
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return module
    raise ImportError(f"dflash-migrate's shims/_pth.py is missing beside {top}; "
                      "repair: pip install --force-reinstall --no-deps dflash-migrate")
