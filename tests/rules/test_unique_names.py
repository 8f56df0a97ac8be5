"""Valid/invalid cases for migrator/python/rules/unique_names.py: the removed API reached by its unique
names on receivers of unknown type (a module passed as a parameter)."""

from __future__ import annotations

from codemod_helpers import migrate, todo_lines


def found(source: str, module_name: str | None = None) -> list[tuple[int, str]]:
    _, findings = migrate(source, target="0.5.17", mode="lint", module_name=module_name)
    return sorted((f.line, f.code) for f in findings)


def test_unique_names_on_a_module_passed_as_a_parameter() -> None:
    assert found("""
def install(module, patched):
    cls = module.DFlashWorker
    module.DFlashVerifyInput.verify = patched
    cls._prepare_for_speculative_decoding = patched
    info = module.DFlashDraftInput(verified_id=1)
    return cls, info, module.helpers._compute_paged_keep_slots
""") == [(3, "DFM102"), (4, "DFM105"), (5, "DFM106"), (6, "DFM103"), (7, "DFM104")]


def test_each_gets_its_own_todo() -> None:
    new, _ = migrate("def install(module):\n    return module.DFlashWorker, module.DFlashDraftInput\n", target="0.5.17")
    assert len(todo_lines(new)) == 2


def test_v2_names_own_classes_and_resolved_names_are_left_alone() -> None:
    assert found("""
from sglang.srt.speculative import dflash_worker_v2


class Mine:
    def verify(self):
        return None


def install(module, patched):
    other = module.Thing
    other._prepare_for_speculative_decoding = patched
    module.Mine.verify = patched
    return module.DFlashWorkerV2, dflash_worker_v2.DFlashWorkerV2, module.DFlashDraftInputV2, module.DFlashWorker
""") == [(14, "DFM102")]  # only the V1 name


def test_a_resolved_v1_chain_is_reported_once_by_the_reference_rules() -> None:
    findings = found("from sglang.srt.speculative import dflash_info\nx = dflash_info.DFlashDraftInput\n"
                     "def f(settings):\n    return settings.DFlashDraftInput\n")
    assert findings.count((2, "DFM103")) == 1 and (4, "DFM103") in findings


def test_a_removed_member_through_the_own_package_and_once_through_sglang() -> None:
    assert found("""
import importlib

from sglang.srt.speculative import dflash_info
from sgl_jax.srt.speculative.dflash_info import DFlashVerifyInput as JaxVerify

from .compat import DFlashVerifyInput as Verify


def install(patched):
    dflash_info.DFlashVerifyInput.verify = patched
    Verify.verify = patched
    JaxVerify.verify = patched
    jax = importlib.import_module("sgl_jax.srt.speculative.dflash_worker")
    return jax.DFlashWorker
""", module_name="mypkg.use") == [(11, "DFM105"), (12, "DFM105")]  # not the JAX port's names
