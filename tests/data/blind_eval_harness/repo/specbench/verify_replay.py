"""Step-by-step replay of a DFLASH decode step with a recorded draft block.

`specbench replay --trace trace.pt` re-runs the target verify for a recorded
draft block and compares the accepted prefix with what the live server did.
It drives the worker's private stages one by one so each can be timed.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Dict, Iterator

from sglang.srt.speculative import dflash_worker
from sglang.srt.speculative.dflash_info import DFlashVerifyInput

TIMINGS: Dict[str, float] = {}


@contextmanager
def timed(stage: str) -> Iterator[None]:
    start = time.perf_counter()
    try:
        yield
    finally:
        TIMINGS[stage] = TIMINGS.get(stage, 0.0) + time.perf_counter() - start


def replay_step(worker: "dflash_worker.DFlashWorker", batch, logits_output):
    """Run prepare -> verify -> append for one batch; returns accepted lengths."""
    draft_input = batch.spec_info
    with timed("prepare"):
        worker._prepare_for_speculative_decoding(batch, draft_input)
    verify_input: DFlashVerifyInput = batch.spec_info
    with timed("verify"):
        new_bonus, commit_lens, _, accepted = verify_input.verify(
            batch=batch, logits_output=logits_output, page_size=worker.page_size
        )
    with timed("append_kv"):
        worker._append_target_hidden_to_draft_kv(batch, draft_input)
    return new_bonus, commit_lens, accepted


def prepare_verify_only(verify_input: DFlashVerifyInput, batch, page_size: int) -> None:
    """Allocate verify KV for a recorded block without running the target."""
    verify_input.prepare_for_verify(batch, page_size, build_custom_mask=False)


def tokens_per_request(verify_input: DFlashVerifyInput) -> int:
    return verify_input.num_tokens_per_batch


def make_verify_input(draft_tokens, positions, block_size: int) -> DFlashVerifyInput:
    return DFlashVerifyInput(
        draft_token=draft_tokens,
        positions=positions,
        draft_token_num=block_size,
    )


def verify_signature_ok(token: str, secret: str) -> bool:
    """Traces uploaded from CI are HMAC-signed; check before loading."""
    import hashlib
    import hmac

    expected = hmac.new(secret.encode(), b"specbench-trace", hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, token)
