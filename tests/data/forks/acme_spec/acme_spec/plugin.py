"""The SGLang plugin entry point (``sglang.srt.plugins`` group, declared in pyproject.toml).

SGLang loads plugins in the engine process and again in each scheduler process, before it
builds the worker. ``register_with_sglang`` only registers a hook; the workers are imported
when SGLang asks for one, so a process that never builds a worker never imports them.
Whenever a launch asks for ``--speculative-algorithm DFLASH``, SGLang builds the worker named
by ``ACME_DFLASH_WORKER`` (default ``metrics``).
"""

from __future__ import annotations

import os


def register_with_sglang() -> None:
    from sglang.srt.plugins.hook_registry import HookRegistry, HookType

    def create_worker(original, algorithm, server_args):
        if algorithm.is_dflash():
            from .registry import resolve

            return resolve(os.environ.get("ACME_DFLASH_WORKER", "metrics"))
        return original(algorithm, server_args)

    HookRegistry.register(
        "sglang.srt.speculative.spec_info.SpeculativeAlgorithm.create_worker", create_worker, HookType.AROUND
    )
