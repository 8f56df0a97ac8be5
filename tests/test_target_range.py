"""Issue 30: a run's target is a set of sglang releases (``migrator.catalog.target``): one release, a
range, a PEP 440 specifier, or the fork's own sglang pin; the summary and every report name
the releases and where they came from."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from codemod_helpers import write_tree

from migrator import catalog

REPO = Path(__file__).resolve().parent.parent
#: Every V2 release the catalog knows, first to newest (from its release table).
V2 = tuple(r for r in catalog.RELEASES if r in catalog.V2)
NEWEST = catalog.NEWEST_RELEASE
V1_IMPORT = "from sglang.srt.speculative.dflash_worker import DFlashWorker\n"


def cli(*args: str, cwd: Path, site: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The command line without any sglang on the path (``site``: a fake installed one)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(str(p) for p in (site, REPO) if p)}
    return subprocess.run([sys.executable, "-m", "migrator", *args], capture_output=True, text=True, cwd=cwd, env=env)


def test_parse_one_release_a_range_and_a_specifier() -> None:
    from migrator.catalog import target as targets

    assert targets.parse("0.5.17", "--target-version").releases == ("0.5.17",)
    assert targets.parse(f"0.5.14..{NEWEST}", "--target-version").releases == V2
    assert targets.parse(">=0.5.16,<0.5.22", "x").releases == tuple(f"0.5.{n}" for n in range(16, 22))
    assert targets.parse("!=0.5.18,>=0.5.17,<0.5.20", "x").label == "0.5.17, 0.5.19"
    assert targets.v2_releases() == V2 and V2[-1] == catalog.NEWEST_RELEASE


@pytest.mark.parametrize(("text", "error"), [
    ("0.5.20..0.5.16", "ends before it starts"),
    ("0.5.13..0.5.20", "older than 0.5.14"),
    ("<0.5.14", "allows no V2 release"),
    (">=0.5.x", "neither a release, a range"),
])
def test_bad_targets_are_usage_errors(tmp_path: Path, text: str, error: str) -> None:
    (tmp_path / "a.py").write_text(V1_IMPORT)
    proc = cli("--check", "--target-version", text, ".", cwd=tmp_path)
    assert proc.returncode == 2 and error in proc.stderr and "--target-version" in proc.stderr, proc.stderr


def _summary(proc: subprocess.CompletedProcess[str]) -> str:
    return proc.stderr.strip().splitlines()[-1]


def test_without_a_pin_the_target_is_every_v2_release_and_the_summary_says_why(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(V1_IMPORT)
    summary = _summary(cli("--check", ".", cwd=tmp_path))
    assert summary.endswith(f"(target sglang 0.5.14..{NEWEST} (no sglang pin found: every V2 release the catalog knows))")


def test_the_pin_in_pyproject_and_requirements_is_intersected(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.py": V1_IMPORT,
                          "pyproject.toml": '[project]\nname = "x"\ndependencies = ["sglang[all]>=0.5.16", "numpy"]\n',
                          "requirements-serving.txt": "numpy\nsglang<0.5.21  # the cluster's release\n"})
    summary = _summary(cli("--check", ".", cwd=tmp_path))
    assert summary.endswith("(target sglang 0.5.16..0.5.20 (sglang[all]>=0.5.16 in pyproject.toml; "
                            "sglang<0.5.21 in requirements-serving.txt))"), summary


def test_pins_with_no_common_release_are_a_usage_error_naming_both_files(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.py": V1_IMPORT,
                          "pyproject.toml": '[project]\nname = "x"\ndependencies = ["sglang>=0.5.20"]\n',
                          "requirements.txt": "sglang==0.5.17\n"})
    proc = cli("--check", ".", cwd=tmp_path)
    assert proc.returncode == 2 and not proc.stdout
    assert "pyproject.toml" in proc.stderr and "requirements.txt" in proc.stderr and "no common release" in proc.stderr


def test_a_v1_only_pin_targets_every_v2_release_and_says_why(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.py": V1_IMPORT, "requirements.txt": "sglang==0.5.13\n"})
    summary = _summary(cli("--check", ".", cwd=tmp_path))
    assert (f"target sglang 0.5.14..{NEWEST} (sglang==0.5.13 in requirements.txt allows no V2 release: every V2 "
            "release the catalog knows)") in summary, summary


def test_target_version_in_the_config_takes_a_range_and_the_flag_wins(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.py": V1_IMPORT,
                          "pyproject.toml": '[project]\ndependencies = ["sglang>=0.5.20"]\n'
                                            '[tool.dflash-migrate]\ntarget-version = ">=0.5.16,<0.5.18"\n'})
    assert "(target sglang 0.5.16..0.5.17 (target-version in " in _summary(cli("--check", ".", cwd=tmp_path))
    flagged = _summary(cli("--check", "--target-version", "0.5.19", ".", cwd=tmp_path))
    assert "(target sglang 0.5.19 (--target-version 0.5.19)" in flagged


def test_an_installed_sglang_does_not_narrow_the_range_and_is_named_outside_it(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "sglang-0.5.15.dist-info").mkdir(parents=True)
    (site / "sglang-0.5.15.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: sglang\nVersion: 0.5.15\n")
    project = tmp_path / "p"
    write_tree(project, {"a.py": V1_IMPORT, "requirements.txt": "sglang>=0.5.17\n"})
    summary = _summary(cli("--check", ".", cwd=project, site=site))
    assert f"target sglang 0.5.17..{NEWEST} (sglang>=0.5.17 in requirements.txt; the installed sglang 0.5.15 lies " \
           "outside the target)" in summary, summary
    (project / "requirements.txt").unlink()
    assert "outside" not in _summary(cli("--check", ".", cwd=project, site=site))  # 0.5.15 is in every V2 release


def test_reports_name_the_range_and_its_source(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.py": V1_IMPORT, "requirements.txt": "sglang>=0.5.22\n"})
    document = json.loads(cli("lint", "--format", "json", ".", cwd=tmp_path).stdout)
    from_22 = [r for r in catalog.RELEASES if catalog.parse_version(r) >= (0, 5, 22)]  # up to the newest
    assert document["target"] == {"releases": from_22, "source": "sglang>=0.5.22 in requirements.txt"}
    sarif = json.loads(cli("lint", "--format", "sarif", ".", cwd=tmp_path).stdout)
    assert sarif["runs"][0]["properties"]["target"]["releases"] == from_22
    text = cli("lint", ".", cwd=tmp_path).stdout.strip().splitlines()[-1]
    assert f"(target sglang 0.5.22..{NEWEST} (sglang>=0.5.22 in requirements.txt))" in text


PROBE = "import sys; from migrator.cli.main import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n" \
        "print('PACKAGING', 'packaging' in sys.modules)\n"


@pytest.mark.parametrize(("files", "loaded"), [({}, False), ({"requirements.txt": "sglang>=0.5.17\n"}, True)])
def test_packaging_is_imported_only_where_a_pin_or_range_is_parsed(tmp_path: Path, files: dict, loaded: bool) -> None:
    write_tree(tmp_path, {"a.py": V1_IMPORT, **files})
    for args in (["--check", "."], ["lint", "."]):
        proc = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, cwd=tmp_path,
                              env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
        assert f"PACKAGING {loaded}" in proc.stdout, (args, proc.stdout, proc.stderr)
