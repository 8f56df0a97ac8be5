"""Dead V1 overrides and removed names under the shim, without sglang (issue 20).

The SGLang modules are stand-in module objects here so that the shim's own logic runs in
the fast tier; ``tests/test_shim_fork.py`` runs the same behaviour on the real releases.
"""

from __future__ import annotations

import importlib
import sys
import types
import warnings
from collections.abc import Iterator

import pytest

import shims
from migrator import catalog
from shims import _switches
from shims.errors import RemovedNameError

V2_MODULE, V2_NAME = catalog.V2_WORKER_CLASS.rpartition(".")[::2]
INFO_MODULE = catalog.DFLASH_INFO
REMOVED = catalog.get("DFM104").member


@pytest.fixture()
def v2_worker(monkeypatch: pytest.MonkeyPatch) -> Iterator[type]:
    for name in (_switches.ENV_STRICT, _switches.ENV_SILENT, _switches.ENV_DEFER_REMOVED):
        monkeypatch.delenv(name, raising=False)
    parts = V2_MODULE.split(".")
    for i in range(1, len(parts)):
        package = types.ModuleType(".".join(parts[:i]))
        package.__path__ = []  # type: ignore[attr-defined]
        monkeypatch.setitem(sys.modules, package.__name__, package)

    class DFlashWorkerV2:
        def forward_batch_generation(self, batch, on_publish=None):
            return "v2"

        def _append_target_hidden_to_draft_kv_by_loc(self, **tensors):
            return "by loc"

    DFlashWorkerV2.__module__ = V2_MODULE
    module = types.ModuleType(V2_MODULE)
    setattr(module, V2_NAME, DFlashWorkerV2)
    monkeypatch.setitem(sys.modules, V2_MODULE, module)
    info = types.ModuleType(INFO_MODULE)
    monkeypatch.setitem(sys.modules, INFO_MODULE, info)
    monkeypatch.setattr(shims, "_installed_sglang", lambda: "0.5.17")
    shims.uninstall()
    assert shims.install().active
    yield DFlashWorkerV2
    shims.uninstall()
    sys.modules.pop(catalog.DFLASH_WORKER, None)


def _v1_worker() -> type:
    return importlib.import_module(catalog.DFLASH_WORKER).DFlashWorker


def _define_fork_classes(base: type) -> tuple[type, type]:
    class MetricsWorker(base):  # type: ignore[misc, valid-type]
        def _prepare_for_speculative_decoding(self, batch, draft_input):
            return "dead"

        def _append_target_hidden_to_draft_kv(self, batch, draft_input):
            return "dead"

        def forward_batch_generation(self, batch, **kwargs):  # the V1 contract
            return super().forward_batch_generation(batch)

    class Snapshots(MetricsWorker):
        def _append_target_hidden_to_draft_kv(self, batch, draft_input):
            return "dead too"

    return MetricsWorker, Snapshots


def _shim_messages(caught: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in caught if w.category is shims.DFlashMigrationWarning]


def test_dead_overrides_warn_once_per_class_and_method_at_class_creation(v2_worker: type) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        base = _v1_worker()
        assert base is v2_worker
        metrics, snapshots = _define_fork_classes(base)
        _define_fork_classes(_v1_worker())  # same qualified names again: nothing new
        metrics(), snapshots()  # instances, calls: no shim code runs, no warning
        metrics().forward_batch_generation(None)
    messages = [m for m in _shim_messages(caught) if m.split(":")[0] in ("DFM106", "DFM107", "DFM108")]
    prefix = f"{__name__}._define_fork_classes.<locals>"
    assert sorted(m.split(":")[0] for m in messages) == ["DFM106", "DFM107", "DFM107", "DFM108"], messages
    dead = [m for m in messages if "never calls" in m]
    assert any(f"class `{prefix}.MetricsWorker` defines `_prepare_for_speculative_decoding`" in m
               and catalog.get("DFM106").guidance in m and "DFlashVerifyInput.prepare_for_verify" in m for m in dead)
    assert any(f"class `{prefix}.Snapshots` defines `_append_target_hidden_to_draft_kv`" in m
               and "_append_target_hidden_to_draft_kv_by_loc" in m for m in dead)
    changed = [m for m in messages if m.startswith("DFM108")][0]
    assert f"class `{prefix}.MetricsWorker` overrides `forward_batch_generation`" in changed and "on_publish" in changed
    located = [w for w in caught if str(w.message).startswith("DFM106")][0]
    assert located.filename == __file__  # points at the dead method's definition
    assert issubclass(metrics, v2_worker) and metrics().forward_batch_generation(None) == "v2"


def test_a_v2_style_override_is_not_flagged(v2_worker: type) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")

        class Live(_v1_worker()):  # type: ignore[misc]
            def forward_batch_generation(self, batch, on_publish=None, **kwargs):
                return super().forward_batch_generation(batch, on_publish=on_publish)

    assert [m.split(":")[0] for m in _shim_messages(caught)] == ["DFM101", "DFM102"]


def test_strict_mode_makes_a_dead_override_an_error(v2_worker: type, monkeypatch: pytest.MonkeyPatch) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        base = _v1_worker()
    monkeypatch.setenv(_switches.ENV_STRICT, "1")
    with pytest.raises(shims.DFlashMigrationWarning, match="DFM106: .*never calls"):
        class Dead(base):  # type: ignore[misc, valid-type]
            def _prepare_for_speculative_decoding(self, batch, draft_input):
                return None


def test_uninstall_removes_the_class_creation_hook(v2_worker: type) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _v1_worker()
    assert "__init_subclass__" in v2_worker.__dict__
    shims.uninstall()
    assert "__init_subclass__" not in v2_worker.__dict__
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _define_fork_classes(v2_worker)
    assert _shim_messages(caught) == []


def test_removed_name_fails_where_it_is_imported(v2_worker: type) -> None:
    source = f"import os\n\nfrom {INFO_MODULE} import {REMOVED}\n"
    # the warning names the importing line and the switch before the error is raised
    with pytest.warns(shims.DFlashMigrationWarning, match=rf"DFM104: .*at /fork/acme/kv.py:3.*{_switches.ENV_DEFER_REMOVED}=1"), \
            pytest.raises(RemovedNameError) as caught:
        exec(compile(source, "/fork/acme/kv.py", "exec"), {})
    message = str(caught.value)
    assert message.startswith("DFM104: ") and "imported at /fork/acme/kv.py:3" in message
    assert "dflash-migrate lint" in message and f"{_switches.ENV_DEFER_REMOVED}=1" in message


def test_with_the_switch_a_removed_name_fails_only_when_called(v2_worker: type,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(_switches.ENV_DEFER_REMOVED, "1")
    namespace: dict = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(compile(f"from {INFO_MODULE} import {REMOVED}", __file__, "exec"), namespace)
    stand_in = namespace[REMOVED]
    notes = [w for w in caught if str(w.message).startswith("DFM104: ")]
    assert len(notes) == 1 and "stand-in" in str(notes[0].message)
    with pytest.raises(RemovedNameError, match=rf"called at {__file__}:\d+.*{_switches.ENV_DEFER_REMOVED}=1") as raised:
        stand_in(prefix_lens=None)
    assert "makes it import as a stand-in" not in str(raised.value)  # already deferred: no advice to defer
