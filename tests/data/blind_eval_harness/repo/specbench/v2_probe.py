"""Probe for the overlap-scheduled DFLASH worker (sglang >= 0.5.14 branch).

Kept separate from worker_probe so the nightly job can exercise the new
worker while the main harness still pins 0.5.13. Imports are lazy because
these modules only exist in newer sglang wheels.
"""

from __future__ import annotations

from typing import Any, Optional


def find_v2_worker(scheduler: Any) -> Optional[Any]:
    from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2

    worker = getattr(scheduler, "draft_worker", None)
    return worker if isinstance(worker, DFlashWorkerV2) else None


def idle_draft_input(device):
    from sglang.srt.speculative.dflash_info_v2 import DFlashDraftInputV2

    return DFlashDraftInputV2.create_idle_input(device)


def build_verify_batch(worker, verify_input, batch):
    """V2 contract: the caller sets out_cache_loc, we get a ForwardBatch back."""
    forward_batch, can_run_cuda_graph = verify_input.prepare_for_verify(
        batch, worker.target_worker
    )
    return forward_batch, can_run_cuda_graph


def accepted_per_request(result) -> list:
    # V2 returns accept_lens (accepted drafts + bonus) instead of num_correct_drafts
    return result.accept_lens.tolist()


def synchronous_mode(server_args) -> bool:
    return bool(server_args.disable_overlap_schedule)
