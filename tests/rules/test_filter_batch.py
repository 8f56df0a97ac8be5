"""Valid/invalid cases for migrator/python/rules/filter_batch.py: ``filter_batch(v1_spec_info_filtered=...)``
(DFM112), a keyword 0.5.14 rejects."""

from __future__ import annotations

from codemod_helpers import migrate, todo_lines


def test_a_constant_value_is_dropped_safely() -> None:
    new, findings = migrate("""
        def keep(batch, keep):
            batch.filter_batch(keep_indices=keep, v1_spec_info_filtered=True)
        """)
    assert [(f.code, f.fix.applicability) for f in findings] == [("DFM112", "safe")]
    assert "batch.filter_batch(keep_indices=keep)" in new


def test_a_computed_flag_is_dropped_only_with_unsafe_fixes() -> None:
    source = """
        def keep(batch, keep, done):
            batch.filter_batch(keep_indices=keep, v1_spec_info_filtered=done)
        """
    new, findings = migrate(source)
    assert [(f.code, f.fix.applicability) for f in findings] == [("DFM112", "unsafe")]
    assert "v1_spec_info_filtered=done" in new and len(todo_lines(new)) == 1
    new, _ = migrate(source, unsafe=True)
    assert "batch.filter_batch(keep_indices=keep)" in new and not todo_lines(new)


def test_calls_without_the_keyword_are_left_alone() -> None:
    _, findings = migrate("""
        def keep(batch, keep):
            batch.filter_batch(keep_indices=keep, has_been_filtered=False)
        """)
    assert findings == []
