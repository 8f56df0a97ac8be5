"""The ownership check of ``shims/_pth.py`` for the shim's own modules, loaded by path.

The wheel ships ``shims/_pth.py`` only as the top-level ``dflash_migrate_shim_hook.py``
(beside the packages); a source tree or an editable install has it here. ``import
shims._pth`` would not find the first, and importing the hook by its own name would run it.
"""

from __future__ import annotations

import os


def diagnose(error: BaseException | None = None) -> str | None:
    """``shims/_pth.py``'s :func:`diagnose`: what another distribution's same-named package did."""
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    for path in (os.path.join(here, "_pth.py"), os.path.join(os.path.dirname(here), "dflash_migrate_shim_hook.py")):
        spec = importlib.util.spec_from_file_location("dflash_migrate_ownership", path) if os.path.isfile(path) else None
        if spec is not None and spec.loader is not None:
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return module.diagnose(error)
    return None
