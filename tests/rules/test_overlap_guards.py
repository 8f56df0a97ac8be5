"""Valid/invalid cases for migrator/python/rules/overlap_guards.py: V1-era overlap guards (DFM210)
and overlap forced off for DFLASH (DFM211), both TODOs."""

from __future__ import annotations

from codemod_helpers import codes, migrate, todo_lines


def test_a_guard_raising_for_dflash_under_overlap_is_a_todo() -> None:
    new, findings = migrate("""
        def create_worker(enable_overlap):
            if enable_overlap:
                raise ValueError("DFLASH does not support overlap scheduling (spec v2).")
            return 1
        """)
    assert [(f.line, f.code) for f in findings] == [(3, "DFM210")]
    assert len(todo_lines(new)) == 1 and 'raise ValueError("DFLASH' in new  # nothing removed


def test_overlap_forced_off_in_dflash_code_is_a_todo() -> None:
    new, findings = migrate("""
        def _handle_dflash(server_args):
            server_args.disable_overlap_schedule = True
        """)
    assert codes(findings) == ["DFM211"] and "disable_overlap_schedule = True" in new


def test_other_algorithms_keep_their_overlap_handling() -> None:
    _, findings = migrate("""
        def _handle_eagle(server_args, enable_overlap):
            server_args.disable_overlap_schedule = True
            if enable_overlap:
                raise ValueError("NGRAM does not support overlap scheduling.")
        """)
    assert findings == []
