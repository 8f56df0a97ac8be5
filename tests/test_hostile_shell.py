"""Issue 12 item 1: removing a setting never leaves a bare ``export``/``declare -x``/
``readonly``/``local``/``unset`` (a bare ``export`` prints every exported variable,
secrets included, into the CI log), in every file type that embeds shell.

The shell cases are also run through ``bash``: the fixed script must be valid
(``bash -n``), must not print a secret from the environment, and must still run the
commands around the setting.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from migrator.run.engine import Options
from migrator.run.python_file import text_context
from migrator.text import handler_for

T = "0.5.20"
SECRET = "hunter2-do-not-print"
ENV = "SGLANG_ENABLE_SPEC_V2"
BARE = re.compile(r"(^|[;&|]\s*|RUN\s+|run:\s+)(export|readonly|local|unset|declare(\s+[-+]\w+)*)\s*($|[;&|])", re.M)


def fix(path: str, text: str) -> str:
    result = handler_for(path)(path, text.encode(), text_context(path, Options(mode="fix", target_version=T)))
    assert result.error is None
    out = result.new_bytes.decode() if result.new_bytes is not None else text
    again = handler_for(path)(path, out.encode(), text_context(path, Options(mode="fix", target_version=T)))
    assert again.new_bytes is None, "second run must be a no-op"
    return out


SHELL_CASES = [
    (f"export {ENV}=1 && echo ran\n", "echo ran\n"),
    (f"cd /tmp; export {ENV}=1\necho ran\n", "cd /tmp\necho ran\n"),
    (f"declare -x {ENV}=1\necho ran\n", "echo ran\n"),
    (f"declare -x {ENV}=1 && echo ran\n", "echo ran\n"),
    (f"readonly {ENV}=1; echo ran\n", "echo ran\n"),
    (f"typeset -x {ENV}=true\necho ran\n", "echo ran\n"),
    (f"export A=1 {ENV}=1\necho ran $A\n", "export A=1\necho ran $A\n"),
    (f"export {ENV}=1 B=2 && echo ran $B\n", "export B=2 && echo ran $B\n"),
    (f"export {ENV}=1 \\\n  && echo ran\n", "echo ran\n"),
    (f"{ENV}=1 && echo ran\n", "echo ran\n"),
    (f"unset {ENV} && echo ran\n", "echo ran\n"),
]


@pytest.mark.parametrize("src, expected", SHELL_CASES)
def test_shell_setting_removal_leaves_no_bare_builtin(src: str, expected: str) -> None:
    out = fix("run.sh", src)
    assert out == expected
    assert not BARE.search(out)
    if shutil.which("bash"):
        assert subprocess.run(["bash", "-n"], input=out, text=True).returncode == 0
        ran = subprocess.run(["bash"], input=out, text=True, capture_output=True,
                             env={"PATH": "/usr/bin:/bin", "CI_TOKEN": SECRET}, cwd="/")
        assert SECRET not in ran.stdout + ran.stderr
        assert "ran" in ran.stdout


@pytest.mark.parametrize("path, src, expected", [
    ("Dockerfile", f"FROM x\nRUN export {ENV}=1 && pip install a\n", "FROM x\nRUN pip install a\n"),
    ("Dockerfile", f"FROM x\nRUN declare -x {ENV}=1\nRUN b\n", "FROM x\nRUN b\n"),
    ("Dockerfile", f"FROM x\nRUN cd y; export {ENV}=1\n", "FROM x\nRUN cd y\n"),
    ("Dockerfile", f"FROM x\nRUN export {ENV}=1 \\\n    && pip install a\n", "FROM x\nRUN pip install a\n"),
    (".github/workflows/ci.yml", f"steps:\n  - run: export {ENV}=1 && make\n", "steps:\n  - run: make\n"),
    (".github/workflows/ci.yml", f"steps:\n  - run: |\n      cd x; export {ENV}=1\n      make\n",
     "steps:\n  - run: |\n      cd x\n      make\n"),
    ("README.md", f"```bash\nexport {ENV}=1 && make\n```\n", "```bash\nmake\n```\n"),
    ("README.md", f"```sh\ncd x; declare -x {ENV}=1\n```\n", "```sh\ncd x\n```\n"),
])
def test_embedded_shell_setting_removal_leaves_no_bare_builtin(path: str, src: str, expected: str) -> None:
    out = fix(path, src)
    assert out == expected
    assert not BARE.search(out)
