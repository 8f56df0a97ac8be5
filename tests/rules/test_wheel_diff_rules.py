"""The rules issue 14 item 4 added from the 0.5.13 -> 0.5.14 wheel diff, on code written
outside sglang's tree: DFM112 (``filter_batch(v1_spec_info_filtered=...)``), DFM210/DFM211
(V1-era overlap handling for DFLASH) and DFM310-DFM314 (re-exports 0.5.14 dropped). Every
changed file goes through the pyflakes oracle."""

from __future__ import annotations

import textwrap
from pathlib import Path

from codemod_helpers import codes, migrate, todo_lines
from flakes import new_flakes


def migrated(source: str, **kw) -> tuple[str, list]:  # noqa: ANN003
    new, findings = migrate(source, **kw)
    assert new_flakes(textwrap.dedent(source), new) == []
    return new, findings


FILTER = """
def drop_finished(self, batch, flag):
    self.running_batch.filter_batch(v1_spec_info_filtered=True)
    batch.filter_batch(keep_indices=[0], v1_spec_info_filtered=False)
    batch.filter_batch(v1_spec_info_filtered=decide(batch))
    batch.filter_batch(chunked, v1_spec_info_filtered=flag)
    batch.filter_batch(keep_indices=[0])
"""


def test_filter_batch_keyword_dropped_where_safe_else_todo() -> None:
    new, findings = migrated(FILTER, target="0.5.14")
    assert codes(findings) == ["DFM112"] * 4
    assert "batch.filter_batch(keep_indices=[0])\n" in new  # False: the same behaviour, a safe fix
    # True (every site upstream rewrote, issue 46): the keyword is read nowhere on a target, a safe fix
    assert "    self.running_batch.filter_batch()\n" in new
    # the two calls left are one fact in one function: one TODO, at the first, counting the other
    assert len(todo_lines(new)) == 1 and "the same in 1 more statement below" in todo_lines(new)[0]


def test_filter_batch_a_forks_own_keyword_makes_the_fix_unsafe_and_is_named() -> None:
    """Issue 46: a function of the fork (outside sglang.*) taking the keyword may be the callee."""
    source = FILTER + "\n\nclass MyBatch:\n    def filter_batch(self, keep_indices=None, v1_spec_info_filtered=False):\n        pass\n"
    new, findings = migrated(source, target="0.5.14")
    assert "self.running_batch.filter_batch(v1_spec_info_filtered=True)" in new
    assert "batch.filter_batch(keep_indices=[0], v1_spec_info_filtered=False)" in new
    assert all("`filter_batch` in this file" in f.message for f in findings if f.fix and f.fix.applicability == "unsafe")
    unsafe, _ = migrated(source, target="0.5.14", unsafe=True)
    assert "    self.running_batch.filter_batch()\n" in unsafe


def test_filter_batch_unsafe_fixes_drop_pure_values_only() -> None:
    new, _ = migrated(FILTER, target="0.5.14", unsafe=True)
    assert "    self.running_batch.filter_batch()\n" in new
    assert "    batch.filter_batch(chunked)\n" in new
    assert "v1_spec_info_filtered=decide(batch)" in new and len(todo_lines(new)) == 1  # a side effect stays


def test_filter_batch_not_before_0_5_14_and_other_keywords_untouched() -> None:
    assert migrate(FILTER, target="0.5.13")[1] == []
    assert migrate("df.filter_batch(keep=True)\n", target="0.5.14")[1] == []


GUARDS = """
import logging

logger = logging.getLogger(__name__)


class MyAlgorithm:
    def create_worker(self, server_args):
        enable_overlap = not server_args.disable_overlap_schedule
        if self.is_dflash():
            if enable_overlap:
                raise ValueError("DFLASH does not support overlap scheduling (spec v2).")
            return DraftWorker
        if enable_overlap:
            raise ValueError("EAGLE needs a draft model")
        return None


def _handle_dflash(server_args):
    server_args.disable_overlap_schedule = True
    logger.warning("Overlap scheduler is disabled when using DFLASH speculative decoding (spec v2 is not supported yet).")


def configure(args):
    if args.speculative_algorithm == "DFLASH":
        args.disable_overlap_schedule = True
    else:
        args.disable_overlap_schedule = True
    args.disable_overlap_schedule = False
"""


def test_overlap_guard_and_forced_overlap_off_for_dflash_are_todos() -> None:
    new, findings = migrated(GUARDS, target="0.5.14")
    found = sorted((f.code, f.line) for f in findings)
    assert found == [("DFM210", 11), ("DFM211", 20), ("DFM211", 26)]
    assert len(todo_lines(new)) == 3
    assert new.count("raise ValueError") == 2  # reported, never deleted


def test_overlap_rules_need_dflash_and_fire_from_0_5_14() -> None:
    assert migrate(GUARDS, target="0.5.13")[1] == []
    eagle = GUARDS.replace("DFLASH", "EAGLE").replace("dflash", "eagle")
    assert migrate(eagle, target="0.5.14")[1] == []


REEXPORTS = """
from sglang.srt.speculative.dflash_info import DFlashVerifyInput, compute_dflash_correct_drafts_and_bonus
from sglang.srt.speculative.dflash_info import is_dflash_sampling_verify_available
from sglang.srt.speculative.dflash_worker import DFlashDraftInput, resolve_dflash_verify_mask_policy


def accept(x: DFlashDraftInput, backend):
    if is_dflash_sampling_verify_available():
        resolve_dflash_verify_mask_policy(backend)
    return compute_dflash_correct_drafts_and_bonus(x), DFlashVerifyInput
"""


def test_dropped_reexports_import_from_their_home() -> None:
    new, findings = migrated(REEXPORTS, target="0.5.14")
    assert {"DFM310", "DFM312", "DFM313", "DFM314"} <= set(codes(findings))
    assert "from sglang.srt.speculative.dflash_utils import compute_dflash_correct_drafts_and_bonus" in new
    assert "from sglang.srt.speculative.dflash_utils import is_dflash_sampling_verify_available" in new
    assert "from sglang.srt.speculative.dflash_utils import resolve_dflash_verify_mask_policy" in new
    assert "def accept(x: DFlashDraftInputV2, backend):" in new
    assert "dflash_worker" not in new and todo_lines(new) == []


def test_reexport_of_the_greedy_kernel_follows_the_target() -> None:
    new, _ = migrated(REEXPORTS, target="0.5.23")
    assert "from sglang.kernels.ops.speculative.dflash import compute_dflash_correct_drafts_and_bonus" in new


def test_a_hint_to_set_the_variable_to_1_is_one_finding_that_says_drop_it() -> None:
    source = '''
    def check(args):
        if args.mamba_strategy == "no_buffer":
            raise ValueError("To use radix cache with speculative decoding, set SGLANG_ENABLE_SPEC_V2=1.")
    '''
    new, findings = migrated(source, target="0.5.14")
    assert codes(findings) == ["DFM201"]  # the recall rule's finding, not a second code for the same text
    assert "the default since 0.5.14: drop the setting or the instruction" in findings[0].message
    assert len(todo_lines(new)) == 1


def test_an_added_import_keeps_the_relative_form_of_a_fork_of_sglang(tmp_path) -> None:  # noqa: ANN001
    from codemod_helpers import write_tree

    from migrator.run.engine import Options, run

    uses = "def accept(x):\n    return dflash_info.compute_dflash_correct_drafts_and_bonus(x), other.y\n"
    write_tree(tmp_path, {
        "python/sglang/__init__.py": "",
        "python/sglang/srt/__init__.py": "",
        "python/sglang/srt/speculative/__init__.py": "",
        "python/sglang/srt/managers/__init__.py": "",
        "python/sglang/srt/managers/relative.py": "from ..speculative import dflash_info, other\n\n\n" + uses,
        "python/sglang/srt/managers/absolute.py": "from sglang.srt.speculative import dflash_info, other\n\n\n" + uses,
        "python/sglang/srt/speculative/sibling.py": "from . import dflash_info, other\n\n\n" + uses,
    })
    before = {p: p.read_text() for p in tmp_path.rglob("*.py")}
    outcome = run([tmp_path], Options(mode="fix", target_version="0.5.14", allow_dirty=True))
    assert outcome.summary.files_with_errors == 0
    root = tmp_path / "python/sglang/srt"
    added = "import compute_dflash_correct_drafts_and_bonus\n"
    assert f"from ..speculative.dflash_utils {added}" in (root / "managers/relative.py").read_text()
    assert f"from sglang.srt.speculative.dflash_utils {added}" in (root / "managers/absolute.py").read_text()
    assert f"from .dflash_utils {added}" in (root / "speculative/sibling.py").read_text()
    for path, text in before.items():
        assert new_flakes(text, path.read_text(), str(path)) == []
    (root / "managers/relative.py").write_text(before[root / "managers/relative.py"])
    run([root / "managers/relative.py"], Options(mode="fix", target_version="0.5.23", allow_dirty=True))
    relative = (root / "managers/relative.py").read_text()
    assert f"from ...kernels.ops.speculative.dflash {added}" in relative  # sglang.kernels, three dots up
    assert new_flakes(before[root / "managers/relative.py"], relative) == []


def test_filter_batch_a_fork_modules_own_keyword_in_another_module(tmp_path: Path) -> None:
    """Through the fork index: the fork's own `filter_batch(..., v1_spec_info_filtered)` is in
    another module than the call; the call is not fixed by default and the finding names it."""
    from codemod_helpers import write_tree

    from migrator.run import engine

    write_tree(tmp_path, {
        "fk/__init__.py": "",
        "fk/batch.py": "class MyBatch:\n    def filter_batch(self, v1_spec_info_filtered=False):\n        pass\n",
        "fk/use.py": "def drop(batch):\n    batch.filter_batch(v1_spec_info_filtered=True)\n",
    })
    outcome = engine.run([tmp_path], engine.Options(mode="fix", target_version="0.5.17", jobs=1))
    assert not any(r.error for r in outcome.results)
    assert "batch.filter_batch(v1_spec_info_filtered=True)" in (tmp_path / "fk" / "use.py").read_text()
    [finding] = [f for r in outcome.results for f in r.findings if f.path.endswith("use.py")]
    assert "`fk.batch.filter_batch`" in finding.message
