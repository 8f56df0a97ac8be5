"""Valid/invalid cases for migrator/python/rules/silent_downgrade.py: a compatibility ``try`` that turns
DFLASH off on V2 releases without an error (DFM501)."""

from __future__ import annotations

from codemod_helpers import codes, migrate, todo_lines


def test_a_try_whose_import_cannot_be_fixed_is_a_todo_at_the_try() -> None:
    new, findings = migrate("""
        try:
            from sglang.srt.speculative.dflash_info import _compute_paged_keep_slots
            HAS_DFLASH = True
        except ImportError:
            HAS_DFLASH = False
        """)
    assert sorted((f.line, f.code) for f in findings) == [(2, "DFM501"), (3, "DFM104")]
    assert "DFM501" in todo_lines(new)[0] and "HAS_DFLASH" in todo_lines(new)[0]


def test_a_try_the_import_fixes_make_succeed_needs_no_edit_of_its_own() -> None:
    new, findings = migrate("""
        try:
            from sglang.srt.speculative.dflash_worker import DFlashWorker
            HAS_DFLASH = True
        except ImportError:
            HAS_DFLASH = False
        """)
    assert [f.fix.applicability for f in findings if f.code == "DFM501"] == ["safe"]
    assert not todo_lines(new) and "dflash_worker_v2 import DFlashWorkerV2" in new


def test_a_version_guard_importing_a_v2_name_is_not_reported() -> None:
    _, findings = migrate("""
        try:
            from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2
        except ImportError:
            from sglang.srt.speculative.dflash_worker import DFlashWorker as DFlashWorkerV2
        """)
    assert "DFM501" not in codes(findings)
