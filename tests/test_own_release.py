"""Issue 45: each file's own release. Recipes kept per release in version-named folders, an
image tag in a Dockerfile: a file for a release before the V2 worker gets findings and no
V2-era fix (removing ``SGLANG_ENABLE_SPEC_V2: "1"`` turns V2 off on 0.5.6, where it defaults
to off); a file for a V2 release is migrated for that release; the summary names each file
so narrowed and what narrowed it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from migrator.run.own_release import own_release

REPO = Path(__file__).resolve().parents[1]
RECIPE = 'model: Qwen/Qwen3-8B\nspeculative_algorithm: DFLASH\nenv:\n  SGLANG_ENABLE_SPEC_V2: "1"\n'
LAUNCH = "from sglang.srt.speculative.dflash_worker import DFlashWorker\n\nprint(DFlashWorker)\n"


def _tree(root: Path) -> None:
    for folder in ("v0.5.6", "v0.5.17"):
        (root / "recipes" / folder).mkdir(parents=True)
        (root / "recipes" / folder / "qwen.yaml").write_text(RECIPE)
        (root / "recipes" / folder / "launch.py").write_text(LAUNCH)
    (root / "docker").mkdir()
    (root / "docker" / "Dockerfile").write_text("FROM lmsysorg/sglang:v0.5.6-cu126\nENV SGLANG_ENABLE_SPEC_V2=1\n")
    (root / "requirements.txt").write_text("sglang>=0.5.14,<=0.5.23\n")


def test_recipes_for_a_v1_era_release_get_no_v2_fix(tmp_path: Path) -> None:
    _tree(tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(REPO)
    proc = subprocess.run([sys.executable, "-m", "migrator", "fix", ".", "--allow-dirty"], capture_output=True,
                          text=True, cwd=tmp_path, env=env, timeout=300)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert (tmp_path / "recipes" / "v0.5.6" / "qwen.yaml").read_text() == RECIPE
    launch = (tmp_path / "recipes" / "v0.5.6" / "launch.py").read_text()
    assert "".join(line for line in launch.splitlines(keepends=True) if not line.startswith(("# TODO", "#   "))) == LAUNCH
    assert "# TODO(dflash-migrate): DFM101 " in launch  # a TODO, not a fix
    assert "SGLANG_ENABLE_SPEC_V2" in (tmp_path / "docker" / "Dockerfile").read_text()
    assert "SGLANG_ENABLE_SPEC_V2" not in (tmp_path / "recipes" / "v0.5.17" / "qwen.yaml").read_text()
    assert "DFlashWorkerV2" in (tmp_path / "recipes" / "v0.5.17" / "launch.py").read_text()
    assert "this file is for sglang 0.5.6 (its folder `v0.5.6`), before the V2 worker: not fixed for a V2 release" in proc.stdout
    summary = proc.stderr[proc.stderr.index("judged by their own sglang release"):]
    assert "./recipes/v0.5.17/qwen.yaml: sglang 0.5.17 (its folder `v0.5.17`)" in summary
    assert "./docker/Dockerfile: sglang 0.5.6 (the image, build argument or version constant in the file names sglang 0.5.6)" in summary


@pytest.mark.parametrize(("path", "data", "expected"), [
    ("recipes/v0.5.6/a.yaml", b"", "0.5.6"),
    ("deploy/sglang-0.5.12/run.sh", b"", "0.5.12"),
    ("deploy/sglang_v0.5.20.yaml", b"", "0.5.20"),
    ("k8s/values.yaml", b"image: lmsysorg/sglang:v0.5.17-cu126\n", "0.5.17"),
    ("Dockerfile", b"ARG SGLANG_VERSION=0.5.9\nFROM lmsysorg/sglang:v${SGLANG_VERSION}\n", "0.5.9"),
    ("v0.5.6/Dockerfile", b"FROM lmsysorg/sglang:v0.5.20\n", "0.5.20"),  # the file's own text first
])
def test_own_release_reads_folders_names_and_images(path: str, data: bytes, expected: str) -> None:
    found = own_release(path, data)
    assert found is not None and found[0] == (expected,)


@pytest.mark.parametrize(("path", "data"), [
    ("models/model-0.5.6/a.yaml", b""),  # a version, not sglang's
    ("compose.yaml", b"a: lmsysorg/sglang:v0.5.6\nb: lmsysorg/sglang:v0.5.20\n"),  # several: the run decides
    ("src/pkg/mod.py", b"import sglang\n"),
])
def test_own_release_is_none_where_nothing_names_one(path: str, data: bytes) -> None:
    assert own_release(path, data) is None


# ---- pins in extras, dependency groups and folders; version constants (issue 45) ----------

PYPROJECT = """[project]
name = "acme"
dependencies = ["sglang>=0.5.14", "numpy"]

[project.optional-dependencies]
legacy = ["sglang==0.5.6"]
wide = ["sglang>=0.5.10,<0.5.20"]
other = ["vllm==0.5.6", "sglang-router==0.1.0", "sglang[srt]"]

[dependency-groups]
latest = ["sglang>=0.5.20", {include-group = "wide"}]
"""


def _pinned_tree(root: Path) -> list[str]:
    (root / "pyproject.toml").write_text(PYPROJECT)
    files = ["pyproject.toml"]
    for relative in ("acme/legacy/launch.py", "acme/wide.py", "acme/other/launch.py", "acme/latest/launch.py",
                     "acme/plain.py", "services/old/launch.py", "services/new/launch.py", "services/new/deep/x.py"):
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(LAUNCH)
        files.append(relative)
    (root / "services" / "old" / "requirements.txt").write_text("sglang==0.5.12  # the old gateway\n")
    (root / "services" / "new" / "requirements-dev.txt").write_text("pytest\nsglang[all]>=0.5.18\n")
    return [str(root / f) for f in (*files, "services/old/requirements.txt", "services/new/requirements-dev.txt")]


def test_pins_in_extras_groups_and_folders_narrow_the_files_they_cover(tmp_path: Path) -> None:
    from migrator.run.own_release import release_scopes

    scopes = release_scopes(_pinned_tree(tmp_path), str(tmp_path))

    def releases(relative: str) -> tuple[str, ...] | None:
        found = own_release(str(tmp_path / relative), LAUNCH.encode(), scopes)
        return None if found is None else found[0]

    assert releases("acme/legacy/launch.py") == ("0.5.6",)  # a release before the catalog's first, named by the pin
    assert releases("acme/latest/launch.py") == ("0.5.20", "0.5.21", "0.5.22", "0.5.23")
    assert releases("services/old/launch.py") == ("0.5.12",)
    assert releases("services/new/deep/x.py")[0] == "0.5.18"  # the folder tree below the pin
    # a range spanning V1 and V2 counts for its V2 releases: the file is not V1-era
    assert releases("acme/wide.py") == tuple(f"0.5.{n}" for n in range(14, 20))
    assert "its V2 releases" in own_release(str(tmp_path / "acme/wide.py"), b"", scopes)[1]
    # a pin of another package, the run's own [project] dependencies: nothing to narrow
    assert releases("acme/other/launch.py") is None and releases("acme/plain.py") is None


def test_a_v1_only_pin_narrows_nothing_where_the_repository_pins_no_v2_release(tmp_path: Path) -> None:
    """A repository whose every pin is V1-era is one being migrated: its pins do not stop it."""
    from migrator.run.own_release import release_scopes

    (tmp_path / "svc").mkdir()
    (tmp_path / "svc" / "requirements.txt").write_text("sglang==0.5.13\n")
    assert release_scopes([str(tmp_path / "svc" / "requirements.txt")], str(tmp_path)) == ()
    (tmp_path / "next").mkdir()
    (tmp_path / "next" / "requirements.txt").write_text("sglang==0.5.20\n")
    scopes = release_scopes([str(tmp_path / d / "requirements.txt") for d in ("svc", "next")], str(tmp_path))
    assert [(Path(s.folder).name, s.releases) for s in scopes] == [("next", ("0.5.20",)), ("svc", ("0.5.13",))]


@pytest.mark.parametrize(("data", "expected"), [
    (b'SGLANG_VERSION = "0.5.12"\n\nimport sglang\n', ("0.5.12",)),
    (b"TARGET_SGLANG_VERSION: str = 'v0.5.17'  # tested against\n", ("0.5.17",)),
    (b"export SGLANG_VERSION=0.5.9\nsglang serve\n", ("0.5.9",)),
    (b'MIN_SGLANG_VERSION = "0.5.12"\n', None),  # a bound, not the file's release
    (b'LATEST_SGLANG_RELEASE = "0.5.23"\n', None),
    (b'def f():\n    SGLANG_VERSION = "0.5.12"\n', None),  # not the module's constant
    (b'SGLANG_VERSION = "0.5.12"\nOTHER_SGLANG_VERSION = "0.5.20"\n', None),  # several: the run decides
])
def test_a_version_constant_names_the_file_release(data: bytes, expected: tuple[str, ...] | None) -> None:
    found = own_release("src/pkg/mod.py", data)
    assert (None if found is None else found[0]) == expected


def _run(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(REPO)
    return subprocess.run([sys.executable, "-m", "migrator", *args], capture_output=True, text=True, cwd=root,
                          env=env, timeout=300)


def test_every_output_lists_the_files_judged_by_their_own_release(tmp_path: Path) -> None:
    import json

    _pinned_tree(tmp_path)
    expected = {"./acme/legacy/launch.py": (["0.5.6"], "the group pin `sglang==0.5.6` in pyproject.toml [legacy]"),
                "./services/old/launch.py": (["0.5.12"], "the folder pin `sglang==0.5.12` in requirements.txt"),
                "./acme/latest/launch.py": (["0.5.20", "0.5.21", "0.5.22", "0.5.23"],
                                            "the group pin `sglang>=0.5.20` in pyproject.toml [latest]")}
    lint_json = json.loads(_run(tmp_path, "lint", ".", "--format", "json").stdout)
    sarif = json.loads(_run(tmp_path, "lint", ".", "--format", "sarif").stdout)
    for narrowed in (lint_json["narrowed"], sarif["runs"][0]["properties"]["narrowed"]):
        got = {n["path"]: (n["releases"], n["source"]) for n in narrowed}
        assert {path: got.get(path) for path in expected} == expected
        assert "./acme/plain.py" not in got and "./acme/other/launch.py" not in got
    text = _run(tmp_path, "lint", ".")
    assert "6 files judged by their own sglang release, not the run's target:" in text.stderr
    assert "  ./services/old/launch.py: sglang 0.5.12 (the folder pin `sglang==0.5.12` in requirements.txt)" \
        in text.stderr
    assert "judged by their own" not in _run(tmp_path, "lint", ".", "--quiet").stderr
    fixed = _run(tmp_path, "fix", ".", "--allow-dirty", "--report", "report.json")
    files = {f["path"]: f["target"] for f in json.loads((tmp_path / "report.json").read_text())["files"]}
    assert files["services/old/launch.py"] == {"releases": ["0.5.12"], "own": True,
                                               "source": "the folder pin `sglang==0.5.12` in requirements.txt"}
    assert "./acme/legacy/launch.py: sglang 0.5.6 (the group pin" in fixed.stderr
    assert "# TODO(dflash-migrate): DFM101 " in (tmp_path / "acme/legacy/launch.py").read_text()
    for relative in ("acme/latest/launch.py", "acme/wide.py", "services/new/launch.py", "acme/plain.py"):
        assert "DFlashWorkerV2" in (tmp_path / relative).read_text(), relative


def test_target_version_wins_for_a_v2_file_never_for_a_v1_era_one(tmp_path: Path) -> None:
    """The rule in MIGRATION.md ("A file's own release"): ``--target-version`` sets every V2
    file's range, a file for a release before 0.5.14 still gets TODOs, not a V2-era fix."""
    import json

    _tree(tmp_path)
    helper = "from sglang.srt.speculative.dflash_utils import compute_dflash_accept_len_and_bonus\n"
    (tmp_path / "recipes" / "v0.5.17" / "score.py").write_text(helper)  # the module moved in 0.5.23
    narrowed = {n["path"]: n["releases"] for n in json.loads(
        _run(tmp_path, "lint", ".", "--format", "json", "--target-version", "0.5.23").stdout)["narrowed"]}
    assert narrowed == {"./docker/Dockerfile": ["0.5.6"], "./recipes/v0.5.6/launch.py": ["0.5.6"],
                        "./recipes/v0.5.6/qwen.yaml": ["0.5.6"]}
    proc = _run(tmp_path, "fix", ".", "--allow-dirty", "--target-version", "0.5.23")
    assert "./recipes/v0.5.17/" not in proc.stderr[proc.stderr.index("judged by their own"):]
    assert (tmp_path / "recipes" / "v0.5.6" / "qwen.yaml").read_text() == RECIPE
    assert "# TODO(dflash-migrate): DFM101 " in (tmp_path / "recipes" / "v0.5.6" / "launch.py").read_text()
    assert "DFlashWorkerV2" in (tmp_path / "recipes" / "v0.5.17" / "launch.py").read_text()
    # judged for 0.5.23 (the flag): the helper's new home there, not 0.5.17's
    assert "from sglang.kernels.ops.speculative.dflash import" in (tmp_path / "recipes/v0.5.17/score.py").read_text()
    (tmp_path / "recipes" / "v0.5.17" / "score.py").write_text(helper)
    _run(tmp_path, "fix", ".", "--allow-dirty")  # no flag: the folder's 0.5.17
    assert (tmp_path / "recipes/v0.5.17/score.py").read_text() == \
        "from sglang.srt.speculative.dflash_utils import compute_dflash_correct_drafts_and_bonus\n"
