"""Valid/invalid cases for migrator/python/rules/imports.py (every import form)."""

from __future__ import annotations

import pytest
from codemod_helpers import codes, migrate, todo_lines


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("import sglang.srt.speculative.dflash_worker\n", "import sglang.srt.speculative.dflash_worker_v2\n"),
        ("import sglang.srt.speculative.dflash_worker as w\n", "import sglang.srt.speculative.dflash_worker_v2 as w\n"),
        ("from sglang.srt.speculative.dflash_worker import DFlashWorker as W\n",
         "from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2 as W\n"),
        ("from sglang.srt.speculative import dflash_worker\n", "from sglang.srt.speculative import dflash_worker_v2\n"),
        ("from sglang.srt.speculative.dflash_info import DFlashDraftInput\n",
         "from sglang.srt.speculative.dflash_info_v2 import DFlashDraftInputV2\n"),
        ("from sglang.srt.speculative.dflash_utils import compute_dflash_sampling_accept_len_and_bonus as v\n",
         "from sglang.srt.speculative.dflash_utils import compute_dflash_sampling_correct_drafts_and_bonus as v\n"),
    ],
)
def test_import_forms_are_renamed(before: str, after: str) -> None:
    new, findings = migrate(before)
    assert new == after
    assert findings and all(f.fix and f.fix.applicability == "safe" for f in findings)


def test_mixed_from_import_keeps_surviving_names_in_the_old_module() -> None:
    new, findings = migrate("from sglang.srt.speculative.dflash_info import DFlashVerifyInput, _compute_paged_keep_slots\n")
    assert "from sglang.srt.speculative.dflash_info import DFlashVerifyInput, _compute_paged_keep_slots" in new
    assert codes(findings) == ["DFM104"]
    assert todo_lines(new) == ["# TODO(dflash-migrate): DFM104 `_compute_paged_keep_slots` was removed with no replacement (MIGRATION.md#dfm104)"]


def test_target_version_selects_the_replacement_module() -> None:
    source = "from sglang.srt.speculative.dflash_utils import compute_dflash_accept_len_and_bonus as accept\n"
    old_target, _ = migrate(source, target="0.5.17")
    new_target, _ = migrate(source, target="0.5.23")
    assert old_target == "from sglang.srt.speculative.dflash_utils import compute_dflash_correct_drafts_and_bonus as accept\n"
    assert new_target == "from sglang.kernels.ops.speculative.dflash import compute_dflash_correct_drafts_and_bonus as accept\n"


def test_move_only_fires_from_its_release() -> None:
    source = "from sglang.srt.speculative.dflash_utils import compute_dflash_correct_drafts_and_bonus\n"
    assert migrate(source, target="0.5.22") == (source, [])
    new, findings = migrate(source, target="0.5.23")
    assert codes(findings) == ["DFM305"] and "sglang.kernels.ops.speculative.dflash" in new


@pytest.mark.parametrize(
    "source",
    [
        "from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2\n",
        "from sglang.srt.speculative.dflash_info_v2 import DFlashDraftInputV2\n",
        "from sglang.srt.speculative.dflash_info import DFlashVerifyInput\n",
        "import jax_port.dflash_worker\nfrom jax_port.dflash_worker import DFlashWorker\n",
        "# from sglang.srt.speculative.dflash_worker import DFlashWorker\n",
        "try:\n    from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2 as W\n"
        "except ImportError:\n    from sglang.srt.speculative.dflash_worker import DFlashWorker as W\n"
        "worker_cls = W\n",
    ],
)
def test_not_flagged(source: str) -> None:
    assert migrate(source) == (source, [])
