"""A typed wrapper around the draft input."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .compat import DFlashDraftInput


@dataclass
class DraftBatch:
    inner: "DFlashDraftInput"
    size: int = 0

    def lens(self):
        return self.inner.ctx_lens
