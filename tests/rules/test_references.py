"""Valid/invalid cases for migrator/python/rules/references.py (expressions, chains, aliases)."""

from __future__ import annotations

from codemod_helpers import codes, migrate


def test_from_import_renames_every_local_use() -> None:
    new, _ = migrate(
        """
        from sglang.srt.speculative.dflash_worker import DFlashWorker

        class Mine(DFlashWorker):
            pass

        def is_worker(x) -> bool:
            return isinstance(x, DFlashWorker)
        """
    )
    assert "DFlashWorker)" not in new.replace("DFlashWorkerV2", "")
    assert new.count("DFlashWorkerV2") == 3


def test_aliased_module_attribute_chain() -> None:
    new, findings = migrate(
        """
        import sglang.srt.speculative.dflash_worker as dw
        import sglang.srt.speculative.dflash_worker

        a = dw.DFlashWorker
        b = sglang.srt.speculative.dflash_worker.DFlashWorker
        """
    )
    assert "a = dw.DFlashWorkerV2" in new
    assert "b = sglang.srt.speculative.dflash_worker_v2.DFlashWorkerV2" in new
    assert codes(findings).count("DFM102") == 2


def test_class_moved_to_another_module_is_imported_directly() -> None:
    new, _ = migrate(
        """
        from sglang.srt.speculative import dflash_info

        def make():
            return dflash_info.DFlashDraftInput()
        """
    )
    assert "from sglang.srt.speculative.dflash_info_v2 import DFlashDraftInputV2" in new
    assert "return DFlashDraftInputV2()" in new


def test_alias_with_as_keeps_local_name() -> None:
    source = "from sglang.srt.speculative.dflash_worker import DFlashWorker as Base\nclass W(Base):\n    pass\n"
    new, findings = migrate(source)
    assert new == source.replace("dflash_worker import DFlashWorker", "dflash_worker_v2 import DFlashWorkerV2")
    assert codes(findings) == ["DFM101", "DFM102"]


def test_removed_function_through_module_gets_todo() -> None:
    new, findings = migrate(
        """
        from sglang.srt.speculative import dflash_info
        keep = dflash_info._compute_paged_keep_slots(prefix_lens=1, commit_lens=1, draft_token_num=8, page_size=16)
        """
    )
    assert codes(findings) == ["DFM104"]
    assert "# TODO(dflash-migrate): DFM104" in new


def test_envs_attribute_gets_todo() -> None:
    new, findings = migrate("from sglang.srt.environ import envs\nif envs.SGLANG_ENABLE_SPEC_V2.get():\n    pass\n")
    assert codes(findings) == ["DFM202"]
    assert new.splitlines()[1].startswith("# TODO(dflash-migrate): DFM202")


def test_same_named_class_elsewhere_and_local_shadowing_are_not_flagged() -> None:
    source = (
        "from jax_port.workers import DFlashWorker\n"
        "class DFlashDraftInput:\n    pass\n"
        "x = DFlashWorker()\ny = DFlashDraftInput()\n"
    )
    assert migrate(source) == (source, [])


def test_rebinding_stops_resolution() -> None:
    source = "from sglang.srt.speculative.dflash_worker import DFlashWorker\nDFlashWorker = object\nx = DFlashWorker\n"
    new, findings = migrate(source)
    assert codes(findings) == ["DFM101", "DFM102"]  # the import line only
    assert new.endswith("DFlashWorker = object\nx = DFlashWorker\n")
