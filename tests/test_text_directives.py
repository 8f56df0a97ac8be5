"""Issue 31 items 2 and 3: where a suppression directive counts in a non-Python file, and
shell inside Makefiles and notebooks.

``dflash-migrate: ignore-file`` counts only in a top-level comment of the file's own
syntax: text that merely shows it (a Markdown code span or code block, a YAML block
scalar, a TOML multi-line string, a shell here-document or string, a Dockerfile
instruction continued over lines, a Makefile recipe) hides nothing. A line directive also
counts in a comment of the embedded language the rules read (a ``#`` in a fenced shell
block or a ``run: |`` script).
"""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from migrator.run.engine import Options
from migrator.run.python_file import text_context
from migrator.text import handler_for

ENV = "SGLANG_ENABLE_SPEC_V2"
IGNORE_FILE = "dflash-migrate: ignore-file"
FLAG = "--speculative-dflash-draft-window-size"


def run(path: str, text: str, mode: str = "lint"):  # noqa: ANN201 - FileResult
    return handler_for(path)(path, text.encode(), text_context(path, Options(mode=mode, target_version="0.5.20")))


def codes(path: str, text: str) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in run(path, text).findings]


@pytest.mark.parametrize("path, text", [
    ("README.md", f"Write `<!-- {IGNORE_FILE} -->` to hide a file.\n\nSet `{ENV}=0`.\n"),
    ("README.md", f"Example:\n\n    <!-- {IGNORE_FILE} -->\n\nSet `{ENV}=0`.\n"),
    ("README.md", f"```bash\n# {IGNORE_FILE}\necho hi\n```\n\nSet `{ENV}=0`.\n"),
    ("issue.yaml", f"body: |\n  # {IGNORE_FILE}\nenv:\n  {ENV}: \"1\"\n"),
    ("ci.yml", f"steps:\n  - run: |\n      # {IGNORE_FILE}\n      echo hi\nenv:\n  {ENV}: \"1\"\n"),
    ("pyproject.toml", f"[tool.x]\nhelp = \"\"\"\n# {IGNORE_FILE}\n\"\"\"\n{ENV} = \"1\"\n"),
    ("run.sh", f"cat > notes <<EOF\n# {IGNORE_FILE}\nEOF\nexport {ENV}=1\n"),
    ("run.sh", f"echo \"usage:\n# {IGNORE_FILE}\n\"\nexport {ENV}=1\n"),
    ("Dockerfile", f"FROM x\nRUN echo \"a \\\n# {IGNORE_FILE}\n    b\"\nENV {ENV}=1\n"),
    ("Makefile", f"serve:\n\t# {IGNORE_FILE}\n\t{ENV}=1 python -m sglang.launch_server\n"),
])
def test_ignore_file_shown_in_data_hides_nothing(path: str, text: str) -> None:
    result = run(path, text)
    assert any(f.code == "DFM201" for f in result.findings), result.findings
    assert result.suppressed == 0


TOP_LEVEL = [
    ("README.md", f"<!-- {IGNORE_FILE} -->\nSet `{ENV}=0`.\n"),
    ("ci.yml", f"# {IGNORE_FILE}\nenv:\n  {ENV}: \"1\"\n"),
    ("run.sh", f"# {IGNORE_FILE}\nexport {ENV}=1\n"),
    ("Dockerfile", f"# {IGNORE_FILE}\nFROM x\nENV {ENV}=1\n"),
    ("Makefile", f"# {IGNORE_FILE}\nserve:\n\t{ENV}=1 python -m sglang.launch_server\n"),
]
EMBEDDED_LINE_DIRECTIVES = [
    ("Makefile", f"serve:\n\t{ENV}=1 python -m sglang.launch_server  # dflash-migrate: ignore[DFM201]\n"),
    ("README.md", f"```bash\n# dflash-migrate: ignore[DFM201]\nexport {ENV}=1\n```\n"),
    ("ci.yml", f"steps:\n  - run: |\n      # dflash-migrate: ignore[DFM201]\n      export {ENV}=1\n"),
]


def test_directives_count_in_top_level_comments_and_line_directives_in_embedded_shell() -> None:
    for path, text in TOP_LEVEL:  # ignore-file in a top-level comment of the file's own syntax
        result = run(path, text)
        assert result.findings == [] and result.suppressed >= 1, (path, result.findings)
    for path, text in EMBEDDED_LINE_DIRECTIVES:  # a Makefile recipe comment is a shell comment
        result = run(path, text)
        assert result.findings == [] and result.suppressed == 1, (path, result.findings)


def test_makefile_recipe_lines_are_shell() -> None:
    text = (f"export {ENV}=0\nserve:\n\t@{ENV}=1 python3 -m sglang.launch_server {FLAG} 4\n"
            f"\t{ENV}=0 python3 -m sglang.launch_server \\\n\t  --port 1\n")
    assert codes("Makefile", text) == [(1, "DFM409"), (3, "DFM201"), (3, "DFM203"), (4, "DFM201")]
    fixed = run("Makefile", text, "fix").new_bytes.decode()
    assert fixed == (f"export {ENV}=0\nserve:\n\t@python3 -m sglang.launch_server --speculative-draft-window-size 4\n"
                     "\tpython3 -m sglang.launch_server --disable-overlap-schedule \\\n\t  --port 1\n")
    if shutil.which("bash"):
        recipes = "\n".join(line[1:].lstrip("@") for line in fixed.splitlines() if line.startswith("\t"))
        assert subprocess.run(["bash", "-n"], input=recipes, text=True, check=False).returncode == 0


def test_makefile_recipe_in_an_if_keeps_its_body() -> None:
    text = f"serve:\n\tif [ -n \"$$FAST\" ]; then export {ENV}=1; fi; python3 -m sglang.launch_server\n"
    result = run("Makefile", text, "fix")
    assert result.fixes_applied == 0 and f"then export {ENV}=1; fi" in result.new_bytes.decode()


@pytest.mark.parametrize("escape", ["!", "!!", "%system ", "%sx "])
def test_notebook_shell_escapes_are_shell(escape: str) -> None:
    nb = {"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                     "source": [f"{escape}python3 -m sglang.launch_server {FLAG} 4\n", "x = 1\n"]}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    result = run("n.ipynb", json.dumps(nb, indent=1))
    assert [f.code for f in result.findings] == ["DFM203"]
    fixed = json.loads(run("n.ipynb", json.dumps(nb, indent=1), "fix").new_bytes)
    assert fixed["cells"][0]["source"][0] == f"{escape}python3 -m sglang.launch_server --speculative-draft-window-size 4\n"
