"""The ``DFLASH_MIGRATE_SHIM`` start-up hook, run by the ``dflash_migrate_shim.pth`` line.

The wheel installs this file beside the ``.pth`` file as ``dflash_migrate_shim_hook.py``
(a source tree and an editable install keep it as ``shims/_pth.py``), which the ``.pth`` line executes *by path* only when the
variable is one of the documented "on" values (``1/true/yes/y``, any case, spaces
ignored). Any other value, ``0`` included, costs one ``os.environ`` lookup and no import.

Why by path: a ``.pth`` line runs before the script, with ``PYTHONPATH`` already on
``sys.path``. ``import shims`` there would run whatever ``shims/`` (or ``migrator/``)
package a project has on its path, in every Python process. The hook instead loads the
installed ``migrator`` and ``shims`` packages from the folder it was installed into (for
``pip install -e .``: the source folder named in the distribution's PEP 610
``direct_url.json``) and says so in one line when a same-named package elsewhere on
``sys.path`` is shadowed in this process.

The same file (``shims/_pth.py``, or the hook beside the ``.pth``) also says what happened
when another distribution installed its own ``migrator`` or ``shims`` over this one's
(``pip install shims`` overwrites ``shims/__init__.py`` without a warning, and ``pip check``
cannot tell): :func:`replaced` names the distribution and the repair, for the console
script, ``doctor``, ``import shims.auto``, ``python -m shims.launch_server`` and the hook.
Each package's ``__init__.py`` carries :data:`MARKER`; a package without it is not ours.

SGLang starts its scheduler and detokenizer in spawned subprocesses that import user code
too; they inherit the variable and get the shim before anything imports sglang. A failure
here never breaks interpreter start-up: it is reported in one line and swallowed.
"""

from __future__ import annotations

import os
import sys

HOOK_NAME = "dflash_migrate_shim_hook"
ENV_ACTIVATE = "DFLASH_MIGRATE_SHIM"
ON_VALUES = ("1", "true", "yes", "y")  # SGLang's truthy spellings (migrator.catalog.sglang_bool)
DIST_PREFIX = "dflash_migrate-"
PACKAGES = ("migrator", "shims")
#: Set to True in each package's ``__init__.py``: a same-named package without it is another's.
MARKER = "__dflash_migrate__"
DISTRIBUTION = "dflash-migrate"
#: A ``sys.modules`` key the hook sets once it has said that the packages are not ours.
SAID = "dflash_migrate_shim_hook.foreign_said"


def switched_on(environ: "os._Environ[str] | dict[str, str]" = os.environ) -> bool:
    return environ.get(ENV_ACTIVATE, "").strip().lower() in ON_VALUES


def _editable_root(sitedir: str) -> str | None:
    """The source folder of an editable install, from our own dist-info's ``direct_url.json``."""
    import json
    from urllib.parse import unquote, urlparse

    try:
        names = sorted(n for n in os.listdir(sitedir) if n.startswith(DIST_PREFIX) and n.endswith(".dist-info"))
    except OSError:
        return None
    for name in names:
        try:
            with open(os.path.join(sitedir, name, "direct_url.json"), encoding="utf-8") as handle:
                record = json.load(handle)
        except (OSError, ValueError):
            continue
        url = urlparse(str(record.get("url", "")))
        if url.scheme == "file" and record.get("dir_info", {}).get("editable"):
            return unquote(url.path)
    return None


def package_root(sitedir: str) -> str | None:
    """The folder holding the installed ``migrator/`` and ``shims/`` packages."""
    if all(os.path.isfile(os.path.join(sitedir, name, "__init__.py")) for name in PACKAGES):
        return sitedir
    root = _editable_root(sitedir)
    if root and all(os.path.isfile(os.path.join(root, name, "__init__.py")) for name in PACKAGES):
        return root
    return None


def is_ours(module: object) -> bool:
    """Whether an imported ``migrator``/``shims`` module is this distribution's."""
    return getattr(module, MARKER, False) is True


def _init_is_ours(folder: str) -> bool:
    """Whether ``folder/__init__.py`` is this distribution's (read, not run)."""
    try:
        with open(os.path.join(folder, "__init__.py"), "rb") as handle:
            return f"\n{MARKER} = True\n".encode() in handle.read()
    except OSError:
        return False


def _canonical(name: str) -> str:
    import re

    return re.sub(r"[-_.]+", "-", name).lower()


def foreign_owners(name: str, site: str) -> list[tuple[str, str]]:
    """(name, version) of each distribution other than dflash-migrate installed in ``site``
    whose RECORD lists a file of the package ``name`` (it wrote over ours). Reads every
    distribution's RECORD: called only once something is known to be wrong."""
    from importlib import metadata

    owners = []
    for dist in metadata.distributions(path=[site]):
        dist_name = dist.metadata["Name"] or "?"
        if _canonical(dist_name) == DISTRIBUTION:
            continue
        if any(str(file).replace("\\", "/").split("/")[0] == name for file in dist.files or ()):
            owners.append((dist_name, dist.version))
    return sorted(set(owners))


def replaced(name: str, folder: str | None = None, error: BaseException | None = None) -> str:
    """What to tell the user when the ``name`` package found (in ``folder``; None: looked up
    on ``sys.path``) is not dflash-migrate's, or could not be imported (``error``)."""
    if folder is None:
        from importlib.machinery import PathFinder

        spec = PathFinder.find_spec(name, sys.path)
        folder = os.path.dirname(spec.origin) if spec is not None and spec.origin else None
    if folder is None:
        return (f"the `{name}` package of dflash-migrate is missing; repair: "
                f"pip install --force-reinstall --no-deps {DISTRIBUTION}")
    owners = foreign_owners(name, os.path.dirname(folder))
    raised = f" (importing it raised {type(error).__name__}: {error})" if error is not None else ""
    if not owners:
        return (f"the `{name}` package at {folder} is not dflash-migrate's{raised}; a file of it was replaced; "
                f"repair: pip install --force-reinstall --no-deps {DISTRIBUTION}")
    names = " ".join(owner for owner, _ in owners)
    installed = ", ".join(f"`{owner} {version}`" for owner, version in owners)
    return (f"the `{name}` package at {folder} is not dflash-migrate's{raised}: the distribution {installed} "
            f"installed its own `{name}` package over it (pip does not warn, and `pip check` cannot tell); "
            f"repair: pip uninstall {names} && pip install --force-reinstall --no-deps {DISTRIBUTION}")


def diagnose(error: BaseException | None = None) -> str | None:
    """:func:`replaced` for the first of ``migrator``/``shims`` on ``sys.path`` that is not
    this distribution's; None where both are (``error`` then has another cause)."""
    from importlib.machinery import PathFinder

    for name in PACKAGES:
        spec = PathFinder.find_spec(name, sys.path)
        folder = os.path.dirname(spec.origin) if spec is not None and spec.origin else None
        if folder is None or not _init_is_ours(folder):
            return replaced(name, folder, error)
    return None


def _same_folder(path: str | None, folder: str) -> bool:
    return bool(path) and os.path.realpath(os.path.dirname(path)) == os.path.realpath(folder)  # type: ignore[arg-type]


def _load_package(name: str, root: str) -> None:
    """Put the package ``root/name`` into ``sys.modules`` (its submodules follow its ``__path__``)."""
    import importlib.util

    folder = os.path.join(root, name)
    present = sys.modules.get(name)
    if present is not None:
        if _same_folder(getattr(present, "__file__", None), folder):
            return
        raise ImportError(f"another `{name}` package is already imported from {getattr(present, '__file__', '?')}")
    spec = importlib.util.spec_from_file_location(name, os.path.join(folder, "__init__.py"),
                                                  submodule_search_locations=[folder])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise


def _shadowed(root: str) -> list[str]:
    """Same-named packages elsewhere on ``sys.path`` that this process will not see."""
    from importlib.machinery import PathFinder

    found = []
    for name in PACKAGES:
        spec = PathFinder.find_spec(name, sys.path)
        origin = spec.origin if spec is not None else None
        if origin and not _same_folder(origin, os.path.join(root, name)):
            found.append(f"`{name}` at {os.path.dirname(origin)}")
    return found


def _say(message: str) -> None:
    if os.environ.get("DFLASH_MIGRATE_SHIM_SILENT", "").strip().lower() in ON_VALUES and \
            os.environ.get("DFLASH_MIGRATE_SHIM_STRICT", "").strip().lower() not in ON_VALUES:
        return
    print(f"dflash-migrate shim: {message}", file=sys.stderr)


def activate(sitedir: str) -> bool:
    """Install the installed shim in this process; True when it is active afterwards."""
    if not switched_on():
        return False
    try:
        root = package_root(sitedir)
        if root is None:
            _say(f"{ENV_ACTIVATE} is set but the dflash-migrate packages were not found beside {sitedir}; "
                 "the shim is off (reinstall dflash-migrate)")
            return False
        foreign = [name for name in PACKAGES if not _init_is_ours(os.path.join(root, name))]
        if foreign:
            # said once per process: a site folder can be reached twice (a lib64 -> lib link)
            if SAID not in sys.modules:
                sys.modules[SAID] = os  # any module object: a mark that outlives this run of the hook
                _say(f"{replaced(foreign[0], os.path.join(root, foreign[0]))}; the shim is off")
            return False
        present = sys.modules.get("shims")
        if present is not None and _same_folder(getattr(present, "__file__", None), os.path.join(root, "shims")):
            return present.is_active()  # the same site folder reached twice (a lib64 -> lib link)
        shadowed = _shadowed(root)
        for name in PACKAGES:
            _load_package(name, root)
        if shadowed:
            _say(f"using the installed packages from {root}; {' and '.join(shadowed)} on sys.path "
                 f"cannot be imported in this process while {ENV_ACTIVATE} is on")
        return sys.modules["shims"].install().active
    except Exception as exc:  # noqa: BLE001 - start-up must go on
        _say(f"could not install from {ENV_ACTIVATE}: {type(exc).__name__}: {exc}; the shim is off")
        return False


if __name__ == HOOK_NAME:
    activate(os.path.dirname(os.path.abspath(__file__)))
