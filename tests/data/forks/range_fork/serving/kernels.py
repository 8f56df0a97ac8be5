from sglang.srt.speculative.dflash_utils import compute_dflash_correct_drafts_and_bonus


def accept(*args, **kwargs):
    return compute_dflash_correct_drafts_and_bonus(*args, **kwargs)
