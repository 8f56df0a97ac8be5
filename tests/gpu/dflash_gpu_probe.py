"""Probe that runs INSIDE sglang's scheduler subprocess, loaded through sglang's own plugin API.

sglang 0.5.17 calls ``sglang.srt.plugins.load_plugins()`` at the top of
``run_scheduler_process`` (and in the Engine's main process); it runs every function
registered under the entry-point group ``sglang.srt.plugins``. The GPU tests put a
throw-away ``*.dist-info`` with such an entry point (``write_entry_point``) on
``PYTHONPATH`` of the process under test, so the probe arrives the way any installed
plugin would, and nothing in sglang or in the process under test is edited.

With ``DFLASH_GPU_PROBE_DIR`` set, ``register()``:

* registers an AFTER hook on ``Scheduler.init_model_worker`` that writes
  ``<dir>/init-<pid>.json``: the draft worker's class (module, qualname, MRO), whether it
  is sglang's real ``DFlashWorkerV2``, ``scheduler.enable_overlap``,
  ``server_args.disable_overlap_schedule``, the event loop that will run, the
  environment (``SGLANG_ENABLE_SPEC_V2``, ``DFLASH_MIGRATE_SHIM``) and whether the shim is
  loaded in this process;
* with ``DFLASH_GPU_PROBE_MONITOR=1``, counts every Python function start in code under
  the ``shims`` package (and in the legacy-fork example) with PEP 669 ``sys.monitoring``
  (3.12+): a ``PY_START`` callback that returns ``DISABLE`` for every other code object,
  so after the first call of each function only shim code is instrumented at all.
  Calls are split into "before the first forward step" and "during serving", and
  ``Scheduler.run_batch`` starts are counted as forward steps and
  ``DFlashWorkerV2.forward_batch_generation`` starts as a positive control (the same
  mechanism does see code that runs once per step);
* registers an AFTER hook on ``Scheduler.flush_cache`` (the test calls
  ``engine.flush_cache()`` when it is done) that rewrites ``<dir>/final-<pid>.json`` with
  the same facts plus the counters.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time

ENTRY_POINT_GROUP = "sglang.srt.plugins"
PROBE_NAME = "dflash_gpu_probe"

_state: dict = {
    "scheduler": None,
    "steps": 0,  # Scheduler.run_batch starts (one per forward step)
    "calls_before_first_step": {},
    "calls_during_serving": {},
    "monitor": None,
    "control_calls": 0,
}
_lock = threading.Lock()


def write_entry_point(site_dir: str, name: str, target: str, dist: str) -> str:
    """Create ``<site_dir>/<dist>-0.dist-info`` declaring ``name = target`` in the sglang
    plugin group; ``site_dir`` must be on the process's ``sys.path``."""
    info = os.path.join(site_dir, f"{dist}-0.dist-info")
    os.makedirs(info, exist_ok=True)
    with open(os.path.join(info, "METADATA"), "w") as f:
        f.write(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0\n")
    with open(os.path.join(info, "entry_points.txt"), "w") as f:
        f.write(f"[{ENTRY_POINT_GROUP}]\n{name} = {target}\n")
    open(os.path.join(info, "RECORD"), "w").close()
    return info


def _cls_name(obj) -> str | None:
    if obj is None:
        return None
    cls = obj if isinstance(obj, type) else type(obj)
    return f"{cls.__module__}.{cls.__qualname__}"


def _facts(scheduler) -> dict:
    facts: dict = {
        "pid": os.getpid(),
        "time": time.time(),
        "process": _process_name(),
        "env": {k: os.environ.get(k) for k in ("SGLANG_ENABLE_SPEC_V2", "DFLASH_MIGRATE_SHIM")},
        "shims_loaded": "shims" in sys.modules,
        "shim_modules": sorted(m for m in sys.modules if m == "shims" or m.startswith("shims.")),
        "legacy_dflash_worker_module": None,
    }
    legacy = sys.modules.get("sglang.srt.speculative.dflash_worker")
    if legacy is not None:
        alias = getattr(legacy, "DFlashWorker", None)
        facts["legacy_dflash_worker_module"] = {
            "module_file": getattr(legacy, "__file__", None),
            "DFlashWorker": _cls_name(alias),
        }
    if scheduler is None:
        return facts
    sa = scheduler.server_args
    # one scheduler process per tensor-parallel rank: each writes its own files (by pid)
    ps = getattr(scheduler, "ps", None)  # sglang 0.5.17's ParallelState
    facts["tp_rank"] = getattr(ps, "tp_rank", getattr(scheduler, "tp_rank", None))
    facts["tp_size"] = getattr(sa, "tp_size", None)
    facts["gpu_id"] = getattr(ps, "gpu_id", getattr(scheduler, "gpu_id", None))
    facts["enable_overlap"] = bool(scheduler.enable_overlap)
    facts["event_loop"] = "event_loop_overlap" if scheduler.enable_overlap else "event_loop_normal"
    facts["server_args"] = {
        "disable_overlap_schedule": bool(sa.disable_overlap_schedule),
        "speculative_algorithm": sa.speculative_algorithm,
        "speculative_num_draft_tokens": sa.speculative_num_draft_tokens,
        "attention_backend": sa.attention_backend,
    }
    facts["spec_algorithm"] = str(scheduler.spec_algorithm)
    dw = getattr(scheduler, "draft_worker", None)
    facts["draft_worker"] = _cls_name(dw)
    if dw is not None:
        facts["draft_worker_mro"] = [_cls_name(c) for c in type(dw).__mro__]
        try:
            from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2

            facts["is_DFlashWorkerV2"] = isinstance(dw, DFlashWorkerV2)
            facts["is_exactly_DFlashWorkerV2"] = type(dw) is DFlashWorkerV2
        except Exception as exc:  # pragma: no cover - recorded, not raised
            facts["is_DFlashWorkerV2"] = f"error: {exc!r}"
        for attr in ("block_size", "_mask_token_id"):
            try:
                facts[attr.lstrip("_")] = int(getattr(dw, attr))
            except Exception:
                pass
        if not type(dw).__module__.startswith("sglang."):  # a fork's own worker class
            import inspect

            try:
                path = inspect.getsourcefile(type(dw))
                with open(path) as f:
                    src = f.read()
                facts["draft_worker_source"] = {
                    "file": path,
                    "imports_v1_dflash_worker": "speculative.dflash_worker import" in src,
                    "imports_v2_dflash_worker": "speculative.dflash_worker_v2 import" in src,
                }
            except Exception as exc:  # pragma: no cover
                facts["draft_worker_source"] = {"error": repr(exc)}
            calls = getattr(type(dw), "forward_calls", None)
            facts["draft_worker_forward_calls"] = calls if isinstance(calls, int) else None
            # a fork's own class-level counters (e.g. acme_spec's draft_stage_calls of a dead override)
            facts["draft_worker_counters"] = {
                name: getattr(type(dw), name) for name in dir(type(dw))
                if name.endswith("_calls") and isinstance(getattr(type(dw), name, None), int)}
    facts["forward_ct"] = int(getattr(scheduler, "forward_ct", 0) or 0)
    return facts


def _process_name() -> str:
    try:
        import multiprocessing

        return multiprocessing.current_process().name
    except Exception:  # pragma: no cover
        return "?"


def _write(kind: str, payload: dict) -> None:
    out = os.environ.get("DFLASH_GPU_PROBE_DIR")
    if not out:
        return
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, f"{kind}-{os.getpid()}.json")
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(payload, f, indent=1, default=str)
    os.replace(tmp, path)


def _after_init_model_worker(result, *args, **kwargs):
    scheduler = args[0] if args else None
    _state["scheduler"] = scheduler
    _write("init", _facts(scheduler))
    return result


def _after_flush_cache(result, *args, **kwargs):
    scheduler = args[0] if args else _state["scheduler"]
    facts = _facts(scheduler)
    with _lock:
        facts["monitor"] = {
            "enabled": _state["monitor"] is not None,
            "watched_prefixes": (_state["monitor"] or {}).get("prefixes"),
            "run_batch_calls_seen": _state["steps"],
            "control_DFlashWorkerV2_forward_batch_generation_calls": _state["control_calls"],
            "shim_calls_before_first_step": dict(_state["calls_before_first_step"]),
            "shim_calls_during_serving": dict(_state["calls_during_serving"]),
        }
    _write("final", facts)
    return result


def _watched_prefixes() -> list[str]:
    """Folders whose code is counted: the ``shims`` package wherever it is imported from
    (working tree or an installed wheel) and any extra folders named in
    ``DFLASH_GPU_PROBE_WATCH`` (os.pathsep-separated)."""
    import importlib.util

    prefixes = []
    try:
        spec = importlib.util.find_spec("shims")
        for loc in (spec.submodule_search_locations or []) if spec else []:
            prefixes.append(os.path.realpath(loc) + os.sep)
    except Exception:
        pass
    for extra in filter(None, os.environ.get("DFLASH_GPU_PROBE_WATCH", "").split(os.pathsep)):
        prefixes.append(os.path.realpath(extra) + os.sep)
    return prefixes


def _start_monitor() -> None:
    mon = getattr(sys, "monitoring", None)
    if mon is None:  # Python < 3.12: recorded as disabled
        return
    prefixes = _watched_prefixes()
    try:
        import inspect

        from sglang.srt.managers.scheduler import Scheduler

        # unwrap: a shared decorator wrapper's code object would match every decorated method
        run_batch_code = inspect.unwrap(Scheduler.run_batch).__code__
    except Exception:
        run_batch_code = None
    try:  # positive control: the real worker's per-step entry point
        import inspect

        from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2

        control_code = inspect.unwrap(DFlashWorkerV2.forward_batch_generation).__code__
    except Exception:
        control_code = None
    tool = None
    for candidate in (4, 3, 5, 1):
        try:
            mon.use_tool_id(candidate, "dflash_gpu_probe")
            tool = candidate
            break
        except ValueError:
            continue
    if tool is None:
        return
    disable = mon.DISABLE
    real = {}

    def on_start(code, offset):
        if code is run_batch_code:
            _state["steps"] += 1
            return None
        fname = code.co_filename
        path = real.get(fname)
        if path is None:
            path = real[fname] = os.path.realpath(fname)
        for prefix in prefixes:
            if path.startswith(prefix):
                key = f"{os.path.relpath(path, os.path.dirname(prefix.rstrip(os.sep)))}:{code.co_qualname}"
                bucket = "calls_during_serving" if _state["steps"] else "calls_before_first_step"
                with _lock:
                    counts = _state[bucket]
                    counts[key] = counts.get(key, 0) + 1
                return None
        if code is control_code:
            _state["control_calls"] += 1
            return None
        return disable

    mon.register_callback(tool, mon.events.PY_START, on_start)
    mon.set_events(tool, mon.events.PY_START)
    _state["monitor"] = {"tool": tool, "prefixes": prefixes}


def register() -> None:
    """The ``sglang.srt.plugins`` entry point."""
    if not os.environ.get("DFLASH_GPU_PROBE_DIR"):
        return
    from sglang.srt.plugins.hook_registry import HookRegistry, HookType

    base = "sglang.srt.managers.scheduler.Scheduler."
    HookRegistry.register(base + "init_model_worker", _after_init_model_worker, HookType.AFTER)
    HookRegistry.register(base + "flush_cache", _after_flush_cache, HookType.AFTER)
    if (
        os.environ.get("DFLASH_GPU_PROBE_MONITOR") == "1"
        and _state["monitor"] is None
        and _process_name() != "MainProcess"  # the scheduler is a spawned child
    ):
        _start_monitor()
