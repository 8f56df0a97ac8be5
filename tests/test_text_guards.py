"""Issue 27: fixes of shell, Dockerfile, YAML, TOML, Markdown and notebooks are proven like
Python fixes (a guard per file type parses the result before it is written), shell
semantics that parsing cannot see (empty compound bodies, later reads, conditional
settings, bare ``export``), and lines split where each file's own reader splits them.

Each fixture is run through the real ``bash`` / PyYAML / ``tomllib`` / ``compile`` where
the test checks a parse, never through the guard under test.
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

from migrator.run.engine import Options
from migrator.run.python_file import text_context
from migrator.text import handler_for
from tests.blind_corpora import is_blind

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

T = "0.5.20"
ENV = "SGLANG_ENABLE_SPEC_V2"
CORPUS = Path(__file__).parent / "data" / "text_corpus"
BASH = shutil.which("bash")
needs_bash = pytest.mark.skipif(BASH is None, reason="bash is needed to check the fixed scripts")
#: An ``export``/``declare``/... command left with no literal argument: only options,
#: redirections and expansions (which may be empty) after it.
BARE = re.compile(r"(?:^|[;&|({]\s*|\bthen\s+|\bdo\s+|RUN\s+|run:\s+|\$\s+|!)"
                  r"(?:export|readonly|local|unset|typeset|declare)"
                  r"(?:\s+(?:[-+]\w+|\d*[<>]&?\S*|&>\S*|\$\w+|\$\{[^}]*\}|\"\$[^\"]*\"|\$@))*\s*(?:$|[;&|)])", re.M)


def fixed(path: str, text: str, unsafe: bool = False):  # noqa: ANN201 - FileResult
    options = Options(mode="fix", target_version=T, unsafe_fixes=unsafe)
    result = handler_for(path)(path, text.encode(), text_context(path, options))
    assert result.error is None, result.error
    return result


def out(path: str, text: str, unsafe: bool = False) -> str:
    """The fixed text, each TODO on one line (these tests read what a TODO says; how it is
    wrapped is ``tests/test_review_todos.py``'s)."""
    result = fixed(path, text, unsafe)
    return unwrapped(result.new_bytes.decode() if result.new_bytes is not None else text)


def unwrapped(text: str) -> str:
    return re.sub(r"\n[ \t]*#   ", " ", text)


def bash_ok(script: str) -> bool:
    return subprocess.run([BASH, "--norc", "--noprofile", "-n"], input=script.encode(), env={},
                          capture_output=True, check=False).returncode == 0


LAUNCH = (CORPUS / "launch.sh").read_text()


@needs_bash
@pytest.mark.parametrize("unsafe", [False, True])
def test_issue_launch_script_keeps_its_if_body_its_reads_and_runs(unsafe: bool, tmp_path: Path) -> None:
    new = out("launch.sh", LAUNCH, unsafe)
    assert bash_ok(new)
    assert "then\n" in new and f"  export {ENV}=1\nfi" in new  # the if body is kept
    assert f"export {ENV}=0\n" in new  # read on line 10: kept, with a TODO naming the read
    assert "is read later (line 10)" in new and "only on some paths (inside `if`)" in new
    stub = "python3() { echo launched \"$SGLANG_ENABLE_SPEC_V2\"; }\n"
    for overlap, value in (("0", "0"), ("1", "1")):
        script = new.replace("set -euo pipefail\n", "set -euo pipefail\n" + stub)
        ran = subprocess.run([BASH, "--norc", "--noprofile"], input=script, text=True, capture_output=True,
                             env={"PATH": os.environ["PATH"], "OVERLAP": overlap}, cwd=tmp_path, check=False)
        assert ran.returncode == 0, ran.stderr
        assert f"launched {value}" in ran.stdout  # the conditional meaning is kept


@needs_bash
@pytest.mark.parametrize("body", ["then", "else", "do", "{"])
def test_no_empty_compound_body(body: str) -> None:
    src = {"then": f"if [ -n \"$A\" ]; then\n  export {ENV}=1\nfi\n",
           "else": f"if [ -n \"$A\" ]; then\n  echo a\nelse\n  export {ENV}=1\nfi\n",
           "do": f"for x in 1 2; do\n  export {ENV}=1\ndone\n",
           "{": f"f() {{\n  export {ENV}=1\n}}\nf\n"}[body]
    for unsafe in (False, True):
        new = out("run.sh", src, unsafe)
        assert bash_ok(new), new
        assert f"export {ENV}=1" in new and "TODO(dflash-migrate)" in new


@pytest.mark.parametrize("src", [
    f"export {ENV}=1 $EXTRA\necho ran\n",
    f"export {ENV}=1 \"$@\"\necho ran\n",
    f"declare -x {ENV}=1 $X\necho ran\n",
    f"typeset -x {ENV}=1 ${{X:-}}\necho ran\n",
])
def test_an_expansion_is_not_an_argument_the_setting_stays_with_a_todo(src: str) -> None:
    new = out("run.sh", src)
    assert not BARE.search(new), new
    assert src.splitlines()[0] in new and "may expand to nothing" in new


@needs_bash
@pytest.mark.parametrize("src, expected", [
    (f"export {ENV}=1 2>/dev/null || true\necho ran\n", "true || true\necho ran\n"),
    (f"export {ENV}=1 >&2\necho ran\n", "echo ran\n"),
    (f"export {ENV}=1 > /dev/null\necho ran\n", "echo ran\n"),
    (f"export {ENV}=1 2>&1 && echo ran\n", "echo ran\n"),
])
def test_a_redirection_is_not_an_argument_the_whole_command_goes(src: str, expected: str) -> None:
    new = out("run.sh", src)
    assert new == expected
    assert bash_ok(new) and not BARE.search(new)
    ran = subprocess.run([BASH, "--norc", "--noprofile"], input=new, text=True, capture_output=True,
                         env={"PATH": "/usr/bin:/bin", "CI_TOKEN": "hunter2"}, check=False)
    assert "hunter2" not in ran.stdout + ran.stderr and "ran" in ran.stdout


@pytest.mark.parametrize("path, src", [
    ("Dockerfile", f"FROM x\nRUN export {ENV}=1 $EXTRA\n"),
    ("Dockerfile", f"FROM x\nRUN export {ENV}=1 >&2 \\\n    && make\n"),
    (".github/workflows/ci.yml", f"on: push\njobs:\n  a:\n    steps:\n      - run: export {ENV}=1 \"$@\"\n"),
    (".github/workflows/ci.yml", f"on: push\njobs:\n  a:\n    steps:\n      - run: |\n          export {ENV}=1 $X\n"),
    ("README.md", f"```bash\nexport {ENV}=1 $EXTRA\ndeclare -x {ENV}=1 2>/dev/null\n```\n"),
])
def test_no_bare_export_in_embedded_shell(path: str, src: str) -> None:
    for unsafe in (False, True):
        assert not BARE.search(out(path, src, unsafe))


@needs_bash
def test_a_setting_read_later_is_kept_in_the_same_run_block() -> None:
    src = ("on: push\njobs:\n  a:\n    steps:\n      - run: |\n          set -u\n"
           f"          export {ENV}=1\n          echo \"${{{ENV}}}\"\n      - run: export {ENV}=1 && make\n")
    new = out(".github/workflows/ci.yml", src)
    assert f"          export {ENV}=1\n" in new and "is read later (line 8)" in new
    assert "- run: make\n" in new  # another step reads nothing: fixed
    yaml.safe_load(new)


def test_dockerfile_env_read_by_a_later_run_stays() -> None:
    src = f"FROM x\nENV {ENV}=1\nRUN echo ${ENV}\n"
    new = out("Dockerfile", src)
    assert f"ENV {ENV}=1\n" in new and "is read later (line 3)" in new


# ---- lines split where each reader splits them --------------------------------------


def test_shell_lines_end_at_lf_only() -> None:
    src = f"export {ENV}=1\f; verify_signature || exit 1\n"
    assert out("run.sh", src) == "verify_signature || exit 1\n"
    src = f"true; export {ENV}=1\r&& echo ran\n"  # a lone CR is a character, not a line end, for bash
    new = out("run.sh", src)
    assert "echo ran" in new and "\n&&" not in new and "\r\n" not in new


def test_yaml_lines_end_where_pyyaml_ends_them() -> None:
    src = f"a: 1\x85env:\u2028  {ENV}: \"1\"\u2029  B: \"2\"\n"
    result = fixed("c.yaml", src)
    assert [(f.line, f.code) for f in result.findings] == [(3, "DFM201")]
    new = result.new_bytes.decode()
    assert yaml.safe_load(new) == {"a": 1, "env": {"B": "2"}}


def test_markdown_lines_end_at_cr_too_but_not_at_a_form_feed() -> None:
    src = f"# t\fx\u2028y\r```bash\rexport {ENV}=1 && make\r```\r"
    result = fixed("r.md", src)
    assert [(f.line, f.code) for f in result.findings] == [(3, "DFM201")]
    assert result.new_bytes.decode() == "# t\fx\u2028y\r```bash\rmake\r```\r"


# ---- the guard: refused fixes, counted --------------------------------------------------


def test_yaml_fix_that_would_turn_a_script_into_a_boolean_is_refused_and_counted() -> None:
    src = f"on: push\njobs:\n  a:\n    steps:\n      - name: a\n        run: readonly {ENV}=1\n      - run: export {ENV}=1 && make\n"
    result = fixed(".github/workflows/ci.yml", src)
    assert result.refused == 1 and result.fixes_applied == 1
    new = unwrapped(result.new_bytes.decode())
    assert "not fixed automatically: the fixed YAML would change its structure" in new
    assert "turns from str into bool" in new and f"run: readonly {ENV}=1" in new and "- run: make" in new


def test_refused_count_is_in_the_fix_summary(tmp_path: Path) -> None:
    (tmp_path / "ci.yml").write_text(f"on: push\njobs:\n  a:\n    steps:\n      - run: readonly {ENV}=1\n")
    done = subprocess.run([sys.executable, "-m", "migrator", "fix", "--allow-dirty", str(tmp_path)],
                          capture_output=True, text=True, check=False)
    assert "1 fix refused by the write guard" in done.stderr, done.stderr


def test_zsh_script_has_no_parser_here_fix_becomes_todo() -> None:
    result = fixed("run.zsh", f"export {ENV}=1\necho ran\n")
    assert result.refused == 1
    assert "no parser for zsh scripts here" in unwrapped(result.new_bytes.decode())
    assert fixed("serve.sh", f"#!/usr/bin/env ksh\nexport {ENV}=1\n").refused == 1


@needs_bash
def test_original_that_does_not_parse_gets_todos() -> None:
    result = fixed("run.sh", f"export {ENV}=1\nif then\n")
    assert result.refused == 1
    assert "the original script does not parse" in unwrapped(result.new_bytes.decode())


def test_without_bash_shell_fixes_become_todos(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no bash on this PATH
    result = fixed("run.sh", f"export {ENV}=1\necho ran\n")
    assert result.refused == 1 and "bash is not installed on this machine" in unwrapped(result.new_bytes.decode())


def test_toml_original_that_does_not_parse_gets_todos() -> None:
    result = fixed("t.toml", f"{ENV} = \"1\"\nbroken = \n")
    assert result.refused == 1 and "the original TOML does not parse" in unwrapped(result.new_bytes.decode())


@needs_bash
def test_notebook_guard_checks_the_shell_of_the_cells() -> None:
    nb = {"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                     "source": ["%%bash\n", f"export {ENV}=1\n", "fi\n"]}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    result = fixed("n.ipynb", json.dumps(nb))
    assert result.refused == 1
    cell = "".join(json.loads(result.new_bytes)["cells"][0]["source"])
    assert "the original shell of the cell does not parse" in unwrapped(cell)


# ---- every corpus, both fix modes -------------------------------------------------------


def _corpora() -> list[Path]:
    """Every non-Python file of the tests' corpora and the examples that a text rule reads
    and that names sglang; not the blind corpora (tests/blind_corpora.py), which only
    scripts/score_blind.py reads, so that no test comes to depend on it."""
    roots = [CORPUS, Path(__file__).parent / "data", Path(__file__).parent.parent / "examples"]
    found: dict[Path, None] = {}
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.is_file() and path.suffix != ".py" and handler_for(str(path)) is not None \
                    and not is_blind(path) \
                    and b"sglang" in path.read_bytes().lower():
                found[path.resolve()] = None
    return list(found)


def _parse_error(path: Path, text: str) -> str | None:
    name = path.name
    if name.endswith((".sh", ".bash")) or text.startswith("#!/bin/bash") or text.startswith("#!/usr/bin/env bash"):
        return None if bash_ok(text) else "bash -n"
    if name.startswith("Dockerfile"):
        runs = re.findall(r"^RUN((?:.*\\\n)*.*)$", text, re.M)
        return None if bash_ok("\n".join(runs) + "\n") else "RUN bash -n"
    if name.endswith((".yml", ".yaml")):
        try:
            list(yaml.safe_load_all(text))
        except yaml.YAMLError as error:
            return str(error)
        return None
    if name.endswith(".toml"):
        try:
            tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            return str(error)
        return None
    if name.endswith(".ipynb"):
        try:
            cells = json.loads(text)["cells"]
        except ValueError as error:
            return str(error)
        for cell in cells:
            source = "".join(cell["source"])
            if cell["cell_type"] == "code" and source.startswith("%%bash"):
                if not bash_ok(source.split("\n", 1)[1]):
                    return "cell bash -n"
        return None
    if name.endswith(".md"):
        for lang, body in re.findall(r"^```(\w*)\n(.*?)^```", text, re.M | re.S):
            if lang in ("bash", "sh", "shell") and not bash_ok(body):
                return f"{lang} block bash -n"
        return None
    return None


@needs_bash
@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
def test_every_corpus_fixed_still_parses_and_has_no_bare_export(unsafe: bool) -> None:
    corpus = _corpora()
    assert len(corpus) >= 12
    checked = 0
    for path in corpus:
        text = path.read_text()
        new = out(str(path), text, unsafe)
        assert not BARE.search(new) or BARE.search(text), f"{path}: bare export produced"
        if _parse_error(path, text) is None:
            assert _parse_error(path, new) is None, f"{path}: the fixed file does not parse"
            checked += 1
    assert checked >= 12
    from test_hostile_shell import SHELL_CASES  # the inline shell corpus of the tests

    for src, _ in SHELL_CASES:
        new = out("run.sh", src, unsafe)
        assert bash_ok(new) and not BARE.search(new), src


def test_add_noqa_counts_shell_lines_as_bash_does(repo: Path) -> None:
    from migrator.run import add_noqa
    from migrator.run.engine import run

    (repo / "run.sh").write_text(f"echo a\fb\nexport {ENV}=1 && python -m sglang.launch_server\n")
    results = run([Path(".")], Options(mode="lint", jobs=1)).results
    assert [(f.line, f.code) for r in results for f in r.findings] == [(2, "DFM201")]  # as bash and editors count
    add_noqa.add(results)
    new = (repo / "run.sh").read_text()
    assert new.startswith("echo a\fb\n# dflash-migrate: ignore[DFM201]\nexport ")
    assert not [f for r in run([Path(".")], Options(mode="lint", jobs=1)).results for f in r.findings]


def test_python_guard_refusals_are_counted_in_the_summary_too(tmp_path: Path) -> None:
    from migrator.run.engine import run

    (tmp_path / "fork.py").write_text("from sglang.srt.speculative.dflash_worker import DFlashWorker\n\n"
                                      "w = DFlashWorker()\n")
    (tmp_path / "ci.yml").write_text(f"on: push\njobs:\n  a:\n    steps:\n      - run: readonly {ENV}=1\n")
    options = Options(mode="fix", target_version="0.5.17", ignore=frozenset({"DFM102"}), allow_dirty=True)
    summary = run([tmp_path], options).summary
    assert summary.fixes_refused == 2 and summary.fixes_applied == 0  # a half rename, a `run: true`


def test_a_prefix_setting_reaches_one_command_so_a_later_read_does_not_keep_it() -> None:
    src = f"{ENV}=1 python3 -m sglang.launch_server\necho \"${{{ENV}:-}}\"\nf () {{\n  export {ENV}=1\n}}\n"
    new = out("run.sh", src)
    assert new.startswith("python3 -m sglang.launch_server\n")  # the later read sees the outer value either way
    assert "only on some paths (a function)" in new and f"  export {ENV}=1\n" in new
