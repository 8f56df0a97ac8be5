"""Renames that would break or change code (issue 14 "more renames that break or change
code", item 6): each migrated text is checked with pyflakes, and the ones whose meaning
could change are run before and after against stand-in V1/V2 packages."""

from __future__ import annotations

import sys
import textwrap
import types

import pytest
from codemod_helpers import migrate, todo_lines
from flakes import new_flakes


def _migrated(source: str, **kwargs) -> str:  # noqa: ANN003
    before = textwrap.dedent(source)
    new, _ = migrate(before, **kwargs)
    assert new_flakes(before, new) == [], new
    return new


@pytest.fixture
def stand_in_sglang(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both layouts importable at once (V1 module and V2 module), so that a text can be run
    before and after the migration and the results compared."""
    names = ["sglang", "sglang.srt", "sglang.srt.speculative"]
    for name in names:
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    v1 = types.ModuleType("sglang.srt.speculative.dflash_worker")
    v2 = types.ModuleType("sglang.srt.speculative.dflash_worker_v2")
    v1.DFlashWorker = type("DFlashWorker", (), {})
    v2.DFlashWorkerV2 = type("DFlashWorkerV2", (), {})
    monkeypatch.setitem(sys.modules, v1.__name__, v1)
    monkeypatch.setitem(sys.modules, v2.__name__, v2)
    sys.modules["sglang.srt.speculative"].dflash_worker = v1
    sys.modules["sglang.srt.speculative"].dflash_worker_v2 = v2


def _run(text: str) -> dict:
    namespace: dict = {"__name__": "fork_module"}
    exec(compile(text, "fork_module.py", "exec"), namespace)
    return namespace


SHADOWS = """\
from sglang.srt.speculative.dflash_worker import DFlashWorker

shadowed_by_lambda = (lambda DFlashWorker: DFlashWorker)(1)
shadowed_by_loop = [DFlashWorker for DFlashWorker in range(2)]
in_class_body = None


class Holder:
    workers = [DFlashWorker for _ in range(1)]


def captured(x):
    match x:
        case DFlashWorker:
            return DFlashWorker


in_class_body = Holder.workers[0].__name__
by_capture = captured(3)
"""


def test_names_that_shadow_the_import_are_not_renamed(stand_in_sglang: None) -> None:
    new = _migrated(SHADOWS)
    assert "(lambda DFlashWorker: DFlashWorker)(1)" in new
    assert "[DFlashWorker for DFlashWorker in range(2)]" in new
    assert "return DFlashWorker\n" in new
    assert "workers = [DFlashWorkerV2 for _ in range(1)]" in new  # a class-body comprehension sees the import
    before, after = _run(SHADOWS), _run(new)
    for name in ("shadowed_by_lambda", "shadowed_by_loop", "by_capture"):
        assert before[name] == after[name]
    assert after["in_class_body"] == "DFlashWorkerV2"


@pytest.mark.parametrize("source", [
    'from sglang.srt.speculative.dflash_worker import DFlashWorker\n__all__ = ["DFlashWorker"]\n',
    "from sglang.srt.speculative.dflash_worker import DFlashWorker\nw = DFlashWorker\ndel DFlashWorker\n",
    "from sglang.srt.speculative.dflash_worker import DFlashWorker\n\ndef drop():\n    global DFlashWorker\n    DFlashWorker = None\n",
    'from sglang.srt.speculative import dflash_worker\nW = getattr(dflash_worker, "DFlashWorker")\n',
], ids=["__all__", "del", "global", "getattr"])
def test_what_binds_or_exports_the_old_name_is_never_left_dangling(source: str, stand_in_sglang: None) -> None:
    new = _migrated(source)
    namespace = _run(new)  # no NameError / AttributeError
    assert all(name in namespace for name in namespace.get("__all__", ()))
    if "getattr" in source or "global" in source:  # left for a human, saying why
        assert todo_lines(new)


def test_a_forks_own_v2_class_does_not_capture_later_calls() -> None:
    source = """\
    from sglang.srt.speculative.dflash_worker import DFlashWorker


    class DFlashWorkerV2(DFlashWorker):
        pass


    def build():
        return DFlashWorker()
    """
    new = _migrated(source)
    assert "return DFlashWorker()" in new and "class DFlashWorkerV2(DFlashWorker):" in new
    assert todo_lines(new)


def test_a_compatibility_map_naming_the_old_module_is_left_as_it_is() -> None:
    source = 'import sglang\nALIASES = {"sglang.srt.speculative.dflash_worker": "sglang.srt.speculative.dflash_worker_v2"}\n'
    assert _migrated(source) == source


@pytest.mark.parametrize("libcst", [False, True], ids=["splice", "libcst"])
def test_type_comments_are_renamed_with_the_code(libcst: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if libcst:
        monkeypatch.setenv("DFLASH_MIGRATE_ALWAYS_LIBCST", "1")
    source = """\
    from sglang.srt.speculative.dflash_worker import DFlashWorker


    def make(server_args):
        # type: (object) -> DFlashWorker
        w = DFlashWorker(server_args)  # type: DFlashWorker
        x = 1  # type: ignore
        return w, x
    """
    new = _migrated(source)
    assert "    # type: (object) -> DFlashWorkerV2\n" in new
    assert "w = DFlashWorkerV2(server_args)  # type: DFlashWorkerV2\n" in new
    assert "x = 1  # type: ignore\n" in new
