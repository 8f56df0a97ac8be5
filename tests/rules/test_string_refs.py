"""Valid/invalid cases for migrator/python/rules/string_refs.py."""

from __future__ import annotations

from codemod_helpers import codes, migrate


def test_module_strings_and_patch_targets() -> None:
    new, findings = migrate(
        """
        import importlib, sys
        from unittest import mock
        m = importlib.import_module("sglang.srt.speculative.dflash_worker")
        n = sys.modules['sglang.srt.speculative.dflash_worker']
        p = mock.patch("sglang.srt.speculative.dflash_worker.DFlashWorker._prepare_for_speculative_decoding")
        """
    )
    assert 'import_module("sglang.srt.speculative.dflash_worker_v2")' in new
    assert "sys.modules['sglang.srt.speculative.dflash_worker_v2']" in new
    assert "DFlashWorkerV2._prepare_for_speculative_decoding" in new
    assert "DFM106" in codes(findings)


def test_string_annotations_resolve_in_scope() -> None:
    new, _ = migrate(
        """
        from typing import Optional
        from sglang.srt.speculative.dflash_worker import DFlashWorker

        def f(w: "Optional[DFlashWorker]") -> "DFlashWorker":
            return w
        """
    )
    assert 'def f(w: "Optional[DFlashWorkerV2]") -> "DFlashWorkerV2":' in new


def test_prose_and_v2_strings_untouched() -> None:
    source = 'a = "sglang.srt.speculative.dflash_worker_v2"\nb = "see DFlashWorker in sglang.srt.speculative.dflash_worker"\n'
    assert migrate(source) == (source, [])
