"""``python -m shims.launch_server <sglang args>``: SGLang's own launcher with the shim active.

The shim is installed first, so ``prepare_server_args`` builds the server arguments
through the hooked ``ServerArgs`` (``SGLANG_ENABLE_SPEC_V2`` falsy ->
``disable_overlap_schedule=True``), then ``sglang.launch_server`` runs as ``__main__``
exactly as ``python -m sglang.launch_server`` would. ``DFLASH_MIGRATE_SHIM=1`` is
exported so SGLang's spawned scheduler processes install the shim too (through the
package's ``.pth`` hook). Without sglang it exits with one line saying so.
"""

from __future__ import annotations

import importlib.util
import os
import runpy
import sys

try:
    from migrator import catalog
    from shims import ENV_ACTIVATE, install
except Exception as error:  # another distribution's `migrator` or `shims` over ours?
    from shims._owner import diagnose

    message = diagnose(error)
    if message is None:
        raise
    raise SystemExit(f"dflash-migrate: {message}") from None


def main(argv: list[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    if importlib.util.find_spec(catalog.LAUNCH_SERVER_MODULE.partition(".")[0]) is None:
        raise SystemExit(f"dflash-migrate: sglang is not installed in this environment ({sys.executable}); "
                         f"`python -m shims.launch_server` runs sglang's own launcher: install sglang "
                         f"{catalog.FIRST_V2_RELEASE}+ first (pip install 'sglang>={catalog.FIRST_V2_RELEASE}')")
    os.environ.setdefault(ENV_ACTIVATE, "1")
    install()
    sys.argv = [catalog.LAUNCH_SERVER_MODULE, *args]
    runpy.run_module(catalog.LAUNCH_SERVER_MODULE, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
