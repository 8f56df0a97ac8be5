"""A whole fork under the shim, on real sglang releases (issue 20): tests/data/forks/acme_spec.

The fixture is a team's unmigrated extension package (see its README): ``compat.py`` imports
the V1 worker and draft input, ``workers.py`` overrides two V1-only worker methods, ``kv.py``
imports the removed ``_compute_paged_keep_slots`` at module level and ``registry.py`` maps
names to worker classes. One probe process per release imports it module by module twice:
as it is, and with ``DFLASH_MIGRATE_SHIM_DEFER_REMOVED=1`` (``tests/shim_sglang_probe.py fork``);
a copy migrated by ``fix --unsafe-fixes`` is imported on 0.5.23 without the shim.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import sglang_env
from codemod_helpers import unwrapped

from migrator import catalog
from shims import _switches

pytestmark = pytest.mark.slow

FORK = sglang_env.REPO / "tests" / "data" / "forks" / "acme_spec"
PACKAGE = "acme_spec"
RELEASES = ("0.5.14", "0.5.17", "0.5.20", "0.5.23")
METRICS = "acme_spec.workers.MetricsDFlashWorker"
SNAPSHOT = "acme_spec.workers.SnapshotDFlashWorker"
DEAD = {(METRICS, "_prepare_for_speculative_decoding"): "DFM106",
        (METRICS, "_append_target_hidden_to_draft_kv"): "DFM107",
        (SNAPSHOT, "_append_target_hidden_to_draft_kv"): "DFM107"}
CHANGED = {(METRICS, "forward_batch_generation"): "DFM108"}
NEEDS_KV = {f"{PACKAGE}.kv", f"{PACKAGE}.workers", f"{PACKAGE}.registry"}


def _line_of(relative: str, text: str) -> int:
    lines = (FORK / relative).read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line)


@pytest.fixture(scope="module", params=RELEASES)
def fork_run(request: pytest.FixtureRequest) -> dict:
    return sglang_env.probe(request.param, "fork", {"root": str(FORK), "package": PACKAGE,
                                                    "modes": ["default", "defer"]})


def test_removed_helper_fails_the_import_that_uses_it(fork_run: dict) -> None:
    assert fork_run["status"] == "active"
    imports = fork_run["default"]["imports"]
    assert {name for name, error in imports.items() if error is None} == {
        PACKAGE, f"{PACKAGE}.compat", f"{PACKAGE}.metrics", f"{PACKAGE}.debug", f"{PACKAGE}.plugin"}, imports
    where = f"kv.py:{_line_of('acme_spec/kv.py', 'import _compute_paged_keep_slots')}"
    for name in NEEDS_KV:
        error = imports[name]
        assert error["shim"] and error["type"] == "RemovedNameError", error
        message = error["message"]
        assert message.startswith("DFM104: ") and where in message, message
        assert "dflash-migrate lint" in message and f"{_switches.ENV_DEFER_REMOVED}=1" in message


def test_with_the_switch_the_whole_fork_imports_and_resolves_to_v2(fork_run: dict) -> None:
    deferred = fork_run["defer"]
    assert all(error is None for error in deferred["imports"].values()), deferred["imports"]
    registry = deferred["registry"]
    assert set(registry) == {"stock", "metrics", "snapshot"}
    assert all(entry["subclass_of_v2"] for entry in registry.values()), registry
    assert registry["stock"]["is_v2"] and registry["metrics"]["class"] == METRICS
    assert deferred["compat_draft_input_is_v2"] is True
    call = deferred["kv_call"]  # the helper fails only when called, with the same error
    assert call["shim"] and call["type"] == "RemovedNameError", call
    assert f"called at {FORK / 'acme_spec' / 'kv.py'}:" in call["message"]
    stand_in = [w for w in deferred["warnings"] if w["message"].startswith("DFM104: ")]
    assert len(stand_in) == 1 and stand_in[0]["file"].endswith("kv.py"), stand_in


def _override_warnings(run: dict) -> dict[tuple[str, str], list[dict]]:
    found: dict[tuple[str, str], list[dict]] = {}
    for warning in run["warnings"]:
        for (owner, method), code in {**DEAD, **CHANGED}.items():
            text = warning["message"]
            if text.startswith(f"{code}: ") and f"class `{owner}` " in text and f"`{method}`" in text.split(";", 2)[-1]:
                found.setdefault((owner, method), []).append(warning)
    return found


def test_each_dead_override_gets_exactly_one_warning(fork_run: dict) -> None:
    run = fork_run["defer"]
    found = _override_warnings(run)
    assert set(found) == set(DEAD) | set(CHANGED), [w["message"][:120] for w in run["warnings"]]
    for (owner, method), warnings in found.items():
        assert len(warnings) == 1, (owner, method, warnings)
        warning = warnings[0]
        assert warning["file"].endswith("workers.py")
        class_line = _line_of("acme_spec/workers.py", f"class {owner.rpartition('.')[2]}(")
        assert warning["line"] == _line_of("acme_spec/workers.py", f"def {method}(") or warning["line"] > class_line
        text = warning["message"]
        if (owner, method) in DEAD:
            entry = catalog.get(DEAD[owner, method])
            assert "never calls" in text and entry.guidance in text, text
        else:
            assert catalog.get("DFM108").guidance in text and "on_publish" in text
    codes = [w["message"].split(":")[0] for w in run["warnings"]]
    assert codes.count("DFM106") == 1 and codes.count("DFM107") == 2 and codes.count("DFM108") == 1


def test_the_fork_migrated_by_the_codemod_imports_without_the_shim(tmp_path: Path) -> None:
    """``fix --unsafe-fixes`` moves kv.py's import of the removed helper into ``keep_slots``
    (DFM104, MIGRATION.md "Removed names without a replacement"): every module imports on
    0.5.23 without the shim and only a call of ``keep_slots`` fails."""
    migrated = tmp_path / "acme_spec"
    shutil.copytree(FORK, migrated)
    fix = subprocess.run([sys.executable, "-m", "migrator", "fix", str(migrated), "--allow-dirty", "--unsafe-fixes",
                          "--target-version", "0.5.23"], capture_output=True, text=True, timeout=300)
    assert fix.returncode in (0, 1), fix.stderr
    kv = (migrated / PACKAGE / "kv.py").read_text()
    assert f"{catalog.todo_comment(catalog.get('DFM104'))}\n    from sglang" in unwrapped(kv)  # the TODO stays, above the moved import
    result = sglang_env.probe("0.5.23", "fork", {"root": str(migrated), "package": PACKAGE, "modes": ["no-shim"]})
    imports = result["no-shim"]["imports"]
    assert all(error is None for error in imports.values()), imports
    assert all(entry["subclass_of_v2"] for entry in result["no-shim"]["registry"].values())
    call = result["no-shim"]["kv_call"]  # only the call fails, with sglang's own ImportError
    assert call["type"] == "ImportError" and not call["shim"], call
    assert "cannot import name '_compute_paged_keep_slots'" in call["message"], call


SWALLOWING_COMPAT = """\
try:
    from sglang.srt.speculative.dflash_info import DFlashDraftInput, _compute_paged_keep_slots
    from sglang.srt.speculative.dflash_worker import DFlashWorker
    HAS_DFLASH = True
except ImportError:
    DFlashDraftInput = DFlashWorker = _compute_paged_keep_slots = None
    HAS_DFLASH = False
"""


def test_a_swallowed_removed_name_still_leaves_one_warning(tmp_path: Path) -> None:
    """The removed helper is imported in the same ``try`` as names the shim aliases; the
    fork's ``except ImportError`` swallows the shim's RemovedNameError, so the flag goes False
    with no error: the shim warned as it raised, once per importing module and name."""
    package = tmp_path / "swallow"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "compat.py").write_text(SWALLOWING_COMPAT)
    # a second module, importing it twice: one more warning, for its first import
    (package / "again.py").write_text("from . import compat\n" + SWALLOWING_COMPAT + SWALLOWING_COMPAT)
    result = sglang_env.probe("0.5.23", "fork", {"root": str(tmp_path), "package": "swallow", "modes": ["default"]})
    run = result["default"]
    assert all(error is None for error in run["imports"].values()), run["imports"]  # swallowed: no error
    raised = [w for w in run["warnings"] if w["message"].startswith("DFM104: ")]
    assert sorted((Path(w["file"]).name, w["line"]) for w in raised) == [("again.py", 3), ("compat.py", 2)], raised
    for warning in raised:
        module = "swallow." + Path(warning["file"]).stem
        assert f"`{module}` imports `_compute_paged_keep_slots` at " in warning["message"]
        assert f"{_switches.ENV_DEFER_REMOVED}=1" in warning["message"]
