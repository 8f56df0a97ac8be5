"""Issue 31 item 1: every text rule takes time linear in the number of findings of a file.

Work is counted, never timed: the number of source lines of ``migrator`` executed (line
events of ``sys.settrace``) while a file with ``n`` settings is linted, against the same
with ``4n``. Linear code does about 4x the work; the quadratic walks this replaced (shell
``_alone`` over every command per removal, YAML ``_setting``/``_parent``/``_block`` over the
lines per setting, Markdown ``without_covered`` of every text finding against every span)
did 12-17x.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from migrator.run.engine import Options
from migrator.run.python_file import text_context
from migrator.text import handler_for

ENV = "SGLANG_ENABLE_SPEC_V2"
PACKAGE = str(Path(__import__("migrator").__file__).parent)


def shell(n: int) -> str:
    return "".join(f"export {ENV}=1\necho step {i}\n" for i in range(n)) + "python3 -m sglang.launch_server\n"


def compose(n: int) -> str:
    return "services:\n" + "".join(
        f"  s{i}:\n    environment:\n      {ENV}: \"0\"\n      OTHER: \"1\"\n"
        f"    command: python3 -m sglang.launch_server --port {i}\n" for i in range(n))


def markdown(n: int) -> str:
    return "".join(f"Set `{ENV}=0` on node {i} (see sglang.srt.speculative.dflash_worker).\n" for i in range(n))


def line_visits(path: str, text: str) -> int:
    count = 0

    def tracer(frame, event, arg):  # noqa: ANN001, ANN202
        nonlocal count
        if event == "line":
            count += 1
        return tracer

    def calls(frame, event, arg):  # noqa: ANN001, ANN202
        return tracer if frame.f_code.co_filename.startswith(PACKAGE) else None

    handler = handler_for(path)
    options = Options(mode="lint", target_version="0.5.20")
    handler(path, text.encode(), text_context(path, options))  # warm: imports and caches are not the rule's work
    sys.settrace(calls)
    try:
        result = handler(path, text.encode(), text_context(path, options))
    finally:
        sys.settrace(None)
    assert result.findings
    return count


@pytest.mark.parametrize("path, make", [("run.sh", shell), ("compose.yaml", compose), ("notes.md", markdown)],
                         ids=["shell", "yaml", "markdown"])
def test_four_times_the_settings_is_at_most_five_times_the_work(path: str, make) -> None:  # noqa: ANN001
    small, large = line_visits(path, make(150)), line_visits(path, make(600))
    assert large / small <= 5, f"{path}: {small} -> {large} line visits ({large / small:.1f}x for 4x the settings)"


def dockerfile(n: int) -> str:
    return "FROM python:3.11\n" + f"ENV {ENV}=0\nRUN echo step\n" * n + "CMD python3 -m sglang.launch_server\n"


def toml(n: int) -> str:
    return "".join(f"[tool.s{i}]\n{ENV} = \"0\"\n" for i in range(n)) + "[run]\ncmd = \"python3 -m sglang.launch_server\"\n"


@pytest.mark.parametrize("path, make", [("Dockerfile", dockerfile), ("tasks.toml", toml)], ids=["dockerfile", "toml"])
def test_dockerfile_and_toml_settings_are_linear_too(path: str, make) -> None:  # noqa: ANN001
    small, large = line_visits(path, make(150)), line_visits(path, make(600))
    assert large / small <= 5, f"{path}: {small} -> {large} line visits ({large / small:.1f}x for 4x the settings)"


def fences(n: int) -> str:
    return "".join(f"Step {i}:\n\n```bash\nexport {ENV}=1 && make\n```\n\n" for i in range(n))


def test_markdown_blocks_are_read_in_linear_time() -> None:
    small, large = line_visits("notes.md", fences(150)), line_visits("notes.md", fences(600))
    assert large / small <= 5, f"{small} -> {large} line visits ({large / small:.1f}x for 4x the blocks)"


def notebook(n: int) -> str:
    import json

    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
            "source": [f"!export {ENV}=1 && echo {i}\n" for i in range(n)]}
    return json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)


def test_notebook_findings_are_placed_in_linear_time() -> None:
    small, large = line_visits("n.ipynb", notebook(150)), line_visits("n.ipynb", notebook(600))
    assert large / small <= 5, f"{small} -> {large} line visits ({large / small:.1f}x for 4x the findings)"
