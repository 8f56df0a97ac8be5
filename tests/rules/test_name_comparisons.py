"""Valid/invalid cases for migrator/python/rules/name_comparisons.py: removed names compared with strings
and the removed module's file path, each a TODO."""

from __future__ import annotations

from codemod_helpers import migrate, todo_lines


def test_a_membership_test_against_removed_names_is_a_todo_per_name() -> None:
    new, findings = migrate("""
        def is_v1(node):
            return node.name in ("DFlashDraftInput", "_compute_paged_keep_slots")
        """)
    assert sorted((f.line, f.code) for f in findings) == [(3, "DFM103"), (3, "DFM104")]
    assert len(todo_lines(new)) == 2 and '("DFlashDraftInput", "_compute_paged_keep_slots")' in new


def test_the_removed_modules_file_path_is_reported_but_another_packages_is_not() -> None:
    _, findings = migrate("""
        OTHER = "mypkg/dflash_worker.py"
        V1_FILE = "sglang/srt/speculative/dflash_worker.py"
        """)
    assert [(f.line, f.code) for f in findings] == [(3, "DFM101")]


def test_a_shared_method_name_counts_only_beside_its_class() -> None:
    _, findings = migrate("""
        def is_forward(node):
            return node.name == "forward_batch_generation"
        """)
    assert findings == []
