"""The ``dflash-migrate`` console script: runs the installed ``migrator``, never a
same-named package that ``PYTHONPATH`` puts first (a scanned repository with its own
``migrator/`` and ``PYTHONPATH=.`` would otherwise run its code when the tool starts).

In an installed wheel this module sits next to the ``migrator`` package, and that one is
imported. Otherwise (an editable install, whose ``.pth`` puts the source tree on the path)
``migrator`` is looked up on ``sys.path`` without the entries that ``PYTHONPATH`` and the
current folder added. Either way the package is bound before anything else can import a
``migrator``; its own modules are then found through the package. The package names are
fixed by the project's requirements: only how the tool finds itself changes.
"""

from __future__ import annotations

import os
import sys


def _own_migrator() -> None:
    import importlib.machinery
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    if os.path.isfile(os.path.join(here, "migrator", "__init__.py")):
        search = [here]
    else:
        untrusted = {os.path.abspath(p or os.curdir) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)}
        untrusted.add(os.getcwd())
        search = [p for p in sys.path if p and os.path.abspath(p) not in untrusted]
    spec = importlib.machinery.PathFinder.find_spec("migrator", search)
    if spec is None or spec.loader is None:
        return  # not found there: the plain import below is all there is
    loaded = sys.modules.get("migrator")
    if loaded is not None and getattr(loaded, "__file__", None) == spec.origin:
        return
    for name in [n for n in sys.modules if n == "migrator" or n.startswith("migrator.")]:
        del sys.modules[name]  # a foreign package of that name, imported before this ran
    module = importlib.util.module_from_spec(spec)
    sys.modules["migrator"] = module
    spec.loader.exec_module(module)


def main() -> int:
    _own_migrator()
    from migrator.cli.main import main as run

    code = run()
    _exit_now(code)
    return code  # where the standard streams could not be flushed: the usual exit reports it


def _exit_now(code: int) -> None:
    """End the process as ``sys.exit(code)`` would, less the interpreter's teardown: freeing
    every module and object of a run costs ~10 ms on this project's 2-core machines (5% of
    a lint of sglang's tree, BENCHMARKS.md) and does nothing a user sees (mypy ends the same
    way). What ``sys.exit`` does that matters is kept, in its order: the standard streams
    are flushed, then the ``atexit`` handlers run (temporary folders' finalizers among them)."""
    import atexit

    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed pipe: left to the usual exit and its message
        return
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)


if __name__ == "__main__":
    sys.exit(main())
