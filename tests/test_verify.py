"""``verify`` against the real sglang 0.5.17 wheel (cached by migrator.releases.wheels).

Small V1-era and migrated forks are written to tmp dirs and checked: a V1 fork must
report what 0.5.17 lacks (with the catalog's replacement as the hint, and overrides of
removed worker methods), and the same fork written against V2 must come back clean.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from migrator.verify import Target, exit_code, target_for_version, verify_paths

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def target() -> Target:
    return target_for_version("0.5.17", baseline_version="0.5.13")


def fork(root: Path, text: str) -> Path:
    (root / "myfork").mkdir(parents=True)
    (root / "myfork" / "__init__.py").write_text("")
    (root / "myfork" / "worker.py").write_text(textwrap.dedent(text))
    return root


V1_FORK = """
    from sglang.srt.speculative.dflash_worker import DFlashWorker
    from sglang.srt.speculative.dflash_info import DFlashDraftInput, DFlashVerifyInput
    from sglang.srt.speculative.dflash_utils import compute_dflash_accept_len_and_bonus
    from sglang.srt.speculative import spec_info


    class MyWorker(DFlashWorker):
        def _prepare_for_speculative_decoding(self, batch, draft_input):
            return super()._prepare_for_speculative_decoding(batch, draft_input)


    def check(v: DFlashVerifyInput):
        v.verify(batch=None, logits_output=None, page_size=1)
        return spec_info.SpeculativeAlgorithm.DFLASH.supports_spec_v2()
"""

V2_FORK = """
    from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2
    from sglang.srt.speculative.dflash_info_v2 import DFlashDraftInputV2
    from sglang.srt.speculative.dflash_info import DFlashVerifyInput
    from sglang.srt.speculative.dflash_utils import compute_dflash_correct_drafts_and_bonus
    from sglang.srt.server_args import ServerArgs


    class MyWorker(DFlashWorkerV2):
        def forward_batch_generation(self, batch, on_publish=None, grammar_barrier=None):
            out = super().forward_batch_generation(batch, on_publish, grammar_barrier)
            self._greedy_sample_from_vocab_parallel_head(hidden_states=None, lm_head=None)
            return out

        def my_own_helper(self):
            return self.draft_window_size


    def check(v: DFlashVerifyInput, d: DFlashDraftInputV2, args: ServerArgs):
        v.prepare_for_verify(None, None)
        return d.bonus_tokens, v.num_tokens_per_req, args.disable_overlap_schedule, args.speculative_draft_window_size
"""


def test_v1_fork_reports_what_0_5_17_lacks(tmp_path: Path, target: Target) -> None:
    results = verify_paths([fork(tmp_path, V1_FORK)], target)
    findings = [f for r in results for f in r.findings]
    by_line = {(f.line, f.code): f.message for f in findings}
    assert exit_code(results) == 1
    assert "`sglang.srt.speculative.dflash_worker` does not exist in sglang 0.5.17" in by_line[(2, "DFM900")]
    assert "dflash_worker_v2" in by_line[(2, "DFM900")]
    assert "DFlashDraftInputV2" in by_line[(3, "DFM900")]
    assert "compute_dflash_correct_drafts_and_bonus" in by_line[(4, "DFM900")]
    assert "`spec_info.SpeculativeAlgorithm.supports_spec_v2`" not in by_line.get((15, "DFM900"), "")
    assert "supports_spec_v2" in by_line[(15, "DFM900")]
    assert "`DFlashVerifyInput` has no attribute `verify`" in by_line[(14, "DFM900")]
    # the base class is missing, so its methods cannot be checked: no override finding
    assert not [f for f in findings if f.code == "DFM901"]


def test_migrated_fork_reports_override_of_removed_method(tmp_path: Path, target: Target) -> None:
    text = V2_FORK + """
    class Stale(DFlashWorkerV2):
        def _prepare_for_speculative_decoding(self, batch, draft_input):
            return super()._append_target_hidden_to_draft_kv(batch, draft_input)
    """
    findings = [f for r in verify_paths([fork(tmp_path, text)], target) for f in r.findings]
    codes = sorted((f.code, f.line) for f in findings)
    assert [c for c, _ in codes] == ["DFM900", "DFM901"], findings
    override = next(f for f in findings if f.code == "DFM901")
    assert "`Stale._prepare_for_speculative_decoding` overrides a method `DFlashWorkerV2` no longer has" in override.message
    assert "DFM106" in override.message
    missing = next(f for f in findings if f.code == "DFM900")
    assert "_append_target_hidden_to_draft_kv_by_loc" in missing.message


def test_v2_fork_is_clean(tmp_path: Path, target: Target) -> None:
    results = verify_paths([fork(tmp_path, V2_FORK)], target)
    assert [f for r in results for f in r.findings] == []
    assert exit_code(results) == 0
