"""Scoring helper: its name changed in sglang 0.5.12 and it moves to the kernels package in
0.5.23; the fallback keeps the package importable on both spellings the team knew."""

try:
    from sglang.srt.speculative.dflash_utils import compute_dflash_correct_drafts_and_bonus as score
except ImportError:
    from sglang.srt.speculative.dflash_utils import compute_dflash_accept_len_and_bonus as score

__all__ = ["score"]
