"""A newcomer's session, scripted (issue 28): a fresh clone, the README's two commands, then
the GitLab example's `script:` lines and the action's `run:` steps under bash in a scratch
repository, as CI would run them. Every command is read out of README.md,
examples/gitlab/.gitlab-ci.yml and action.yml, never copied here, so the test follows them.

Slow: it creates virtual environments and installs the tool (pip, from the package index
pip is configured with; offline where that is a local mirror). The README's second command
installs the test extras and runs the whole suite; here its install runs as written, and
the suite is collected (`pytest --collect-only`) rather than run: running it is `.ci/run`'s
job, and this test is part of that suite.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
JUNIT = "dflash-migrate-junit.xml"


def readme_commands(readme: str) -> list[str]:
    """The two commands at the top of the README (its first two ```bash blocks)."""
    blocks = re.findall(r"^```bash\n(.*?)^```", readme, re.MULTILINE | re.DOTALL)
    return [block.strip() for block in blocks[:2]]


def bash(script: str, cwd: Path, env: dict[str, str], timeout: int = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)


def expression(text: str, values: dict[str, str]) -> str:
    """A GitHub `${{ ... }}` value (the action uses plain lookups only)."""
    return re.sub(r"\$\{\{\s*([\w.-]+)\s*\}\}", lambda m: values[m.group(1)], text)


def test_a_newcomers_session(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = {**{k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")},
           "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}", "VIRTUAL_ENV": str(venv)}

    first, second = readme_commands((clone / "README.md").read_text())
    done = bash(first, clone, env)
    assert done.returncode == 1, done.stderr[-3000:]  # the README: exit 1 means there is work to do
    assert "+++ b/" in done.stdout and "a/./" not in done.stdout
    install, _, suite = second.partition(" && ")
    assert suite.strip() == "python -m pytest", second
    done = bash(install, clone, env)
    assert done.returncode == 0, done.stderr[-3000:]
    done = bash("python -m pytest --collect-only -q -p no:cacheprovider", clone, env)
    assert done.returncode == 0 and " tests collected" in done.stdout, (done.stdout + done.stderr)[-3000:]

    scratch = tmp_path / "fork"
    shutil.copytree(clone / "examples" / "legacy_fork", scratch)
    for command in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "fork"]):
        subprocess.run(["git", *command], cwd=scratch, check=True)

    job = yaml.safe_load((clone / "examples" / "gitlab" / ".gitlab-ci.yml").read_text())["dflash-migrate"]
    gitlab_env = {**env, **{k: str(v).replace("git+https://gitlab.example.com/tools/dflash-migrate.git@main", str(clone))
                            for k, v in job.get("variables", {}).items()}}
    done = bash("\n".join(job["script"]), scratch, gitlab_env)
    assert done.returncode == 1, (done.stdout + done.stderr)[-3000:]  # findings fail the job
    assert (scratch / JUNIT).is_file()
    issues = json.loads((scratch / job["artifacts"]["reports"]["codequality"]).read_text())
    paths = {issue["location"]["path"] for issue in issues}
    assert issues and JUNIT not in paths, sorted(paths)  # the second report has no finding in the first one

    action = yaml.safe_load((clone / "action.yml").read_text())
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir()
    output = tmp_path / "github-output"
    output.touch()
    values = {f"inputs.{name}": str(spec.get("default", "")) for name, spec in action["inputs"].items()}
    values |= {"github.action_repository": "", "github.action_ref": "", "github.server_url": "https://github.com",
               "github.repository": "o/r", "github.sha": "0" * 40}
    base = {**{k: v for k, v in env.items() if k != "VIRTUAL_ENV"}, "RUNNER_TEMP": str(runner_temp),
            "GITHUB_OUTPUT": str(output), "GITHUB_ACTION_PATH": str(clone)}
    statuses = []
    for step in action["runs"]["steps"]:
        if "run" not in step:
            continue  # `uses:` steps (setup-python, upload-sarif) are GitHub's
        outputs = dict(line.split("=", 1) for line in output.read_text().splitlines() if "=" in line)
        values |= {f"steps.lint.outputs.{key}": value for key, value in outputs.items()}
        step_env = {**base, **{key: expression(str(value), values) for key, value in step.get("env", {}).items()}}
        done = bash(step["run"], scratch, step_env)
        statuses.append((step.get("name"), done.returncode, done.stderr[-2000:]))
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines())
    assert outputs["exit-code"] == "1" and Path(outputs["sarif-file"]).is_file(), (outputs, statuses)
    assert [code for _, code, _ in statuses] == [0, 0, 1], statuses  # install, lint, fail on findings
    sarif = json.loads(Path(outputs["sarif-file"]).read_text())
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["runs"][0]["results"]}
    assert uris and not {JUNIT, "gl-code-quality-report.json"} & uris, sorted(uris)
