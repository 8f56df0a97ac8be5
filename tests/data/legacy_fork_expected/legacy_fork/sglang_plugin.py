"""Runnable registration of the fork's worker with SGLang's real plugin API (sglang 0.5.13-0.5.17).

SGLang loads every function declared under the entry-point group ``sglang.srt.plugins``
(``sglang.srt.plugins.load_plugins``) in the engine process and again in each scheduler
subprocess, so a fork declares one of these in its packaging, e.g.::

    [project.entry-points."sglang.srt.plugins"]
    legacy_fork = "legacy_fork.sglang_plugin:register"

- ``register``: a new algorithm ``COUNTING_DFLASH`` through
  ``SpeculativeAlgorithm.register(name, supports_overlap=..., spec_class=...)``. Its
  ``spec_class`` answers every ``is_*``/``supports_*`` question like the built-in DFLASH
  (so SGLang's DFLASH set-up runs) and its factory returns ``CountingDFlashWorker``.
  Launch with ``speculative_algorithm="COUNTING_DFLASH"``.
- ``register_as_dflash``: keeps ``speculative_algorithm="DFLASH"`` and makes SGLang build
  ``CountingDFlashWorker`` instead of the stock worker, through SGLang's ``HookRegistry``.

The worker module is imported only when SGLang asks for the worker, after the runtime
shim (if any) is in place.
"""

from __future__ import annotations

import inspect

ALGORITHM = "COUNTING_DFLASH"


def _worker():
    from .workers.counting_worker import CountingDFlashWorker

    return CountingDFlashWorker


def _dflash_like_spec_class():
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
    from sglang.srt.speculative.spec_registry import CustomSpecAlgo

    dflash = SpeculativeAlgorithm.DFLASH
    own = {"__init__", "__repr__", "create_worker", "from_string", "register"}

    def delegate(name):
        def method(self, *args, **kwargs):
            return getattr(dflash, name)(*args, **kwargs)

        method.__name__ = name
        return method

    namespace = {
        name: delegate(name)
        for name, value in vars(SpeculativeAlgorithm).items()
        if inspect.isfunction(value) and not name.startswith("_") and name not in own
    }
    return type("DFlashLikeAlgo", (CustomSpecAlgo,), namespace)


def register() -> None:
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    @SpeculativeAlgorithm.register(ALGORITHM, supports_overlap=True, spec_class=_dflash_like_spec_class())
    def _factory(server_args):
        return _worker()


def register_as_dflash() -> None:
    from sglang.srt.plugins.hook_registry import HookRegistry, HookType

    def create_worker(original, algorithm, server_args):
        if algorithm.is_dflash():
            return _worker()
        return original(algorithm, server_args)

    HookRegistry.register(
        "sglang.srt.speculative.spec_info.SpeculativeAlgorithm.create_worker", create_worker, HookType.AROUND
    )
