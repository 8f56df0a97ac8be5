"""Valid/invalid cases for migrator/python/rules/lazy_pairs.py: (module, name) string pairs of lazy
registries that do not resolve on the target."""

from __future__ import annotations

from codemod_helpers import migrate, todo_lines

WORKER_V2 = "sglang.srt.speculative.dflash_worker_v2"


def test_a_pair_naming_the_v1_class_in_the_v2_module_is_renamed() -> None:
    new, findings = migrate(
        f"""
        LAZY = [
            ("{WORKER_V2}", "DFlashWorker"),
            ("sglang.srt.speculative.dflash_worker",
             "DFlashWorker"),
        ]
        """,
        target="0.5.17",
    )
    assert new.count(f'"{WORKER_V2}"') == 2 and new.count('"DFlashWorkerV2"') == 2
    assert sorted((f.line, f.code) for f in findings) == [(3, "DFM102"), (4, "DFM101"), (5, "DFM102")]


def test_a_pair_with_nothing_to_name_on_the_target_is_a_todo() -> None:
    new, findings = migrate(
        """
        HELPERS = {
            "keep": ("sglang.srt.speculative.dflash_info", "_compute_paged_keep_slots"),
            "draft": ("sglang.srt.speculative.dflash_info", "DFlashDraftInput"),
        }
        """,
        target="0.5.17",
    )
    assert sorted(f.code for f in findings) == ["DFM103", "DFM104"]
    assert len(todo_lines(new)) == 2 and '"DFlashDraftInput"' in new  # the other module: not guessed


def test_valid_pairs_and_other_packages_are_left_alone() -> None:
    source = f"""
        LAZY = {{
            "dflash": ("{WORKER_V2}", "DFlashWorkerV2"),
            "mine": ("mypkg.workers", "DFlashWorker"),
            "eagle": ("sglang.srt.speculative.eagle_worker", "EAGLEWorker"),
        }}
        NAMES = ("DFlashWorker", "DFlashDraftInput", "other")
        BROKEN = ("{WORKER_V2}", "DFlashWorker")
        """
    _, findings = migrate(source, target="0.5.17")
    # only the broken pair among the pairs; the plain tuple of names is data naming V1 classes
    # (issue 47: unique bare names held as data, ``rules.unique_names``), not a pair
    assert [(f.line, f.code) for f in findings] == [(7, "DFM102"), (7, "DFM103"), (8, "DFM102")]
