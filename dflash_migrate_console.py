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


def _search() -> list[str]:
    """Where the installed ``migrator`` is looked up: beside this module, else ``sys.path``
    less what ``PYTHONPATH`` and the current folder added."""
    here = os.path.dirname(os.path.abspath(__file__))
    if os.path.isfile(os.path.join(here, "migrator", "__init__.py")):
        return [here]
    untrusted = {os.path.abspath(p or os.curdir) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)}
    untrusted.add(os.getcwd())
    return [p for p in sys.path if p and os.path.abspath(p) not in untrusted]


def _own_migrator() -> None:
    import importlib.machinery
    import importlib.util

    spec = importlib.machinery.PathFinder.find_spec("migrator", _search())
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
    import gc

    collecting = gc.isenabled()
    gc.disable()  # imports make no garbage cycles; ``migrator.cli.main.main`` says the rest
    try:
        _own_migrator()
        import migrator

        if getattr(migrator, "__dflash_migrate__", False) is not True:
            raise LookupError("no dflash-migrate marker")
        from migrator.cli.main import main as run
    except Exception as error:  # noqa: BLE001 - SyntaxError of a Python 2 `migrator` included
        print(f"dflash-migrate: error: {_replaced(None if isinstance(error, LookupError) else error)}", file=sys.stderr)
        return 2
    finally:
        if collecting:
            gc.enable()

    code = run(exiting=True)
    _exit_now(code)
    return code  # where the standard streams could not be flushed: the usual exit reports it


def _replaced(error: BaseException | None) -> str:
    """Why the ``migrator`` package is not this tool's and how to repair it, from the
    ownership check the shim's hook carries (``shims/_pth.py``, installed beside this
    module as ``dflash_migrate_shim_hook.py``), loaded by path: the package that would
    hold it may be the broken one. Runs only once the tool cannot start."""
    import importlib.machinery
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.machinery.PathFinder.find_spec("migrator", _search())
    folder = os.path.dirname(spec.origin) if spec is not None and spec.origin else None
    for checker in (os.path.join(here, "dflash_migrate_shim_hook.py"), os.path.join(here, "shims", "_pth.py")):
        if os.path.isfile(checker):
            loader = importlib.util.spec_from_file_location("dflash_migrate_ownership", checker)
            if loader is not None and loader.loader is not None:
                module = importlib.util.module_from_spec(loader)
                loader.loader.exec_module(module)
                return module.replaced("migrator", folder, error)
    return (f"the `migrator` package at {folder} could not be imported ({type(error).__name__}: {error}); "
            "repair: pip install --force-reinstall --no-deps dflash-migrate")


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
