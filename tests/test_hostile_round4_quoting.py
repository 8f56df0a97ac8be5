"""Issue 42, the fourth round of hostile repositories: quoting (cases 11, 14 and 15).

Each test builds the attacker's file and states the attack in its docstring; each fails at
8ed1b04. Where a file type's readers disagree on where a string ends, the tool refuses (no
comment written, no suppression counted) rather than guess.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from migrator.run import add_noqa
from migrator.run.engine import Options, run
from migrator.run.python_file import text_context
from migrator.text import handler_for

ENV = "SGLANG_ENABLE_SPEC_V2"
QUALIFIED = "sglang.srt.speculative.dflash_worker.DFlashWorker"
MODULE = "sglang.srt.speculative.dflash_worker"


def result_of(path: str, text: str):
    return handler_for(path)(path, text.encode(), text_context(path, Options(mode="lint")))


# ---- case 11: ``--add-noqa`` inside a shell string ----------------------------------------


@pytest.mark.skipif(shutil.which("bash") is None, reason="the attack is shown by running the script with bash")
@pytest.mark.parametrize("script", [
    f"echo 'x\\' 'y\nworker={QUALIFIED}\n'\n",
    f"echo $'it\\'s\nworker={QUALIFIED}\n'\n",
    f'echo "$(printf %s `echo "`)"\nworker={QUALIFIED}\n"\n',
])
def test_add_noqa_never_writes_a_comment_into_a_shell_string(repo: Path, script: str) -> None:
    """Attack: ``echo 'x\\' 'y`` leaves a single-quoted string open (``'x\\'`` is closed:
    no escapes inside ``'...'``), yet its quotes are even in number once ``\\'`` is dropped,
    and ``$'it\\'s`` the same way; a qualified V1 name on the next line is a finding, and
    ``--add-noqa`` decided by quote parity that the line starts outside a string, so the
    comment it wrote there became part of the string and changed what the script prints.
    The shell parser of the fixes decides now, and text it cannot read for sure (backquotes,
    quotes nested in ``"$(...)"``) refuses every line after it."""
    (repo / "run.sh").write_text(script)
    before = subprocess.run(["bash", "run.sh"], check=False, capture_output=True, text=True, timeout=30).stdout
    results = run([Path(".")], Options(mode="lint", jobs=1)).results
    findings = sum(len(r.findings) for r in results)
    assert findings >= 1, "the attack needs a finding on the line inside the string"
    counts = add_noqa.add(results)
    assert (repo / "run.sh").read_text() == script
    assert subprocess.run(["bash", "run.sh"], check=False, capture_output=True, text=True, timeout=30).stdout == before
    assert counts.left == findings and counts.comments == 0


def test_add_noqa_still_comments_after_a_closed_ansi_c_string() -> None:
    """The parser is not a blanket refusal: after ``$'it\\'s'`` (closed) the next line starts
    a command, and gets its comment."""
    text = f"echo $'it\\'s'\nworker={QUALIFIED}\n"
    new, done = add_noqa._own_line("shell", text.encode(), {2: {"DFM102"}})
    assert done == {2} and new.decode().splitlines()[1] == "# dflash-migrate: ignore[DFM102]"


# ---- case 14: ``\\"`` does not end a string for the suppression scanner ---------------------


@pytest.mark.parametrize("path, text", [
    ("run.sh", f'echo "\\" # dflash-migrate: ignore[DFM201]"; export {ENV}=1\n'),
    ("run.sh", f'echo "\\" # dflash-migrate: ignore-file"\nexport {ENV}=1\n'),
    ("run.sh", f"echo $'\\' # dflash-migrate: ignore-file'\nexport {ENV}=1\n"),
    ("pyproject.toml", f'a = "\\" # dflash-migrate: ignore-file"\n[tool.x.env]\n{ENV} = "1"\n'),
    ("ci.yml", f'a: "\\" # dflash-migrate: ignore-file"\nenv:\n  {ENV}: "1"\n'),
    (".env", f'A="\\" # dflash-migrate: ignore-file"\n{ENV}=1\n'),
    (".env", f"A='x\\' # dflash-migrate: ignore-file'\n{ENV}=1\n"),
    ("Dockerfile", f'FROM x\nLABEL a="\\" # dflash-migrate: ignore-file"\nENV {ENV}=1\n'),
    ("Dockerfile", f'FROM x\nENV {ENV}=1 B="\\" # dflash-migrate: ignore[DFM201]"\n'),
    ("Makefile", f'X := "\\" # dflash-migrate: ignore-file"\nall:\n\texport {ENV}=1; python -m sglang.launch_server\n'),
    ("Makefile", f'all:\n\techo "\\" # dflash-migrate: ignore[DFM201]"; export {ENV}=1; python -m x\n'),
    ("README.md", f'```bash\necho "\\" # dflash-migrate: ignore[DFM201]"; export {ENV}=1\n```\n'),
    ("cfg.json", f'{{"a": "\\" // dflash-migrate: ignore-file", "{ENV}": "1"}}\n'),
    ("app.js", f'const s = "\\" # dflash-migrate: ignore-file";\nimport x from "{MODULE}";\n'),
])
def test_a_directive_inside_a_string_silences_nothing(path: str, text: str) -> None:
    """Attack: ``echo "\\" # dflash-migrate: ignore[DFM201]"; export SGLANG_ENABLE_SPEC_V2=1``:
    the suppression scanner ended the string at ``\\"``, so the directive, text of the
    string, hid the export on its line; an ``ignore-file`` in such a string silenced a whole
    TOML, YAML, ``.env``, shell, Dockerfile, Makefile, JSON or other text file. Each type's
    real quoting decides now (bash's ``"..."`` and ``$'...'`` escapes, TOML's and YAML's
    basic strings, python-dotenv's ``'\\''``); where two readers of a type disagree (make
    has no quotes at all, bash does) the line holds no comment."""
    result = result_of(path, text)
    assert result.error is None, result.error
    assert result.findings, "the directive in a string silenced the finding"
    assert result.suppressed == 0


def test_an_escaped_quote_does_not_hide_a_script_line_from_the_rules() -> None:
    """Attack (case 14, the findings side): in a workflow's ``run: |`` script,
    ``echo "\\" # x"; export SGLANG_ENABLE_SPEC_V2=1`` lost everything after the ``#``,
    which the comment stripper took for a comment after ``\\"`` ended the string."""
    text = f'jobs:\n  a:\n    steps:\n      - run: |\n          echo "\\" # x"; export {ENV}=1\n'
    assert [f.code for f in result_of(".github/workflows/ci.yml", text).findings] == ["DFM201"]


@pytest.mark.parametrize("path, text", [
    ("run.sh", f'echo "\\"" # dflash-migrate: ignore-file\nexport {ENV}=1\n'),
    ("pyproject.toml", f"a = 'x\\' # dflash-migrate: ignore-file'\n[tool.x.env]\n{ENV} = '1'\n"),
    ("ci.yml", f'a: "\\"" # dflash-migrate: ignore-file\nenv:\n  {ENV}: "1"\n'),
    (".env", f'A="\\"" # dflash-migrate: ignore-file\n{ENV}=1\n'),
    ("Makefile", f'X := a # dflash-migrate: ignore-file\nall:\n\texport {ENV}=1; python -m x\n'),
])
def test_a_comment_after_an_escaped_quote_still_counts(path: str, text: str) -> None:
    """The other side: after a string that holds ``\\"`` (and after TOML's literal ``'x\\'``,
    which holds no escape), a real comment still suppresses."""
    result = result_of(path, text)
    assert result.error is None and not result.findings and result.suppressed >= 1


# ---- case 15: JS regex literals and JSX text open no block comment ------------------------


LATER = f'const worker = "{MODULE}";\n'


@pytest.mark.parametrize("path, opening", [
    ("strip.js", "const trailing = /\\/*$/;\n"),
    ("strip.ts", "if (/[/*]/.test(s)) { s = s.slice(1); }\n"),
    ("Note.jsx", "export const Note = () => <p>/* note</p>;\n"),
    ("Note.tsx", "export const Note = () => (\n  <div>\n    {title}/* note\n  </div>\n);\n"),
    ("App.vue", "<template>\n  <p>/* note</p>\n</template>\n<script>\n"),
    ("legacy.js", "/* a comment never closed\n"),
])
def test_no_regex_literal_or_jsx_text_hides_later_mentions(path: str, opening: str) -> None:
    """Attack: a JavaScript regex literal ``/\\/*$/`` or JSX text ``<p>/* note</p>`` held a
    ``/*`` that the text fallback scanner took for a block comment never closed, blanking
    every later line of the file: a V1 module path below it was never reported. A regex
    literal and JSX text are read as such now, and a ``/*`` that is never closed hides
    nothing."""
    text = opening + LATER
    found = [f for f in result_of(path, text).findings if f.line == text.count("\n")]
    assert found, "the later mention was hidden"


def test_real_comments_of_a_jsx_file_are_still_skipped() -> None:
    """The other side: a mention inside a real comment (also an expression container's
    ``{/* ... */}`` and a Vue ``<script>``'s comment) is still not reported."""
    text = (f"// {MODULE}\nconst r = /a\\/b/; /* {MODULE} */\n"
            f"export const A = () => <p>{{/* {MODULE} */}}</p>;\n/*\n {MODULE}\n*/\n")
    assert result_of("A.jsx", text).findings == []
    vue = f"<template><p>x</p></template>\n<script>\n/* {MODULE} */\nexport default {{}}\n</script>\n"
    assert result_of("A.vue", vue).findings == []


def test_unclosed_regex_lookalikes_take_linear_time() -> None:
    """Attack on the fix itself: a 180 KB line of ``(/[`` makes every ``/`` look like a regex
    literal that never closes; scanning each to the line's end took minutes (quadratic).
    After one such ``/`` no other on the line is tried."""
    import time

    text = "(/[" * 60_000 + "\n" + LATER + "// note\n"
    started = time.perf_counter()
    found = result_of("hostile.js", text).findings
    assert time.perf_counter() - started < 10
    assert [f.line for f in found] == [2]
