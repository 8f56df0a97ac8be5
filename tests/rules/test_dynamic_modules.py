"""Valid/invalid cases for migrator/python/rules/dynamic_modules.py: the removed module obtained at run
time (``import_module``, ``sys.modules``) and the class read from it."""

from __future__ import annotations

from codemod_helpers import migrate


def test_the_class_read_from_an_imported_module_is_renamed_with_the_module_string() -> None:
    new, findings = migrate("""
        import importlib

        module = importlib.import_module("sglang.srt.speculative.dflash_worker")
        worker_cls = module.DFlashWorker
        """)
    assert sorted((f.line, f.code) for f in findings) == [(4, "DFM101"), (5, "DFM102")]
    assert 'import_module("sglang.srt.speculative.dflash_worker_v2")' in new
    assert "worker_cls = module.DFlashWorkerV2" in new


def test_a_module_from_sys_modules_is_followed_too() -> None:
    _, findings = migrate("""
        import sys

        worker_cls = sys.modules["sglang.srt.speculative.dflash_worker"].DFlashWorker
        """)
    assert "DFM102" in {f.code for f in findings}


def test_another_packages_module_of_the_same_name_is_not_followed() -> None:
    _, findings = migrate("""
        import importlib

        module = importlib.import_module("mypkg.dflash_worker")
        factory = module.build_worker
        """)
    assert findings == []
