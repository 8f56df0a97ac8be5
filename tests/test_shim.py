"""Runtime shim behaviour that needs no sglang: switches, decisions, install/uninstall, .pth hook."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import shutil
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
    for name in (_switches.ENV_STRICT, _switches.ENV_SILENT, _switches.ENV_ACTIVATE, _switches.ENV_DEFER_REMOVED,
                 catalog.ENV_SPEC_V2):
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


_RANK_SCRIPT = """
import threading, warnings
from shims import _switches
warnings.simplefilter("always")
seen = []
def record(message, *args, **kwargs):
    seen.append(str(message))
warnings.showwarning = record
_switches.notify("before", "outside any scheduler")
def run_scheduler_process(server_args, port_args, gpu_id, tp_rank, *rest):
    _switches.notify("inside", "while the rank starts")
run_scheduler_process(None, None, 0, {rank})
worker = threading.Thread(target=_switches.notify, args=("thread", "from another thread later"))
worker.start(); worker.join()
print(repr(seen))
"""


@pytest.mark.parametrize("rank", [0, 1])
def test_notify_names_the_scheduler_rank_of_its_process(rank: int) -> None:
    """Under tensor parallelism each scheduler rank is its own process and warns once; the
    message names the rank (SGLang's ``run_scheduler_process(..., tp_rank, ...)``), also for a
    warning shown later from another thread of that process, and nothing outside a scheduler."""
    out = subprocess.run([sys.executable, "-c", _RANK_SCRIPT.format(rank=rank)], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parents[1], check=True).stdout
    seen = ast.literal_eval(out)
    assert seen == ["outside any scheduler", f"while the rank starts [scheduler TP rank {rank}]",
                    f"from another thread later [scheduler TP rank {rank}]"]


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


def test_install_uninstall_idempotent_and_lazy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shims, "_installed_sglang", lambda: "0.5.17")
    first = shims.install()
    second = shims.install()
    finders = [f for f in sys.meta_path if type(f).__name__ == "ShimFinder"]
    assert len(finders) == 1
    assert first.active and second.active
    shims.uninstall()
    shims.uninstall()
    assert not any(type(f).__name__ == "ShimFinder" for f in sys.meta_path)
    assert not shims.is_active()


def test_without_sglang_install_says_so_and_registers_nothing(caplog: pytest.LogCaptureFixture) -> None:
    """Issue 15: with sglang absent the shim reported itself active."""
    assert importlib.util.find_spec("sglang") is None, "this test needs an environment without sglang"
    with caplog.at_level("WARNING", logger="dflash_migrate.shim"):
        state = shims.install()
    assert state.active is False and state.reason.startswith("inactive: sglang is not installed")
    assert not any(type(f).__name__ == "ShimFinder" for f in sys.meta_path)
    assert [r.getMessage() for r in caplog.records] == [f"dflash-migrate shim {state.reason}"]


def _run(code: str, env: dict[str, str], cwd: Path = REPO, pythonpath: str | None = str(REPO),
         flags: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith(("DFLASH_MIGRATE_SHIM", "SGLANG_", "PYTHONPATH"))}
    if pythonpath:
        full["PYTHONPATH"] = pythonpath
    full.update(env)
    return subprocess.run([sys.executable, *flags, "-c", code], capture_output=True, text=True, env=full,
                          cwd=str(cwd), timeout=120)


def test_install_imports_neither_sglang_nor_torch(tmp_path: Path) -> None:
    fake = tmp_path / "sglang"  # found by find_spec, explodes if imported
    fake.mkdir()
    (fake / "__init__.py").write_text("raise RuntimeError('sglang was imported')\n")
    proc = _run("import sys, shims; s = shims.install(); print(s.active, "
                "sorted(m for m in sys.modules if m.split('.')[0] in ('sglang', 'torch')))", {},
                pythonpath=os.pathsep.join([str(tmp_path), str(REPO)]))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "True []"


def _editable_site(tmp_path: Path) -> Path:
    """A site folder laid out as ``pip install -e .`` leaves it: the .pth line, the hook file and
    our dist-info whose PEP 610 direct_url.json names the source tree."""
    site_dir = tmp_path / "site-packages"
    info = site_dir / "dflash_migrate-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "direct_url.json").write_text(json.dumps({"url": REPO.as_uri(), "dir_info": {"editable": True}}))
    shutil.copy(REPO / "shims" / "dflash_migrate_shim.pth", site_dir / "dflash_migrate_shim.pth")
    shutil.copy(REPO / "shims" / "_pth.py", site_dir / "dflash_migrate_shim_hook.py")
    return site_dir


_SITE_PROBE = ("import site, sys; site.addsitedir(sys.argv[1]); "
               "print('shims' in sys.modules, 'migrator' in sys.modules, "
               "sys.modules['shims'].status().reason if 'shims' in sys.modules else '-')")


def _hook(site_dir: Path, value: str | None, cwd: Path, pythonpath: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {} if value is None else {_switches.ENV_ACTIVATE: value}
    full = {k: v for k, v in os.environ.items() if not k.startswith(("DFLASH_MIGRATE_SHIM", "SGLANG_", "PYTHONPATH"))}
    full.update(env)
    if pythonpath:
        full["PYTHONPATH"] = pythonpath
    # -S: the test venv's own site folder (with its own hook) is not processed; addsitedir
    # then processes ours exactly as site.py does at start-up.
    return subprocess.run([sys.executable, "-S", "-c", _SITE_PROBE, str(site_dir)], capture_output=True,
                          text=True, env=full, cwd=str(cwd), timeout=120)


@pytest.mark.parametrize("value", [None, "", "0", "false", "no", "garbage", "11"])
def test_pth_hook_imports_nothing_unless_switched_on(tmp_path: Path, value: str | None) -> None:
    """Issue 15: any value of the variable, =0 included, imported the shim and the catalog."""
    proc = _hook(_editable_site(tmp_path), value, tmp_path)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert proc.stdout.split()[:2] == ["False", "False"]


@pytest.mark.parametrize("value", ["1", "true", " YES ", "y"])
def test_pth_hook_installs_the_shim_when_switched_on(tmp_path: Path, value: str) -> None:
    proc = _hook(_editable_site(tmp_path), value, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split()[:2] == ["True", "True"]
    assert "inactive: sglang is not installed" in proc.stdout  # and it says so, in one line
    assert proc.stderr.count("\n") == 1 and "sglang is not installed" in proc.stderr, proc.stderr


def test_pth_hook_never_runs_a_projects_own_shims_package(tmp_path: Path) -> None:
    """Issue 12 item 8: a project with its own ``shims/`` (and ``migrator/``) on PYTHONPATH."""
    project = tmp_path / "project"
    for name in ("shims", "migrator"):
        (project / name).mkdir(parents=True)
        (project / name / "__init__.py").write_text(f"raise RuntimeError('the project {name} ran')\n")
    site_dir = _editable_site(tmp_path)
    proc = _hook(site_dir, "1", project, pythonpath=str(project))
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and "the project" not in proc.stderr + proc.stdout, proc.stderr
    assert proc.stdout.split()[:2] == ["True", "True"]
    assert f"`shims` at {project / 'shims'}" in proc.stderr and f"installed packages from {REPO}" in proc.stderr
    off = _hook(site_dir, "0", project, pythonpath=str(project))
    assert off.returncode == 0 and off.stderr == "" and off.stdout.split()[:2] == ["False", "False"]


def test_on_values_are_spelled_alike_everywhere() -> None:
    """The .pth line and the hook may import nothing, so they spell the values themselves."""
    from shims import _pth

    truthy = tuple(v for v in ("1", "true", "yes", "y", "on", "t") if catalog.sglang_bool(v) is True)
    assert _pth.ON_VALUES == _switches.ON_VALUES == truthy
    assert str(truthy).replace("'", '"') in (REPO / "shims" / "dflash_migrate_shim.pth").read_text()


def test_launch_server_without_sglang_exits_with_one_line(tmp_path: Path) -> None:
    """Issue 13: a raw 17-line traceback before."""
    proc = _run("import runpy, sys; sys.argv = ['x', '--help']; runpy.run_module('shims.launch_server', "
                "run_name='__main__')", {}, cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert "sglang is not installed" in proc.stderr and "shims.launch_server" in proc.stderr


def test_doctor_report_without_sglang_is_complete() -> None:
    from shims.doctor import doctor_report, render_doctor

    report = doctor_report({catalog.ENV_SPEC_V2: "0"})
    assert set(report) >= {"sglang_version", "has_v1_worker", "has_v2_worker", "env_spec_v2", "shim", "dflash_launch"}
    assert report["env_spec_v2"]["parsed"] is False
    assert catalog.DISABLE_OVERLAP_ARG in report["dflash_launch"]
    text = render_doctor(report)
    assert catalog.ENV_SPEC_V2 in text
    assert "sglang: not installed in this environment: the shim has nothing to act on" in text


def test_doctor_says_the_installed_shim_is_installed() -> None:
    """Issue 13: doctor printed "not installed" while the package and its hook were installed."""
    from shims.doctor import doctor_report, render_doctor

    report = doctor_report({})
    text = render_doctor(report)
    assert all(line.strip() != "not installed" for line in text.splitlines()), text
    assert report["shim"]["package"] == str(REPO / "shims")
    hook = report["shim"]["pth_hook"]  # the test venv has the project installed (pip install -e)
    assert hook and Path(hook).name == "dflash_migrate_shim.pth"
    assert f"shim: installed ({REPO / 'shims'}); .pth hook {hook}" in text
    assert "DFLASH_MIGRATE_SHIM not on: new Python processes run without the shim" in text
    on = render_doctor(doctor_report({_switches.ENV_ACTIVATE: "1"}))
    assert "DFLASH_MIGRATE_SHIM on: new Python processes install the shim" in on


def test_doctor_shows_the_removed_names_mode() -> None:
    from shims.doctor import doctor_report

    assert "fail on import (default" in doctor_report({})["shim"]["removed_names"]
    deferred = doctor_report({_switches.ENV_DEFER_REMOVED: "1"})["shim"]["removed_names"]
    assert "stand-ins that raise when called" in deferred and _switches.ENV_DEFER_REMOVED in deferred


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
