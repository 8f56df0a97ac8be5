"""Build sglang ServerArgs for an eval run from a specbench profile."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from typing import Any, Dict, Optional

from sglang.srt.environ import envs
from sglang.srt.server_args import ServerArgs
from sglang.srt.speculative.dflash_utils import validate_dflash_request

logger = logging.getLogger(__name__)

DEFAULT_BLOCK_SIZE = 16


@dataclass
class SpecProfile:
    name: str
    target_model: str
    draft_model: Optional[str] = None
    algorithm: str = "DFLASH"
    block_size: int = DEFAULT_BLOCK_SIZE
    draft_window_size: Optional[int] = None
    tp_size: int = 1
    max_running_requests: Optional[int] = None
    overlap: bool = False


def build_server_args(profile: SpecProfile) -> ServerArgs:
    kwargs: Dict[str, Any] = dict(
        model_path=profile.target_model,
        tp_size=profile.tp_size,
        speculative_algorithm=profile.algorithm,
        speculative_draft_model_path=profile.draft_model,
        speculative_dflash_block_size=profile.block_size,
        speculative_num_draft_tokens=profile.block_size,
    )
    if profile.draft_window_size is not None:
        kwargs["speculative_draft_window_size"] = profile.draft_window_size
    if profile.max_running_requests is not None:
        kwargs["max_running_requests"] = profile.max_running_requests
    args = ServerArgs(**kwargs)
    if profile.algorithm.upper() == "DFLASH":
        # sglang always runs DFLASH without the overlap scheduler
        assert args.disable_overlap_schedule, "DFLASH must run with overlap off"
    return args


def spec_v2_from_env() -> bool:
    """What sglang will read for SGLANG_ENABLE_SPEC_V2 in this process."""
    return envs.SGLANG_ENABLE_SPEC_V2.get()


def force_spec_v1() -> None:
    """Pin the V1 worker for the whole process (used by the A/B runner)."""
    envs.SGLANG_ENABLE_SPEC_V2.set(False)
    os.environ["SGLANG_ENABLE_SPEC_V2"] = "0"


def describe(profile: SpecProfile) -> str:
    mode = "spec-v2" if spec_v2_from_env() else "spec-v1"
    return f"{profile.name}: {profile.algorithm} block={profile.block_size} ({mode})"


def reject_reason(req) -> Optional[str]:
    """Why sglang would reject this request under DFLASH, or None."""
    return validate_dflash_request(req)


def overlap_from_env(default: bool = False) -> bool:
    raw = os.environ.get("SPECBENCH_OVERLAP")
    if raw is None:
        return default
    return raw.lower() in {"1", "true", "yes"}
