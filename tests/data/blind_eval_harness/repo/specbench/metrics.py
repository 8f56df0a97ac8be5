"""Rolling speculative-decoding metrics computed from sglang's meta_info."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any, Deque, Dict


@dataclass
class SpecMetrics:
    window: int = 1000
    accept_lens: Deque[float] = field(default_factory=lambda: deque(maxlen=1000))

    def observe(self, meta_info: Dict[str, Any]) -> None:
        # sglang reports spec_verify_ct and completion_tokens per request
        verify_ct = meta_info.get("spec_verify_ct") or 0
        completion = meta_info.get("completion_tokens") or 0
        if verify_ct:
            self.accept_lens.append(completion / verify_ct)

    def summary(self) -> Dict[str, float]:
        if not self.accept_lens:
            return {"mean_accept_len": 0.0, "samples": 0}
        return {
            "mean_accept_len": sum(self.accept_lens) / len(self.accept_lens),
            "samples": float(len(self.accept_lens)),
        }


def verify(meta_info: Dict[str, Any]) -> bool:
    """Sanity check that a response carries speculative stats at all."""
    return "spec_verify_ct" in meta_info
