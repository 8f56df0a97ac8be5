"""Must not be flagged: V2 names, the fork's own look-alikes, a third-party dflash_worker."""

from dataclasses import dataclass

from sglang.srt.speculative.dflash_info_v2 import DFlashDraftInputV2
from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2
from thirdparty.dflash_worker import DFlashWorker as ThirdPartyWorker


class MyDFlashWorkerStats:
    ctx_lens = 0

    def verify(self):
        return self.ctx_lens


@dataclass
class Info:
    draft_seq_lens: list


def use(info: Info, draft: DFlashDraftInputV2, worker: DFlashWorkerV2):
    return info.draft_seq_lens, draft.draft_seq_lens, worker, ThirdPartyWorker
