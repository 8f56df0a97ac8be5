"""Runtime shim behaviour that needs no sglang: switches, decisions, install/uninstall, .pth hook."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import shims
from migrator import catalog
from shims import _switches
from shims.errors import RemovedAttributeError, RemovedCallFormError, RemovedNameError, ShimRemovedAPIError
from shims.server_args import decide

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _clean(monkeypatch: pytest.MonkeyPatch):
    for name in (_switches.ENV_STRICT, _switches.ENV_SILENT, _switches.ENV_ACTIVATE, catalog.ENV_SPEC_V2):
        monkeypatch.delenv(name, raising=False)
    shims.uninstall()
    yield
    shims.uninstall()


@pytest.mark.parametrize("value", ["0", "false", "FALSE", "no", "N", " n "])
@pytest.mark.parametrize("algorithm", ["DFLASH", "dflash", "EAGLE", "EAGLE3", "NEXTN", "STANDALONE"])
def test_falsy_env_disables_overlap_for_speculative_runs(value: str, algorithm: str) -> None:
    decision = decide(value, algorithm, current=False, explicit=False, release="0.5.17")
    assert decision.set_disable_overlap is True
    assert decision.message and "DFM201" in decision.message and catalog.DISABLE_OVERLAP_FLAG in decision.message
    assert "non-overlap" in decision.message and f"{catalog.DOC}#dfm201" in decision.message


@pytest.mark.parametrize("value", ["1", "true", "Yes", "y", "garbage"])
def test_truthy_or_invalid_env_changes_nothing_but_notes_it(value: str) -> None:
    decision = decide(value, "DFLASH", current=False, explicit=False, release="0.5.23")
    assert decision.set_disable_overlap is False
    assert decision.message and "DFM201" in decision.message and "nothing" in decision.message


def test_env_ignored_for_non_speculative_or_other_algorithms() -> None:
    assert decide("0", None, current=False, explicit=False).message is None
    assert decide("0", "NGRAM", current=False, explicit=False).set_disable_overlap is False
    assert decide(None, "DFLASH", current=False, explicit=False).message is None


def test_explicit_false_wins_over_falsy_env() -> None:
    decision = decide("0", "DFLASH", current=False, explicit=True)
    assert decision.set_disable_overlap is False
    assert decision.message and "explicitly" in decision.message


def test_already_disabled_needs_no_change() -> None:
    assert decide("0", "DFLASH", current=True, explicit=True).set_disable_overlap is False


def test_notify_warns_once_per_key() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _switches.notify("k1", "first")
        _switches.notify("k1", "first again")
        _switches.notify("k2", "second")
    messages = [str(w.message) for w in caught if w.category is shims.DFlashMigrationWarning]
    assert messages == ["first", "second"]
    assert issubclass(shims.DFlashMigrationWarning, DeprecationWarning)


def test_strict_raises_every_time_and_silent_is_quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(_switches.ENV_STRICT, "1")
    for _ in range(2):
        with pytest.raises(shims.DFlashMigrationWarning, match=_switches.ENV_STRICT):
            _switches.notify("k", "legacy")
    monkeypatch.delenv(_switches.ENV_STRICT)
    monkeypatch.setenv(_switches.ENV_SILENT, "true")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _switches.notify("k3", "hidden")
    assert not caught


def test_removed_api_errors_name_code_and_fix() -> None:
    for cls, code, base in ((RemovedNameError, "DFM104", ImportError), (RemovedAttributeError, "DFM105", AttributeError),
                            (RemovedCallFormError, "DFM110", TypeError)):
        err = cls(code)
        assert isinstance(err, ShimRemovedAPIError) and isinstance(err, base)
        assert err.code == code and str(err).startswith(f"{code}: ")
        assert catalog.get(code).guidance in str(err) and f"{catalog.DOC}#{code.lower()}" in str(err)


def test_install_uninstall_idempotent_and_lazy() -> None:
    first = shims.install()
    second = shims.install()
    finders = [f for f in sys.meta_path if type(f).__name__ == "ShimFinder"]
    assert len(finders) == 1
    assert first.active == second.active
    shims.uninstall()
    shims.uninstall()
    assert not any(type(f).__name__ == "ShimFinder" for f in sys.meta_path)
    assert not shims.is_active()


def _run(code: str, env: dict[str, str], site: Path | None = None) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith(("DFLASH_MIGRATE_SHIM", "SGLANG_"))}
    full["PYTHONPATH"] = str(REPO)
    full.update(env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full, cwd=str(REPO))


def test_install_imports_neither_sglang_nor_torch() -> None:
    proc = _run("import sys, shims; s = shims.install(); "
                "print(sorted(m for m in sys.modules if m.split('.')[0] in ('sglang', 'torch')))", {})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_pth_line_costs_nothing_unless_opted_in() -> None:
    line = (REPO / "shims" / "dflash_migrate_shim.pth").read_text().strip()
    assert line.startswith("import ") and "\n" not in line
    probe = f"{line}\nimport sys; print('shims' in sys.modules, 'migrator' in sys.modules)"
    off = _run(probe, {})
    assert off.stdout.strip() == "False False", off.stderr
    on = _run(probe + "\nimport shims; print(shims.is_active() or shims.status().reason)", {_switches.ENV_ACTIVATE: "1"})
    assert on.returncode == 0, on.stderr
    assert on.stdout.split()[:2] == ["True", "True"]
    assert on.stdout.split()[2] in ("True", "inactive:")
    disabled = _run(f"{line}\nimport shims; print(shims.is_active(), shims.status().reason)", {_switches.ENV_ACTIVATE: "0"})
    assert disabled.returncode == 0, disabled.stderr
    assert disabled.stdout.startswith("False not installed")


def test_doctor_report_without_sglang_is_complete() -> None:
    from shims.doctor import doctor_report, render_doctor

    report = doctor_report({catalog.ENV_SPEC_V2: "0"})
    assert set(report) >= {"sglang_version", "has_v1_worker", "has_v2_worker", "env_spec_v2", "shim", "dflash_launch"}
    assert report["env_spec_v2"]["parsed"] is False
    assert catalog.DISABLE_OVERLAP_ARG in report["dflash_launch"]
    assert catalog.ENV_SPEC_V2 in render_doctor(report)


def test_plugin_algorithms_are_covered_when_sglang_says_so() -> None:
    """A fork's algorithm registered through SpeculativeAlgorithm.register (found on the H200:
    `COUNTING_DFLASH` kept overlap on) counts when SGLang resolves it to DFLASH/EAGLE."""
    assert decide("0", "COUNTING_DFLASH", current=False, explicit=False).set_disable_overlap is False
    covered = decide("0", "COUNTING_DFLASH", current=False, explicit=False, is_covered=lambda name: name == "COUNTING_DFLASH")
    assert covered.set_disable_overlap is True and "COUNTING_DFLASH" in (covered.message or "")
    assert decide("0", "NGRAM", current=False, explicit=False, is_covered=lambda name: False).set_disable_overlap is False


def test_prepare_for_verify_is_only_wrapped_in_strict_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    """SGLang's V2 worker calls prepare_for_verify every decode step: no shim code there
    unless DFLASH_MIGRATE_SHIM_STRICT=1 asks for the V1-call-form check."""
    import types

    from shims import aliases
    from shims._patching import PatchLog

    def make_module() -> types.ModuleType:
        module = types.ModuleType(catalog.DFLASH_INFO)

        class DFlashVerifyInput:
            def prepare_for_verify(self, batch, target_worker):
                return "sglang's own code"

        setattr(module, catalog.VERIFY_INPUT.rpartition(".")[2], DFlashVerifyInput)
        return module

    monkeypatch.delenv(_switches.ENV_STRICT, raising=False)
    relaxed = make_module()
    aliases.patch_info_module(relaxed, PatchLog())
    verify_cls = getattr(relaxed, catalog.VERIFY_INPUT.rpartition(".")[2])
    assert not getattr(verify_cls.prepare_for_verify, "__dflash_migrate_shim__", False)
    monkeypatch.setenv(_switches.ENV_STRICT, "1")
    strict = make_module()
    aliases.patch_info_module(strict, PatchLog())
    verify_cls = getattr(strict, catalog.VERIFY_INPUT.rpartition(".")[2])
    with pytest.raises(RemovedCallFormError, match="DFM110"):
        verify_cls().prepare_for_verify(object(), 16)
    assert verify_cls().prepare_for_verify(object(), object()) == "sglang's own code"
