"""Issue 26 items 1, 2, 3 and 9: what the tool writes, when the scanned repository is hostile.

The threat model of the hostile-repository suite: the tree comes from a stranger (a pull
request in CI, a fork being migrated), the tool may run as root, and its reports go to CI
systems. Every file the tool writes goes through :mod:`migrator.base.fileio`'s write path
(a temporary file made by ``mkstemp`` in the target's folder, then ``os.replace``; a
symbolic link at the target or in its folders below the repository top is refused). The
last tests run the README's GitLab example and ``action.yml``'s ``run:`` steps, read
from those files, under bash in a repository that commits the links.
"""

from __future__ import annotations

import ast
import hashlib
import os
import re
import shutil
import stat
import subprocess
import sys
import sysconfig
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml
from test_hostile_writes import V1, V2, cli, git, needs_git, repo

ROOT = Path(__file__).resolve().parents[1]
NEWLINE_NAME = "x\nimport os; os.system('touch PWNED')\n.py"


def digest(folder: Path) -> dict[str, str]:
    """Relative path -> sha256 of every file under ``folder`` (links recorded, not followed)."""
    out = {}
    for path in sorted(folder.rglob("*")):
        relative = str(path.relative_to(folder))
        if path.is_symlink():
            out[relative] = "-> " + os.readlink(path)
        elif path.is_file():
            out[relative] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def outside_and_repository(tmp_path: Path, files: dict[str, str]) -> tuple[Path, Path]:
    """An ``outside`` folder holding ``victim`` (the runner's files) and a committed repository."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim").write_text("the runner's file\n")
    root = tmp_path / "repo"
    repo(root, files)
    return outside, root


def commit_all(root: Path) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "hostile")


# ---- item 1: reports are never written through a committed symbolic link ----------------


@needs_git
@pytest.mark.parametrize("link", ["file", "dangling", "folder"])
def test_report_output_is_never_written_through_a_committed_symlink(tmp_path: Path, link: str) -> None:
    """Attack: the repository commits ``report.xml -> /outside/victim`` (or a dangling link,
    which a plain write would create, or a ``reports -> /outside`` folder) under the name
    CI passes to ``lint --output``; as root, that overwrites any file on the runner."""
    outside, root = outside_and_repository(tmp_path, {"a.py": V1})
    target = {"file": "report.xml", "dangling": "report.xml", "folder": "reports/report.xml"}[link]
    if link == "file":
        os.symlink(outside / "victim", root / "report.xml")
    elif link == "dangling":
        os.symlink(outside / "created-by-the-report", root / "report.xml")
    else:
        os.symlink(outside, root / "reports")
    commit_all(root)
    before = digest(outside)
    result = cli("lint", "--format", "junit", "--output", target, ".", cwd=root)
    assert digest(outside) == before, "the report was written outside the repository"
    assert result.returncode == 2, result.stderr
    assert f"dflash-migrate: error: {target}: cannot write the report:" in result.stderr, result.stderr
    assert "symbolic link" in result.stderr
    assert os.path.islink(root / target.split("/")[0]), "the link itself was replaced"


def test_report_target_that_is_no_regular_file_is_refused_and_modes_are_kept(tmp_path: Path) -> None:
    """Attack: an archive unpacked outside git holds a FIFO under the report's name; a plain
    write blocks the CI job forever, waiting for a reader. It is refused. A regular report
    is replaced keeping its mode bits; a new one gets ``0666 & ~umask``, as ``open(..., "w")``
    would make it, and no temporary file is left."""
    (tmp_path / "a.py").write_text(V1)
    os.mkfifo(tmp_path / "fifo.xml")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    try:
        fifo = subprocess.run([sys.executable, "-m", "migrator", "lint", "--output", "fifo.xml", "."], cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=30, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail("lint --output blocked on a FIFO")
    assert fifo.returncode == 2 and "fifo.xml: cannot write the report: cannot write: not a regular file" in fifo.stderr
    assert stat.S_ISFIFO(os.lstat(tmp_path / "fifo.xml").st_mode)
    assert cli("lint", "--output", "new.txt", ".", cwd=tmp_path).returncode == 1
    umask = os.umask(0o022)
    os.umask(umask)
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o666 & ~umask
    (tmp_path / "old.txt").write_text("old")
    (tmp_path / "old.txt").chmod(0o640)
    assert cli("lint", "--output", "old.txt", ".", cwd=tmp_path).returncode == 1
    assert stat.S_IMODE((tmp_path / "old.txt").stat().st_mode) == 0o640
    assert "DFM101" in (tmp_path / "old.txt").read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.py", "fifo.xml", "new.txt", "old.txt"]


# ---- item 2: JUnit text never lets repository text start a line ------------------------


@needs_git
def test_junit_escapes_a_newline_in_a_file_name(tmp_path: Path) -> None:
    """Attack: a file *name* holding ``\\n`` reaches the JUnit text through the file-error
    message; raw, it starts a line with ``import ...`` at column 0, which Python runs when
    the report lands in ``site-packages/*.pth`` (item 1)."""
    _, root = outside_and_repository(tmp_path, {"a.py": V1})
    (root / NEWLINE_NAME).write_bytes(b"import dflash_worker\n\xff\n")  # not UTF-8: a file error naming the path
    commit_all(root)
    result = cli("lint", "--format", "junit", ".", cwd=root)
    assert result.returncode == 2, result.stderr
    assert not [line for line in result.stdout.splitlines() if line.startswith("import")], result.stdout
    assert "x\\nimport os; os.system('touch PWNED')\\n.py" in result.stdout
    ET.fromstring(result.stdout.encode())


def test_junit_escapes_a_newline_in_a_fork_findings_through_path() -> None:
    """Attack: the "(through <path>)" part of a fork finding's message names a module of the
    scanned repository; a newline in that module's file name must not start a report line."""
    from migrator.base.model import FileResult, Finding, RunSummary, Span
    from migrator.report import junit

    message = f"`DFlashWorker` was replaced by `DFlashWorkerV2` (through pkg/{NEWLINE_NAME}:3)"
    result = FileResult("b.py")
    result.findings = [Finding("b.py", Span.of(1, 0, 1, 5), "DFM102", message)]
    text = junit.render([result], RunSummary(files_scanned=1, findings=1))
    assert not [line for line in text.splitlines() if line.lstrip().startswith("import")], text
    assert text.count("(through pkg/x\\nimport os;") == 2  # the message attribute and the text
    ET.fromstring(text.encode())


# ---- item 3: the baseline's temporary file has no name a repository can prepare -----------


@needs_git
def test_write_baseline_never_writes_through_a_link_named_like_its_temporary_file(tmp_path: Path) -> None:
    """Attack: a committed ``.dflash-baseline.json.dflash-migrate-tmp -> /outside/victim``
    (the fixed temporary name 9c817bf used beside the baseline) redirects
    ``--write-baseline``'s write, which then renames the link into place."""
    outside, root = outside_and_repository(tmp_path, {"a.py": V1})
    os.symlink(outside / "victim", root / ".dflash-baseline.json.dflash-migrate-tmp")
    commit_all(root)
    before = digest(outside)
    result = cli("lint", "--write-baseline", "dflash-baseline.json", ".", cwd=root)
    assert digest(outside) == before, "the baseline was written outside the repository"
    assert result.returncode == 0, result.stderr
    baseline = root / "dflash-baseline.json"
    assert not baseline.is_symlink() and '"fingerprint"' in baseline.read_text()
    assert os.path.islink(root / ".dflash-baseline.json.dflash-migrate-tmp")


@needs_git
def test_write_baseline_refuses_a_baseline_that_is_a_link(tmp_path: Path) -> None:
    """Attack: the baseline's own name is a committed link to a file outside the repository."""
    outside, root = outside_and_repository(tmp_path, {"a.py": V1})
    os.symlink(outside / "victim", root / "dflash-baseline.json")
    commit_all(root)
    before = digest(outside)
    result = cli("lint", "--write-baseline", "dflash-baseline.json", ".", cwd=root)
    assert digest(outside) == before
    assert result.returncode == 2
    assert "dflash-baseline.json: cannot write the baseline:" in result.stderr and "symbolic link" in result.stderr


# ---- item 9: --add-noqa refuses uncommitted work as fix does ----------------------------


@needs_git
def test_add_noqa_refuses_untracked_and_modified_files_without_allow_dirty(tmp_path: Path) -> None:
    """Attack (on the user's own work): ``lint --add-noqa`` rewrote untracked and modified
    files, which ``fix`` refuses without ``--allow-dirty`` (their old bytes are nowhere in git)."""
    repo(tmp_path, {"committed.py": V1, "modified.py": V1})
    (tmp_path / "modified.py").write_text("x = 1\n" + V1)
    (tmp_path / "untracked.py").write_text(V1)
    refused = cli("lint", "--add-noqa", ".", cwd=tmp_path)
    assert refused.returncode == 2, refused.stderr
    assert "untracked.py: is not committed (untracked" in refused.stderr, refused.stderr
    assert "modified.py: has uncommitted changes; commit them first or pass --allow-dirty" in refused.stderr
    assert (tmp_path / "untracked.py").read_text() == V1
    assert (tmp_path / "modified.py").read_text() == "x = 1\n" + V1
    assert "dflash-migrate: ignore[" in (tmp_path / "committed.py").read_text()
    allowed = cli("lint", "--add-noqa", "--allow-dirty", ".", cwd=tmp_path)
    assert allowed.returncode == 0, allowed.stderr
    assert "dflash-migrate: ignore[" in (tmp_path / "untracked.py").read_text()
    assert "dflash-migrate: ignore[" in (tmp_path / "modified.py").read_text()


# ---- the one write path -------------------------------------------------------------------


@needs_git
def test_fixed_source_keeps_its_mode_and_a_linked_folder_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Sources go through replace-if-unchanged: mode bits kept; a folder of the path that is
    a link (``pkg -> /outside``) is refused by the write itself, naming the link."""
    from migrator.base.fileio import SourceError, write_atomic

    outside, root = outside_and_repository(tmp_path, {"tool.py": V1})
    (root / "tool.py").chmod(0o751)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "mode")
    assert cli("fix", ".", cwd=root).returncode == 0
    assert (root / "tool.py").read_text() == V2
    assert stat.S_IMODE((root / "tool.py").stat().st_mode) == 0o751
    (outside / "deep.py").write_text(V1)
    os.symlink(outside, root / "pkg")
    monkeypatch.chdir(root)
    with pytest.raises(SourceError, match=re.escape(f"a folder of its path is a symbolic link ({root / 'pkg'})")):
        write_atomic(Path("pkg/deep.py"), V2.encode(), V1.encode())
    assert (outside / "deep.py").read_text() == V1


#: pathlib methods that write, whatever object they are called on.
_PATH_WRITES = {"write_text", "write_bytes", "touch", "symlink_to", "hardlink_to", "link_to"}
#: Functions that write when called on a module (``os.replace``; ``str.replace`` is not one).
_WRITE_METHODS = {"mkstemp", "replace", "rename", "renames", "copy", "copy2", "copyfile", "copytree", "move",
                  "NamedTemporaryFile", "symlink", "link"}
_FILE_OWNERS = {"os", "shutil", "tempfile", "Path", "pathlib"}
#: Modules whose ``open`` takes the file first, as the builtin does.
_MODULE_OPENS = {"os", "io", "codecs", "builtins", "gzip", "bz2", "lzma", "tarfile"}
#: Writes outside the write path, each with why it is not a repository file.
_ALLOWED = {
    ("migrator/base/fileio.py", "*"): "the write path itself",
    ("migrator/releases/wheels.py", "replace"): "the download cache ($DFLASH_MIGRATE_CACHE): moves inside the tool's own folder",
    ("migrator/releases/wheels.py", "write_text"): "the download cache: a marker in a folder just made by mkdtemp",
    ("migrator/cli/main.py", "os.open"): "os.devnull, opened to stand in for a closed stdout/stderr (a closed pipe)",
}


def _direct_writes(source: str) -> list[tuple[int, str]]:
    """(line, call) of every call in ``source`` that writes a file by name."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        owner = func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else ""
        if name in ("open", "fdopen"):
            # ``path.open(mode)`` takes the mode first; ``open(file, mode)`` and ``os.fdopen(fd, mode)`` second
            at = 0 if name == "open" and isinstance(func, ast.Attribute) and owner not in _MODULE_OPENS else 1
            mode = node.args[at] if len(node.args) > at else next((k.value for k in node.keywords if k.arg == "mode"), None)
            if name == "open" and owner == "os":
                flags = ast.unparse(node.args[1]) if len(node.args) > 1 else ""
                if re.search(r"O_(WRONLY|RDWR|CREAT|TRUNC|APPEND)", flags):
                    found.append((node.lineno, "os.open"))
            elif mode is not None and not (isinstance(mode, ast.Constant) and isinstance(mode.value, str)
                                           and not set(mode.value) & set("wax+")):
                found.append((node.lineno, name))  # a writing mode, or a computed one (cannot tell: it counts)
        elif name in _PATH_WRITES or (name in _WRITE_METHODS and owner in _FILE_OWNERS):
            found.append((node.lineno, name))
    return found


def test_no_file_is_written_outside_the_write_path() -> None:
    """Every file the tool writes goes through :mod:`migrator.base.fileio` (mkstemp + os.replace,
    links refused): a new ``open(..., "w")``, ``write_text``, ``os.replace``... elsewhere in
    ``migrator/`` fails here (add it to the write path, or to ``_ALLOWED`` with the reason)."""
    offenders = []
    for path in sorted((ROOT / "migrator").rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if (relative, "*") in _ALLOWED:
            continue
        offenders += [f"{relative}:{line}: {call}" for line, call in _direct_writes(path.read_text(encoding="utf-8"))
                      if (relative, call) not in _ALLOWED]
    assert offenders == [], "direct file writes outside migrator/base/fileio.py:\n" + "\n".join(offenders)
    # the scan sees what it is meant to see (it would fail on 9c817bf's writers)
    probe = ("open(p, 'w')\np.write_text(t)\nos.replace(a, b)\nos.open(p, os.O_WRONLY | os.O_CREAT)\n"
             "open(p)\ntext.replace('a', 'b')\nshutil.copy(a, b)\np.open('rb')\nPath(p).open('a')\n"
             "io.open(p, mode='w')\n")
    assert _direct_writes(probe) == [(1, "open"), (2, "write_text"), (3, "replace"), (4, "os.open"), (7, "copy"),
                                     (9, "open"), (10, "open")]


# ---- the README's GitLab example and action.yml's run: steps, in a hostile checkout ----------


def _installed_tool() -> Path:
    tool = Path(sysconfig.get_path("scripts")) / "dflash-migrate"
    if not tool.exists():
        pytest.skip(f"the dflash-migrate console script is not installed in {tool.parent} (pip install -e .)")
    return tool


def _hostile_checkout(tmp_path: Path, links: dict[str, Path]) -> tuple[Path, Path]:
    """A committed repository with a V1 file, a file whose name holds a newline, and ``links``."""
    outside, root = outside_and_repository(tmp_path, {"a.py": V1})
    (root / NEWLINE_NAME).write_text(V1)
    for name, target in links.items():
        os.symlink(target, root / name)
    commit_all(root)
    return outside, root


def _gitlab_script() -> list[str]:
    """The ``script:`` lines of the GitLab job the README points to, read from the file."""
    readme = (ROOT / "README.md").read_text()
    bullet = re.search(r"\*\*GitLab:\*\*\s*`([^`]+\.gitlab-ci\.yml)`", readme)
    assert bullet, "the README no longer names its GitLab example"
    jobs = yaml.safe_load((ROOT / bullet.group(1)).read_text())
    scripts = [job["script"] for job in jobs.values() if isinstance(job, dict) and "script" in job]
    assert len(scripts) == 1
    return scripts[0]


def _run_gitlab_job(root: Path, tool: Path) -> subprocess.CompletedProcess:
    """The job's script as GitLab's bash runs it (``set -eo pipefail``, one shell), except its
    ``pip install`` line: the tool under test is already installed and on PATH (offline)."""
    lines = [line for line in _gitlab_script() if "pip install" not in line]
    assert any(line.startswith("dflash-migrate lint") for line in lines), lines
    script = "set -eo pipefail\n" + "\n".join(lines) + "\n"
    env = {**os.environ, "PATH": f"{tool.parent}{os.pathsep}{os.environ['PATH']}", "NO_COLOR": "1"}
    env.pop("PYTHONPATH", None)
    return subprocess.run(["bash", "-c", script], cwd=root, env=env, capture_output=True, text=True, timeout=300,
                          check=False)


@needs_git
@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_gitlab_example_and_action_in_a_checkout_committing_links_to_report_names(tmp_path: Path) -> None:
    """Attack (items 1 and 2 together): the merge request commits ``dflash-migrate-junit.xml
    -> /outside/victim``, a dangling ``gl-code-quality-report.json`` and
    ``dflash-migrate.sarif -> /outside/victim``, plus a file name holding a newline; the
    README's GitLab job, run as root, wrote through the links. Then ``action.yml``'s
    ``run:`` steps run in the same checkout (:func:`_run_action_steps`)."""
    tool = _installed_tool()
    victim = tmp_path / "outside" / "victim"
    outside, root = _hostile_checkout(tmp_path, {"dflash-migrate-junit.xml": victim, "dflash-migrate.sarif": victim,
                                                 "gl-code-quality-report.json": tmp_path / "outside" / "made"})
    before = digest(outside)
    job = _run_gitlab_job(root, tool)
    assert digest(outside) == before, "the job wrote outside the repository"
    assert job.returncode == 2, job.stderr
    assert ("dflash-migrate: error: dflash-migrate-junit.xml: cannot write the report: is a symbolic link"
            in job.stderr), job.stderr
    _run_action_steps(tmp_path, root, tool)
    assert digest(outside) == before, "the action wrote outside the repository"


@needs_git
@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_gitlab_example_junit_report_of_a_newline_file_name(tmp_path: Path) -> None:
    """Attack (item 2): only the Code Quality name is a dangling link, so the JUnit report is
    written: no line of it starts with the text of the newline file name; then the Code
    Quality write is refused and the dangling link's target is not created."""
    tool = _installed_tool()
    outside, root = _hostile_checkout(tmp_path, {"gl-code-quality-report.json": tmp_path / "outside" / "made"})
    before = digest(outside)
    job = _run_gitlab_job(root, tool)
    assert digest(outside) == before and not (outside / "made").exists()
    assert job.returncode == 2, job.stderr
    assert "gl-code-quality-report.json: cannot write the report: is a symbolic link" in job.stderr, job.stderr
    junit = (root / "dflash-migrate-junit.xml").read_text()
    assert "x\\nimport os;" in junit and not [line for line in junit.splitlines() if line.startswith("import")]
    assert not (root / "PWNED").exists()


def _expand(text: str, context: dict[str, str]) -> str:
    """GitHub's ``${{ expr }}`` for the plain names the action uses (an unknown one fails)."""
    return re.sub(r"\$\{\{\s*([\w.-]+)\s*\}\}", lambda m: context[m.group(1)], text)


def _run_action_steps(tmp_path: Path, root: Path, tool: Path) -> None:
    """The action's ``run:`` steps under bash, ``RUNNER_TEMP``/``GITHUB_OUTPUT`` temporary,
    ``${{ }}`` expressions from the inputs' defaults and earlier steps' outputs. ``uses:``
    steps (setup-python, upload-sarif) are GitHub's own and are not run; the install step
    (``pip install "$GITHUB_ACTION_PATH"``) is replaced by linking the installed tool into
    the virtual environment it would make (offline). The SARIF report lands in
    ``RUNNER_TEMP``, the path of the newline file name percent-encoded in it."""
    runner_temp = tmp_path / "runner-temp"
    (runner_temp / "dflash-migrate-venv" / "bin").mkdir(parents=True)
    os.symlink(tool, runner_temp / "dflash-migrate-venv" / "bin" / "dflash-migrate")
    github_output = tmp_path / "github-output"
    github_output.write_text("")
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    context = {f"inputs.{name}": str(spec.get("default", "")) for name, spec in action["inputs"].items()}
    context.update({"github.action_repository": "", "github.action_ref": "", "github.server_url": "https://github.com",
                    "github.repository": "o/r", "github.sha": "0" * 40})
    ran = []
    for step in action["runs"]["steps"]:
        if "run" not in step or "pip install" in step["run"]:
            continue
        env = {**os.environ, "RUNNER_TEMP": str(runner_temp), "GITHUB_OUTPUT": str(github_output),
               "GITHUB_WORKSPACE": str(root), **{k: _expand(str(v), context) for k, v in step.get("env", {}).items()}}
        env.pop("PYTHONPATH", None)
        proc = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=root, env=env, capture_output=True, text=True,
                              timeout=300, check=False)
        ran.append((step.get("id"), proc.returncode, proc.stderr))
        if step.get("id"):
            for line in github_output.read_text().splitlines():
                key, _, value = line.partition("=")
                context[f"steps.{step['id']}.outputs.{key}"] = value
    assert [step_id for step_id, _, _ in ran] == ["lint", None], ran
    assert context["steps.lint.outputs.exit-code"] == "1"
    sarif = Path(context["steps.lint.outputs.sarif-file"])
    assert sarif.parent == runner_temp
    text = sarif.read_text()
    assert "x%0Aimport" in text and not [line for line in text.splitlines() if line.startswith("import")]
    assert ran[-1][1] == 1 and "DFLASH V1 references remain" in ran[-1][2]
