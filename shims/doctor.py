"""``dflash-migrate doctor``: what the installed sglang does with DFLASH and the legacy env var.

Reads the installed release from its metadata and the presence of the V1/V2 modules
from the file system (``importlib.util.find_spec`` on the top-level package only), so
it never imports sglang or torch and works on a machine without a GPU.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Any

from migrator import catalog
from shims import _switches, status
from shims.server_args import decide

PTH_FILE = "dflash_migrate_shim.pth"


def _module_file_exists(root: Path, dotted: str) -> bool:
    parts = dotted.split(".")[1:]
    return (root.joinpath(*parts[:-1]) / f"{parts[-1]}.py").exists()


def _sglang_root() -> Path | None:
    spec = importlib.util.find_spec("sglang")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def _hook_file() -> Path | None:
    """The installed ``.pth`` hook in one of this interpreter's site folders, if any."""
    import site
    import sys

    folders = [*site.getsitepackages(), site.getusersitepackages(), *sys.path]
    for folder in folders:
        candidate = Path(folder) / PTH_FILE
        if candidate.is_file():
            return candidate
    return None


def _removed_names_mode(env: dict[str, str]) -> str:
    if _switches.switched_on(_switches.ENV_DEFER_REMOVED, env):
        return (f"removed names without a replacement import as stand-ins that raise when called "
                f"({_switches.ENV_DEFER_REMOVED}=1)")
    return f"removed names without a replacement fail on import (default; {_switches.ENV_DEFER_REMOVED}=1 defers)"


def doctor_report(environ: dict[str, str] | None = None) -> dict[str, Any]:
    """A JSON-able report; ``environ`` defaults to ``os.environ``."""
    env = dict(os.environ if environ is None else environ)
    shim = status()
    version = shim.sglang_version
    root = _sglang_root()
    base = None
    if version:
        try:
            base = ".".join(str(p) for p in catalog.parse_version(version)[:3])
        except ValueError:
            base = None
    has_v1 = bool(root and _module_file_exists(root, catalog.DFLASH_WORKER))
    has_v2 = bool(root and _module_file_exists(root, catalog.DFLASH_WORKER_V2))
    env_value = env.get(catalog.ENV_SPEC_V2)
    shim_env = _switches.switched_on(_switches.ENV_ACTIVATE, env)
    hook = _hook_file()
    package = Path(__file__).resolve().parent
    shim_acts = (shim.active or shim_env) and not has_v1
    if has_v1:
        effective = True
        why = f"sglang {version} runs the V1 DFlashWorker and forces {catalog.DISABLE_OVERLAP_ARG}=True"
    else:
        decision = decide(env_value, "DFLASH", current=False, explicit=False, release=version)
        effective = decision.set_disable_overlap if shim_acts else False
        if decision.set_disable_overlap and not shim_acts:
            why = (f"{catalog.ENV_SPEC_V2}={env_value} is ignored by sglang {version} and the shim is not active: "
                   f"overlap scheduling is ON; pass {catalog.DISABLE_OVERLAP_FLAG} or set {_switches.ENV_ACTIVATE}=1")
        elif effective:
            why = f"the shim maps {catalog.ENV_SPEC_V2}={env_value} to {catalog.DISABLE_OVERLAP_ARG}=True"
        else:
            why = f"default: the V2 worker with overlap scheduling (pass {catalog.DISABLE_OVERLAP_FLAG} to disable)"
    return {
        "sglang_version": version,
        "sglang_path": str(root) if root else None,
        "has_v1_worker": has_v1,
        "has_v2_worker": has_v2,
        "env_spec_v2": {
            "name": catalog.ENV_SPEC_V2,
            "value": env_value,
            "parsed": catalog.sglang_bool(env_value) if env_value is not None else None,
            "meaning_in_release": catalog.env_meaning(base) if base else None,
        },
        "shim": {
            "package": str(package),
            "pth_hook": str(hook) if hook else None,
            "active_in_this_process": shim.active,
            "reason": shim.reason,
            "opted_in_by_env": shim_env,
            "strict": _switches.switched_on(_switches.ENV_STRICT, env),
            "silent": _switches.switched_on(_switches.ENV_SILENT, env),
            "removed_names": _removed_names_mode(env),
        },
        "dflash_launch": {catalog.DISABLE_OVERLAP_ARG: effective, "why": why},
    }


def render_doctor(report: dict[str, Any]) -> str:
    """Plain text for a terminal."""
    env = report["env_spec_v2"]
    shim = report["shim"]
    launch = report["dflash_launch"]
    if report["sglang_version"] or report["sglang_path"]:
        sglang = f"sglang: {report['sglang_version'] or 'unknown version'}" + (
            f" ({report['sglang_path']})" if report["sglang_path"] else "")
    else:
        sglang = (f"sglang: not installed in this environment: the shim has nothing to act on "
                  f"(install sglang {catalog.FIRST_V2_RELEASE}+)")
    hook = (f".pth hook {shim['pth_hook']}" if shim["pth_hook"]
            else f".pth hook not found in this interpreter's site folders ({_switches.ENV_ACTIVATE} cannot act)")
    lines = [
        sglang,
        f"  V1 worker ({catalog.DFLASH_WORKER}): {'present' if report['has_v1_worker'] else 'absent'}",
        f"  V2 worker ({catalog.DFLASH_WORKER_V2}): {'present' if report['has_v2_worker'] else 'absent'}",
        f"{env['name']}: {env['value'] if env['value'] is not None else '(unset)'}",
        f"  in this release: {env['meaning_in_release'] or 'unknown release'}",
        f"shim: installed ({shim['package']}); {hook}",
        f"  {_switches.ENV_ACTIVATE} {'on: new Python processes install the shim' if shim['opted_in_by_env'] else 'not on: new Python processes run without the shim'}"
        + ("; strict" if shim["strict"] else "") + ("; silent" if shim["silent"] else ""),
        f"  this process: {'active' if shim['active_in_this_process'] else 'not active'} ({shim['reason']})",
        f"  {shim['removed_names']}",
        f"DFLASH launch: {catalog.DISABLE_OVERLAP_ARG}={launch[catalog.DISABLE_OVERLAP_ARG]} ({launch['why']})",
    ]
    return "\n".join(lines)


if __name__ == "__main__":  # `python -m shims.doctor`: the report where only the shim is installed (--no-deps)
    import json
    import sys

    report = doctor_report()
    print(json.dumps(report, indent=2) if "--json" in sys.argv[1:] else render_doctor(report))
