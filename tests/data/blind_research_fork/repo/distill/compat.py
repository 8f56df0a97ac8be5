"""Version and mode detection for the serving side.

sglang 0.5.11 shipped DFLASH with ``verified_id``; 0.5.12 renamed it to
``bonus_tokens``. We pin 0.5.13 but keep the checks so old images still boot.
"""
from __future__ import annotations

import os
from importlib.metadata import version as _dist_version

from sglang.srt.environ import envs
from sglang.srt.server_args import ServerArgs
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
from sglang.srt.utils import get_bool_env_var

SGLANG_VERSION = _dist_version("sglang")

# Our own rollout switch for the v2 tokenizer cache, nothing to do with sglang.
KESTREL_ENABLE_SPEC_V2 = os.environ.get("KESTREL_ENABLE_SPEC_V2", "0") == "1"


def spec_v2_enabled() -> bool:
    """True when sglang would pick the overlap (v2) speculative worker."""
    return envs.SGLANG_ENABLE_SPEC_V2.get()


def spec_v2_from_environ() -> bool:
    raw = os.environ.get("SGLANG_ENABLE_SPEC_V2", "true")
    return raw.lower() in ("1", "true", "yes", "y")


def spec_v2_via_helper() -> bool:
    return get_bool_env_var("SGLANG_ENABLE_SPEC_V2", "true")


def force_v1_for_capture() -> None:
    """The capture worker only exists for V1, so pin the env before ServerArgs parses."""
    os.environ["SGLANG_ENABLE_SPEC_V2"] = "0"
    envs.SGLANG_ENABLE_SPEC_V2.set(False)


def uses_overlap(server_args: ServerArgs) -> bool:
    algo = SpeculativeAlgorithm.from_string(server_args.speculative_algorithm)
    if algo.is_dflash():
        # DFLASH never overlaps in 0.5.1x: it always runs the V1 worker.
        return False
    return algo.supports_spec_v2() and not server_args.disable_overlap_schedule


def draft_tokens_attr() -> str:
    major, minor, patch = (int(x) for x in SGLANG_VERSION.split(".")[:3])
    return "verified_id" if (major, minor, patch) < (0, 5, 12) else "bonus_tokens"


def window_size(server_args: ServerArgs):
    return server_args.speculative_draft_window_size
