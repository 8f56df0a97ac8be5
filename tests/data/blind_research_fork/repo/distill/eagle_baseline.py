"""EAGLE-3 and n-gram baselines we compare every draft against.

Nothing here touches DFLASH; it is kept next to the DFLASH code so the
benchmark scripts can swap algorithms by name.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Sequence

from sglang.srt.speculative.eagle_info import EagleDraftInput, EagleVerifyInput
from sglang.srt.speculative.ngram_info import NgramVerifyInput
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

BASELINE_ALGOS = {
    "eagle3": SpeculativeAlgorithm.EAGLE3,
    "ngram": SpeculativeAlgorithm.NGRAM,
    "dflash": SpeculativeAlgorithm.DFLASH,
}


def describe_spec_info(spec_info) -> str:
    if isinstance(spec_info, EagleDraftInput):
        return f"eagle draft, topk={spec_info.topk_p.shape[-1]}"
    if isinstance(spec_info, EagleVerifyInput):
        return f"eagle verify, {spec_info.draft_token_num} tokens"
    if isinstance(spec_info, NgramVerifyInput):
        return f"ngram verify, {spec_info.draft_token_num} tokens"
    return type(spec_info).__name__


@dataclass
class NgramTable:
    """Tiny offline n-gram proposer used to sanity-check acceptance numbers."""

    n: int = 3
    table: Dict[tuple, int] = None

    def __post_init__(self):
        self.table = {}

    def fit(self, tokens: Sequence[int]) -> None:
        for i in range(len(tokens) - self.n):
            self.table[tuple(tokens[i : i + self.n])] = tokens[i + self.n]

    def propose(self, prefix: Sequence[int], k: int) -> List[int]:
        out, ctx = [], list(prefix[-self.n :])
        for _ in range(k):
            nxt = self.table.get(tuple(ctx))
            if nxt is None:
                break
            out.append(nxt)
            ctx = ctx[1:] + [nxt]
        return out

    def verify(self, proposal: List[int], truth: List[int]) -> int:
        n = 0
        for a, b in zip(proposal, truth):
            if a != b:
                break
            n += 1
        return n


def eagle_filter(spec_info: EagleDraftInput, keep) -> None:
    spec_info.filter_batch(keep)
