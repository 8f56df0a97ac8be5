"""Runs inside a per-release sglang environment (see ``tests/conftest.py``) and prints one JSON line.

It exercises the shim against the *real* sglang modules of one release on a CPU-only
machine. Two GPU-only pieces are bypassed, both outside SGLang's own code:

- ``torchvision``, ``torchaudio``, ``sgl_kernel`` and ``flashinfer.comm`` are replaced by
  inert stand-in modules (``--stub``): sglang 0.5.13-0.5.19 import ``torchvision.io.decode_jpeg``
  at module level in ``srt/utils/common.py`` and transformers imports more of it, but the
  PyPI torchvision wheel cannot load beside the CPU torch build, ``sgl_kernel``'s ``.so``
  needs libtorch_cuda, and the flashinfer of 0.5.14-0.5.16 loads libcudart when
  ``flashinfer.comm`` is imported (``layers/flashinfer_comm_fusion.py``, on the V2 worker's
  import path). No shim check calls into them.
- ``--fake-cuda`` makes ``torch.cuda.is_available()`` True (plus device properties),
  because the DFLASH argument handler rejects non-CUDA devices (``_handle_dflash``:
  "DFLASH speculative decoding only supports CUDA and NPU devices", 0.5.16+) and the
  ``is_cuda()`` import branches must be taken to import the V2 worker. The same trick as
  ``../shared/gpu/cpu/probe_imports.py``.

Usage: python shim_sglang_probe.py [--fake-cuda] [--stub a,b] COMMAND [JSON]
"""

from __future__ import annotations

import argparse
import importlib.abc
import importlib.machinery
import json
import sys
import types
import warnings
from typing import Any


class _Inert(type):
    """A class whose attributes are more inert classes (decorators pass through)."""

    def __getattr__(cls, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _Inert(name, (), {"__module__": "stand-in"})

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]
        return _Inert(cls.__name__ + "()", (), {"__module__": "stand-in"})

    def __getitem__(cls, item: Any) -> Any:
        return cls

    def __or__(cls, other: Any) -> Any:
        return cls

    __ror__ = __or__

    def __iter__(cls) -> Any:
        return iter(())

    def __bool__(cls) -> bool:
        return False


class _StandInModule(types.ModuleType):
    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _Inert(name, (), {"__module__": self.__name__})


class _StandInFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, tops: set[str]) -> None:
        self.tops = tops

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if any(name == top or name.startswith(top + ".") for top in self.tops):
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec: Any) -> types.ModuleType:
        module = _StandInModule(spec.name)
        module.__path__ = []
        module.__version__ = "0.26.0"  # transformers parses it; the device has torchvision 0.26.0
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        pass


_SGL_KERNEL_OPS: list = []


def _sgl_kernel_ops() -> None:
    """Schemas of the ops the real ``sgl_kernel`` library registers, for the one that sglang
    0.5.14 gives a fake (meta) implementation at import time (``layers/moe/topk.py``,
    ``torch.library.register_fake("sgl_kernel::moe_fused_gate")``); the stand-in
    ``sgl_kernel`` registers none. Nothing here runs the op."""
    import torch

    library = torch.library.Library("sgl_kernel", "FRAGMENT")
    library.define("moe_fused_gate(Tensor input_tensor, Tensor bias, int num_expert_group, int topk_group, "
                   "int topk, int num_fused_shared_experts=0, float routed_scaling_factor=0, "
                   "bool apply_routed_scaling_factor_on_output=False) -> Tensor[]")
    _SGL_KERNEL_OPS.append(library)  # the registration lives as long as the library object


def _fake_cuda() -> None:
    import torch

    class _Props:
        total_memory = 141 * 2**30
        major, minor = 9, 0
        name = "NVIDIA H200"
        multi_processor_count = 132

    torch.cuda.is_available = lambda: True
    torch.version.cuda = "13.0"
    torch.cuda.device_count = lambda: 1
    torch.cuda.get_device_capability = lambda *a, **k: (9, 0)
    torch.cuda.get_device_name = lambda *a, **k: "NVIDIA H200"
    torch.cuda.current_device = lambda: 0
    torch.cuda.get_device_properties = lambda *a, **k: _Props()
    torch.cuda.mem_get_info = lambda *a, **k: (140 * 2**30, 141 * 2**30)


def _warnings(caught: list[warnings.WarningMessage]) -> list[dict[str, str]]:
    return [{"category": w.category.__name__, "message": str(w.message)} for w in caught]


def cmd_aliases(payload: dict[str, Any]) -> dict[str, Any]:
    """Import old names through the shim and compare with the real V2 objects."""
    import importlib

    import shims
    from migrator import catalog

    result: dict[str, Any] = {"status": shims.install().reason}
    worker_mod, worker_cls = catalog.V1_WORKER_CLASS.rpartition(".")[::2]
    v2_mod, v2_cls = catalog.V2_WORKER_CLASS.rpartition(".")[::2]
    info_mod, draft_cls = catalog.V1_DRAFT_INPUT.rpartition(".")[::2]
    v2_info_mod, v2_draft_cls = catalog.V2_DRAFT_INPUT.rpartition(".")[::2]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old_worker_module = importlib.import_module(worker_mod)
        old = getattr(old_worker_module, worker_cls)
        again = getattr(old_worker_module, worker_cls)
        info = importlib.import_module(info_mod)
        old_draft = getattr(info, draft_cls)
    real_v2 = getattr(importlib.import_module(v2_mod), v2_cls) if payload.get("v2", True) else None
    real_draft = getattr(importlib.import_module(v2_info_mod), v2_draft_cls) if payload.get("v2", True) else None
    result.update(
        worker_module_file=getattr(old_worker_module, "__file__", None),
        worker_is_v2=old is real_v2,
        worker_again_same=again is old,
        worker_qualname=f"{old.__module__}.{old.__qualname__}",
        draft_is_v2=old_draft is real_draft,
        draft_qualname=f"{old_draft.__module__}.{old_draft.__qualname__}",
        warnings=[w for w in _warnings(caught) if w["category"] == "DFlashMigrationWarning"],
    )
    errors: dict[str, Any] = {}
    removed_fn = catalog.get("DFM104").old.rpartition(".")[2]
    try:
        exec(f"from {info_mod} import {removed_fn}", {})
        errors["DFM104"] = None
    except Exception as exc:  # noqa: BLE001
        errors["DFM104"] = {"type": type(exc).__name__, "message": str(exc), "shim": isinstance(exc, shims.ShimRemovedAPIError)}
    verify_cls = getattr(info, catalog.VERIFY_INPUT.rpartition(".")[2])
    member = catalog.get("DFM105").member
    errors["DFM105_hasattr"] = hasattr(verify_cls, member)
    try:
        getattr(verify_cls, member)
        errors["DFM105"] = None
    except Exception as exc:  # noqa: BLE001
        errors["DFM105"] = {"type": type(exc).__name__, "message": str(exc), "shim": isinstance(exc, shims.ShimRemovedAPIError)}
    prepare = getattr(verify_cls, catalog.get("DFM110").member)
    try:
        prepare(object.__new__(verify_cls), object(), 16)
        errors["DFM110"] = None
    except Exception as exc:  # noqa: BLE001
        errors["DFM110"] = {"type": type(exc).__name__, "message": str(exc), "shim": isinstance(exc, shims.ShimRemovedAPIError)}
    try:  # the V2 form must reach SGLang's own code (which then fails on the fake batch)
        prepare(object.__new__(verify_cls), object(), object())
        errors["DFM110_v2_form"] = None
    except Exception as exc:  # noqa: BLE001
        errors["DFM110_v2_form"] = {"type": type(exc).__name__, "shim": isinstance(exc, shims.ShimRemovedAPIError)}
    result["errors"] = errors
    shims.uninstall()
    result["after_uninstall_has_module"] = worker_mod in sys.modules
    result["after_uninstall_verify_member"] = member in verify_cls.__dict__
    return result


def _resolved(server_args: Any, field: str) -> Any:
    """The value SGLang's own resolution settled on (0.5.20+ keeps it in a view)."""
    try:
        from sglang.srt.arg_groups.overrides import resolving_view
    except ImportError:
        return getattr(server_args, field)
    try:
        return getattr(resolving_view(server_args), field)
    except Exception:  # noqa: BLE001 - older view API
        return getattr(server_args, field)


def cmd_server_args(payload: dict[str, Any]) -> dict[str, Any]:
    """Build ServerArgs the way an entry point does and report disable_overlap_schedule."""
    import shims

    if payload.get("install", True):
        shims.install()
    from sglang.srt import server_args as sa_module

    result: dict[str, Any] = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            if "argv" in payload:
                record = sa_module.prepare_server_args(payload["argv"])
            else:
                record = sa_module.ServerArgs(**payload["kwargs"])
            result["raw_after_init"] = record.disable_overlap_schedule
            if hasattr(record, "resolve_once"):
                record.resolve_once()
            result["value"] = record.disable_overlap_schedule
            result["resolved"] = _resolved(record, "disable_overlap_schedule")
            result["algorithm"] = str(_resolved(record, "speculative_algorithm"))
        except Exception as exc:  # noqa: BLE001
            result["error"] = {"type": type(exc).__name__, "message": str(exc)[:2000]}
    result["warnings"] = [w for w in _warnings(caught) if w["category"] == "DFlashMigrationWarning"]
    return result


class _Launched(Exception):
    """Raised in place of ``Engine._launch_subprocesses``: the record is complete by then."""

    def __init__(self, server_args: Any) -> None:
        self.server_args = server_args


def _engine_server_args(kwargs: dict[str, Any]) -> Any:
    """Run the real ``Engine(**kwargs)`` up to the point where it launches the scheduler."""
    import atexit

    from sglang.srt.entrypoints.engine import Engine

    def stop(self: Any, server_args: Any, *args: Any, **kw: Any) -> Any:
        raise _Launched(server_args)

    original, register = Engine.__dict__["_launch_subprocesses"], atexit.register
    Engine._launch_subprocesses = stop  # type: ignore[method-assign]
    atexit.register = lambda *a, **k: None  # type: ignore[assignment] - nothing was launched to shut down
    try:
        Engine(**kwargs)
    except _Launched as launched:
        return launched.server_args
    finally:
        Engine._launch_subprocesses = original  # type: ignore[method-assign]
        atexit.register = register  # type: ignore[assignment]
    raise RuntimeError("Engine(...) returned without launching")


def cmd_server_args_matrix(payload: dict[str, Any]) -> dict[str, Any]:
    """Every case of ``payload["cases"]`` (name, env, kwargs | argv | engine) in one process:
    build the record the way that entry point does, resolve it, report the field."""
    import os

    import shims
    from migrator import catalog
    from shims import _switches

    status = shims.install().reason
    from sglang.srt import server_args as sa_module

    results: dict[str, Any] = {"status": status}
    for case in payload["cases"]:
        _switches.reset_emitted()
        os.environ.pop(catalog.ENV_SPEC_V2, None)
        os.environ.update(case.get("env", {}))
        result: dict[str, Any] = {}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                if "argv" in case:
                    record = sa_module.prepare_server_args(case["argv"])
                elif "engine" in case:
                    record = _engine_server_args(case["engine"])
                else:
                    record = sa_module.ServerArgs(**case["kwargs"])
                if hasattr(record, "resolve_once"):
                    record.resolve_once()
                result["value"] = record.disable_overlap_schedule
                result["resolved"] = _resolved(record, "disable_overlap_schedule")
            except Exception as exc:  # noqa: BLE001
                result["error"] = {"type": type(exc).__name__, "message": str(exc)[:2000]}
        result["warnings"] = [w for w in _warnings(caught) if w["category"] == "DFlashMigrationWarning"]
        results[case["name"]] = result
    return results


def cmd_v1(payload: dict[str, Any]) -> dict[str, Any]:
    """On a V1 release: the shim stays out of the way (no finder, real modules, no warnings)."""
    import importlib
    import importlib.util

    import shims
    from migrator import catalog

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        state = shims.install()
        spec = importlib.util.find_spec(catalog.DFLASH_WORKER)
        info_mod, draft_cls = catalog.V1_DRAFT_INPUT.rpartition(".")[::2]
        info = importlib.import_module(info_mod)
        draft = getattr(info, draft_cls)
    return {
        "status": state.reason,
        "active": state.active,
        "finders": [type(f).__name__ for f in sys.meta_path],
        "worker_origin": spec.origin if spec else None,
        "draft_module": draft.__module__,
        "info_getattr_patched": "__getattr__" in info.__dict__,
        "warnings": [w for w in _warnings(caught) if w["category"] == "DFlashMigrationWarning"],
    }


def cmd_strict_prepare(payload: dict[str, Any]) -> dict[str, Any]:
    """With DFLASH_MIGRATE_SHIM_STRICT=1 (set by the caller) the V1 call form of
    ``prepare_for_verify`` is rejected; SGLang's own V2 form still reaches SGLang's code."""
    import importlib

    import shims
    from migrator import catalog

    shims.install()
    verify_module, verify_name = catalog.VERIFY_INPUT.rpartition(".")[::2]
    verify_cls = getattr(importlib.import_module(verify_module), verify_name)
    prepare = getattr(verify_cls, catalog.get("DFM110").member)
    result: dict[str, Any] = {"wrapped": bool(getattr(prepare, "__dflash_migrate_shim__", False))}
    for key, args in (("v1_form", (object(), 16)), ("v2_form", (object(), object()))):
        try:
            prepare(object.__new__(verify_cls), *args)
            result[key] = None
        except Exception as exc:  # noqa: BLE001
            result[key] = {"type": type(exc).__name__, "shim": isinstance(exc, shims.ShimRemovedAPIError)}
    shims.uninstall()
    return result


def _import_fork(root: str, package: str, call_kv: bool) -> dict[str, Any]:
    import importlib
    import os

    import shims

    for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
        del sys.modules[name]
    modules = sorted(name[:-3] for name in os.listdir(os.path.join(root, package))
                     if name.endswith(".py") and name != "__init__.py")
    imported: dict[str, Any] = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for name in ["", *modules]:
            qualified = f"{package}.{name}" if name else package
            try:
                importlib.import_module(qualified)
                imported[qualified] = None
            except Exception as exc:  # noqa: BLE001
                imported[qualified] = {"type": type(exc).__name__, "message": str(exc),
                                       "shim": isinstance(exc, shims.ShimRemovedAPIError)}
    result: dict[str, Any] = {"imports": imported}
    result["warnings"] = [{**w, "file": str(c.filename), "line": c.lineno}
                          for w, c in zip(_warnings(caught), caught) if w["category"] == "DFlashMigrationWarning"]
    from migrator import catalog

    v2_module, v2_name = catalog.V2_WORKER_CLASS.rpartition(".")[::2]
    v2 = getattr(importlib.import_module(v2_module), v2_name)
    registry = sys.modules.get(f"{package}.registry")
    if registry is not None:
        result["registry"] = {name: {"class": f"{cls.__module__}.{cls.__qualname__}",
                                     "subclass_of_v2": issubclass(cls, v2), "is_v2": cls is v2}
                              for name, cls in registry.WORKERS.items()}
    compat = sys.modules.get(f"{package}.compat")
    if compat is not None:
        draft_module, draft_name = catalog.V2_DRAFT_INPUT.rpartition(".")[::2]
        draft = getattr(importlib.import_module(draft_module), draft_name)
        result["compat_draft_input_is_v2"] = any(value is draft for value in vars(compat).values())
    kv = sys.modules.get(f"{package}.kv")
    if kv is not None and call_kv:
        class _DraftInput:
            draft_seq_lens = ctx_lens = None
            draft_token_num = 8

        try:
            kv.keep_slots(_DraftInput(), 1)
            result["kv_call"] = None
        except Exception as exc:  # noqa: BLE001
            result["kv_call"] = {"type": type(exc).__name__, "message": str(exc),
                                 "shim": isinstance(exc, shims.ShimRemovedAPIError)}
    return result


def cmd_fork(payload: dict[str, Any]) -> dict[str, Any]:
    """Import a whole fork package (``payload["root"]`` on sys.path, ``payload["package"]``)
    module by module, once per mode in ``payload["modes"]`` (``default``: as it is;
    ``defer``: with DFLASH_MIGRATE_SHIM_DEFER_REMOVED=1; ``no-shim``: the shim never
    installed), and report what imported, what the registry resolves to, every shim warning
    and (``defer``, ``no-shim``) what a call of ``kv.keep_slots`` raises."""
    import os

    import shims
    from shims import _switches

    sys.path.insert(0, payload["root"])
    modes = payload.get("modes", ["default"])
    result: dict[str, Any] = {}
    if "no-shim" not in modes:
        result["status"] = shims.install().reason
    for mode in modes:
        _switches.reset_emitted()
        if mode == "defer":
            os.environ[_switches.ENV_DEFER_REMOVED] = "1"
        else:
            os.environ.pop(_switches.ENV_DEFER_REMOVED, None)
        result[mode] = _import_fork(payload["root"], payload["package"], call_kv=mode in ("defer", "no-shim"))
    return result


COMMANDS = {"server-args-matrix": cmd_server_args_matrix, "fork": cmd_fork, "aliases": cmd_aliases, "server-args": cmd_server_args, "v1": cmd_v1, "strict-prepare": cmd_strict_prepare}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fake-cuda", action="store_true")
    parser.add_argument("--stub", default="torchvision,torchaudio,sgl_kernel,flashinfer.comm")
    parser.add_argument("command", choices=sorted(COMMANDS))
    parser.add_argument("payload", nargs="?", default="{}")
    args = parser.parse_args()
    tops = {name for name in args.stub.split(",") if name}
    if tops:
        sys.meta_path.insert(0, _StandInFinder(tops))
    if args.fake_cuda:
        _fake_cuda()
        if "sgl_kernel" in tops:
            _sgl_kernel_ops()
    result = COMMANDS[args.command](json.loads(args.payload))
    print("SHIM-PROBE " + json.dumps(result, default=repr))


if __name__ == "__main__":
    main()
