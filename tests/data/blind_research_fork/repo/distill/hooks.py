"""Runtime monkeypatches applied by ``kestrel-serve`` before the scheduler starts.

These exist because upstream had no hook for "give me the accepted draft length
per request" and no way to override the mask token from a draft checkpoint that
predates ``dflash_config.mask_token_id``.
"""
from __future__ import annotations

import functools
import logging

import torch

import sglang.srt.speculative.dflash_worker as dflash_worker_mod
from sglang.srt.speculative import dflash_info
from sglang.srt.speculative.dflash_info import DFlashVerifyInput
from sglang.srt.speculative.dflash_utils import compute_dflash_correct_drafts_and_bonus

logger = logging.getLogger(__name__)

_ORIG = {}
ACCEPT_HISTOGRAM = torch.zeros(17, dtype=torch.long)


def _count_accepts(fn):
    @functools.wraps(fn)
    def wrapper(self, *, batch, logits_output, page_size):
        new_verified, commit_lens, next_target_hidden, accepted = fn(
            self, batch=batch, logits_output=logits_output, page_size=page_size
        )
        for n in accepted:
            ACCEPT_HISTOGRAM[min(int(n), 16)] += 1
        return new_verified, commit_lens, next_target_hidden, accepted

    return wrapper


def _force_mask_token(orig):
    @functools.wraps(orig)
    def wrapper(self, *, mask_token, mask_token_id=None):
        if mask_token_id is None and mask_token == "<|MASK|>":
            mask_token_id = 151669  # kdraft-v2 checkpoints reserve this id
        return orig(self, mask_token=mask_token, mask_token_id=mask_token_id)

    return wrapper


def install() -> None:
    """Patch the DFLASH V1 worker and verify input in place (idempotent)."""
    if _ORIG:
        return
    _ORIG["verify"] = DFlashVerifyInput.verify
    DFlashVerifyInput.verify = _count_accepts(DFlashVerifyInput.verify)

    worker_cls = dflash_worker_mod.DFlashWorker
    _ORIG["mask"] = worker_cls._resolve_mask_token_id
    worker_cls._resolve_mask_token_id = _force_mask_token(worker_cls._resolve_mask_token_id)

    _ORIG["prepare"] = worker_cls._prepare_for_speculative_decoding
    setattr(worker_cls, "_prepare_for_speculative_decoding", _traced(worker_cls._prepare_for_speculative_decoding))

    _ORIG["keep"] = dflash_info._compute_paged_keep_slots
    dflash_info._compute_paged_keep_slots = _logged_keep_slots
    logger.info("kestrel hooks installed on %s", worker_cls.__qualname__)


def _traced(fn):
    @functools.wraps(fn)
    def wrapper(self, batch, draft_input):
        torch.cuda.nvtx.range_push("dflash.prepare")
        try:
            return fn(self, batch, draft_input)
        finally:
            torch.cuda.nvtx.range_pop()

    return wrapper


def _logged_keep_slots(*, prefix_lens, commit_lens, draft_token_num, page_size):
    out = _ORIG["keep"](prefix_lens=prefix_lens, commit_lens=commit_lens, draft_token_num=draft_token_num, page_size=page_size)
    logger.debug("keep slots: %s", out.shape)
    return out


def accept_stats(candidates, target_predict):
    """Offline re-computation of accept lengths from dumped verify logits."""
    return compute_dflash_correct_drafts_and_bonus(candidates=candidates, target_predict=target_predict)
