"""Structured text files: keys and values are located with the format's grammar (PyYAML's
node marks, a TOML string tokenizer, ``json.loads`` before the notebook position scan), so
nothing inside a block scalar, a multi-line string or a malformed notebook cell is edited
as if it were a key (issue 13 item 6, issue 12 item 7)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from migrator.run.engine import Options
from migrator.run.python_file import text_context
from migrator.text import handler_for

T = "0.5.17"
ROOT = Path(__file__).resolve().parents[1]


def run(path: str, text: str, mode: str = "lint"):
    return handler_for(path)(path, text.encode(), text_context(path, Options(mode=mode, target_version=T)))


def where(result) -> list[tuple[int, int, str]]:
    return [(f.line, f.column, f.code) for f in result.findings]


def fixed(path: str, text: str) -> str:
    result = run(path, text, "fix")
    assert result.error is None
    return result.new_bytes.decode() if result.new_bytes is not None else text


class TestYaml:
    BODY = ("issue:\n"
            "  title: spec\n"
            "  body: |\n"
            "    Set this in your deployment:\n"
            "    SGLANG_ENABLE_SPEC_V2: 1\n"
            "  note: \"first line\n"
            "    SGLANG_ENABLE_SPEC_V2: 0\"\n"
            "env:\n"
            "  SGLANG_ENABLE_SPEC_V2: \"1\"\n")

    def test_block_scalar_and_quoted_text_are_not_keys(self) -> None:
        out = fixed("issue.yaml", self.BODY)
        # the real key under env: is removed; the texts inside body and note are untouched
        assert out == self.BODY.replace('env:\n  SGLANG_ENABLE_SPEC_V2: "1"\n', "env: {}\n")

    def test_only_the_real_key_is_a_safe_fix(self) -> None:
        findings = run("issue.yaml", self.BODY).findings
        safe = [(f.line, f.column) for f in findings if f.fix is not None and f.fix.applicability == "safe"]
        assert safe == [(9, 2)]

    def test_run_block_is_still_shell(self) -> None:
        src = ("jobs:\n  serve:\n    steps:\n      - run: |\n          export SGLANG_ENABLE_SPEC_V2=1\n"
               "          python -m sglang.launch_server --model-path m\n")
        result = run("ci.yml", src)
        assert where(result) == [(5, 17, "DFM201")]
        assert "SGLANG_ENABLE_SPEC_V2" not in fixed("ci.yml", src)

    def test_template_that_is_not_yaml_is_reported_not_edited(self) -> None:
        src = "env:\n{{- if .Values.sync }}\n  SGLANG_ENABLE_SPEC_V2: \"0\"\n{{- end }}\n  - [\n"
        result = run("templates/deploy.yaml", src, "fix")
        assert where(result) == [(3, 2, "DFM201")]
        assert result.new_bytes is None


class TestToml:
    def test_multiline_basic_string_is_text(self) -> None:
        src = '[tool.task]\nscript = """\nSGLANG_ENABLE_SPEC_V2 = "1"\n"""\nSGLANG_ENABLE_SPEC_V2 = "1"\n'
        assert where(run("pyproject.toml", src)) == [(3, 0, "DFM201"), (5, 0, "DFM201")]
        assert fixed("pyproject.toml", src) == '[tool.task]\nscript = """\nSGLANG_ENABLE_SPEC_V2 = "1"\n"""\n'

    def test_multiline_literal_string_and_quotes_that_open_nothing(self) -> None:
        src = ("a = 'not \"\"\" a start'\n"
               "# a comment with \"\"\" in it\n"
               "b = '''\n"
               "SGLANG_ENABLE_SPEC_V2 = 0\n"
               "'''\n"
               "[env]\n"
               "SGLANG_ENABLE_SPEC_V2 = \"true\"\n")
        result = run("x.toml", src)
        assert where(result) == [(4, 0, "DFM201"), (7, 0, "DFM201")]
        assert [f.fix.edits for f in result.findings][0] == ()
        assert fixed("x.toml", src) == src.replace('SGLANG_ENABLE_SPEC_V2 = "true"\n', "")

    def test_escaped_quotes_do_not_end_the_string(self) -> None:
        src = 'msg = """say \\""" and\nSGLANG_ENABLE_SPEC_V2 = 1\n"""\n'
        assert fixed("x.toml", src) == src


def notebook(*cells: dict) -> str:
    return json.dumps({"cells": list(cells), "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)


V1_IMPORT = "from sglang.srt.speculative.dflash_worker import DFlashWorker\n"


class TestNotebook:
    def test_null_source_is_an_error_naming_the_cell_and_later_cells_keep_their_places(self) -> None:
        text = notebook({"cell_type": "code", "source": None, "metadata": {}, "outputs": []},
                        {"cell_type": "raw", "source": [V1_IMPORT], "metadata": {}},
                        {"cell_type": "code", "source": [V1_IMPORT], "metadata": {}, "outputs": []})
        result = run("n.ipynb", text)
        assert result.error is not None and "cell 1" in result.error.message and result.error.line == 3
        holding = [n for n, text_line in enumerate(text.splitlines(), 1) if json.dumps(V1_IMPORT) in text_line]
        column = text.splitlines()[holding[-1] - 1].index('"') + 1 + V1_IMPORT.index("sglang")
        assert where(result) == [(holding[-1], column, "DFM101"), (holding[-1], column + 44, "DFM102")]
        assert all("[cell 3, line 1]" in f.message for f in result.findings)

    def test_bad_cells_of_other_shapes(self) -> None:
        text = notebook({"cell_type": "code", "source": [["nested"]], "metadata": {}, "outputs": []},
                        {"cell_type": "code", "source": 7, "metadata": {}, "outputs": []},
                        "not a cell",
                        {"cell_type": "code", "source": V1_IMPORT, "metadata": {}, "outputs": []})
        result = run("n.ipynb", text)
        for cell in ("cell 1", "cell 2", "cell 3"):
            assert cell in result.error.message
        assert [f.code for f in result.findings] == ["DFM101", "DFM102"]

    def test_repeated_source_key_uses_the_value_json_uses(self) -> None:
        text = ('{"cells": [{"cell_type": "code", "source": ["x = 1\\n"], "metadata": {}, '
                f'"source": [{json.dumps(V1_IMPORT)}]}}], "metadata": {{}}, "nbformat": 4, "nbformat_minor": 5}}')
        result = run("n.ipynb", text)
        assert result.error is None
        column = text.index(json.dumps(V1_IMPORT)) + 1 + V1_IMPORT.index("sglang")
        assert where(result) == [(1, column, "DFM101"), (1, column + 44, "DFM102")]

    def test_malformed_json_is_an_error_even_under_python_O(self) -> None:
        broken = '{"cells" [{"cell_type": "code", "source": ["import os\\n"]}]}'
        script = ("import sys; from migrator.base.options import Options; from migrator.run.python_file import text_context; from migrator.text import handler_for;"
                  "r = handler_for('n.ipynb')('n.ipynb', sys.stdin.buffer.read(), text_context('n.ipynb', Options(mode='lint')));"
                  "print(r.error)")
        proc = subprocess.run([sys.executable, "-O", "-c", script], input=broken.encode(), capture_output=True,
                              cwd=ROOT, timeout=60)
        assert proc.returncode == 0, proc.stderr
        assert b"not a readable notebook: not valid JSON" in proc.stdout and b":1:10:" in proc.stdout


#: (YAML, how many times the fixed file passes the flag): the launch of a setting's block
#: that already passes ``--disable-overlap-schedule`` (on another line of its command, in
#: its ``args``, in a folded command) does not get it again; one that does not, does.
ALREADY_PASSING = [
    ("services:\n  a:\n    environment:\n      SGLANG_ENABLE_SPEC_V2: \"0\"\n    command:\n      - python\n"
     "      - -m\n      - sglang.launch_server\n      - --disable-overlap-schedule\n", 1),
    ("services:\n  a:\n    environment:\n      - SGLANG_ENABLE_SPEC_V2=0\n"
     "    entrypoint: python3 -m sglang.launch_server\n    command: [\"--disable-overlap-schedule\"]\n", 1),
    ("services:\n  a:\n    environment:\n      SGLANG_ENABLE_SPEC_V2: \"0\"\n    command: >\n"
     "      python -m sglang.launch_server\n      --disable-overlap-schedule\n", 1),
    ("services:\n  a:\n    environment:\n      SGLANG_ENABLE_SPEC_V2: \"0\"\n"
     "    command: python -m sglang.launch_server --model-path m --disable-overlap-schedule\n", 1),
    ("spec:\n  containers:\n    - name: s\n      env:\n        - name: SGLANG_ENABLE_SPEC_V2\n          value: \"0\"\n"
     "      args: [\"--disable-overlap-schedule\"]\n      command: [\"python3\", \"-m\", \"sglang.launch_server\"]\n", 1),
    ("jobs:\n  serve:\n    env:\n      SGLANG_ENABLE_SPEC_V2: \"0\"\n    steps:\n"
     "      - run: python -m sglang.launch_server --disable-overlap-schedule\n"
     "      - name: second\n        run: python -m sglang.launch_server --port 2\n", 2),
    ("services:\n  a:\n    environment:\n      - SGLANG_ENABLE_SPEC_V2=0\n"
     "    command: [\"python\", \"-m\", \"sglang.launch_server\"]\n", 1),
]


def test_a_launch_that_already_passes_the_flag_does_not_get_it_twice() -> None:
    for text, times in ALREADY_PASSING:
        result = fixed("docker-compose.yml", text)
        assert "SGLANG_ENABLE_SPEC_V2" not in result, result
        assert result.count("--disable-overlap-schedule") == times, result
