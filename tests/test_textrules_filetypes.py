"""Non-Python files: what is flagged, what is not, and what a safe rewrite produces."""

from __future__ import annotations

import json

import pytest

from migrator.run.engine import Options
from migrator.run.python_file import text_context
from migrator.text import handler_for, module_for

T = "0.5.20"
FLAG = "--disable-overlap-schedule"


def lint(path: str, text: str, target: str = T):
    return handler_for(path)(path, text.encode(), text_context(path, Options(mode="lint", target_version=target)))


def fix(path: str, text: str, target: str = T) -> str:
    result = handler_for(path)(path, text.encode(), text_context(path, Options(mode="fix", target_version=target)))
    assert result.error is None
    out = result.new_bytes.decode() if result.new_bytes is not None else text
    again = handler_for(path)(path, out.encode(), text_context(path, Options(mode="fix", target_version=target)))
    assert again.new_bytes is None, "second run must be a no-op"
    return out


def codes(path: str, text: str) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in lint(path, text).findings]


@pytest.mark.parametrize("path, module", [
    ("deploy/run.sh", "shell"), ("Dockerfile", "dockerfile"), ("Dockerfile.cuda", "dockerfile"),
    ("k8s/a.yaml", "yaml"), ("ci.yml", "yaml"), (".env", "dotenv"), (".env.prod", "dotenv"),
    ("x.toml", "toml"), ("x.json", "jsonfile"), ("README.md", "markdown"), ("n.ipynb", "notebook"),
    ("x.py", None), ("x.txt", "fallback"), ("web/App.tsx", "fallback"), ("docs/a.mdx", "markdown"),
    ("weights.safetensors", None),
])
def test_registry(path: str, module: str | None) -> None:
    assert module_for(path) == module


def test_shebang_detection(tmp_path) -> None:
    script = tmp_path / "serve"
    script.write_bytes(b"#!/usr/bin/env bash\necho hi\n")
    assert module_for(str(script)) == "shell"
    (tmp_path / "data").write_bytes(b"\x00\x01")
    assert module_for(str(tmp_path / "data")) == "fallback"  # which skips it: it holds a NUL byte


class TestShell:
    def test_lookalikes_and_comments_are_not_flagged(self) -> None:
        assert codes("a.sh", "export SGLANG_ENABLE_SPEC_V2_X=0\n# export SGLANG_ENABLE_SPEC_V2=0\n"
                             "echo 'MY_SGLANG_ENABLE_SPEC_V2=0'\n") == []

    def test_export_falsy_adds_flag_to_later_launch(self) -> None:
        src = "export SGLANG_ENABLE_SPEC_V2=0\npython -m sglang.launch_server --model-path m\n"
        assert codes("a.sh", src) == [(1, "DFM201")]
        assert fix("a.sh", src) == f"python -m sglang.launch_server {FLAG} --model-path m\n"

    def test_prefix_assignment_and_continuation(self) -> None:
        src = 'SGLANG_ENABLE_SPEC_V2="false" python3 -m sglang.launch_server \\\n  --model-path m\n'
        assert fix("a.sh", src) == f"python3 -m sglang.launch_server {FLAG} \\\n  --model-path m\n"

    def test_docker_run_env_flag(self) -> None:
        src = "docker run --gpus all -e SGLANG_ENABLE_SPEC_V2=0 img python3 -m sglang.launch_server --port 1\n"
        assert fix("a.sh", src) == f"docker run --gpus all img python3 -m sglang.launch_server {FLAG} --port 1\n"

    def test_truthy_is_removed(self) -> None:
        assert fix("a.sh", "export SGLANG_ENABLE_SPEC_V2=1\necho ok\n") == "echo ok\n"
        assert fix("a.sh", "unset SGLANG_ENABLE_SPEC_V2\n") == ""

    def test_no_launch_in_file_leaves_todo(self) -> None:
        out = fix("a.sh", "export SGLANG_ENABLE_SPEC_V2=0\nbash serve.sh\n")
        assert out.startswith("# TODO(dflash-migrate): DFM201 ") and "export SGLANG_ENABLE_SPEC_V2=0" in out

    def test_reads_get_todo(self) -> None:
        src = 'ARGS="${SGLANG_ENABLE_SPEC_V2:+--x}"\n'
        assert codes("a.sh", src) == [(1, "DFM201")]
        assert fix("a.sh", src).splitlines()[0].startswith("# TODO(dflash-migrate): DFM201")

    def test_flag_already_present_is_not_duplicated(self) -> None:
        src = f"export SGLANG_ENABLE_SPEC_V2=0\npython -m sglang.launch_server {FLAG}\n"
        assert fix("a.sh", src) == f"python -m sglang.launch_server {FLAG}\n"

    def test_renamed_cli_flag_follows_target(self) -> None:
        src = "python -m sglang.launch_server --speculative-dflash-draft-window-size 8\n"
        assert codes("a.sh", src) == [(1, "DFM203")]
        assert fix("a.sh", src) == "python -m sglang.launch_server --speculative-draft-window-size 8\n"
        assert lint("a.sh", src, target="0.5.12").findings == []

    def test_crlf_and_bom_are_kept(self) -> None:
        src = "\ufeffexport SGLANG_ENABLE_SPEC_V2=1\r\necho ok\r\n"
        assert fix("a.sh", src) == "\ufeffecho ok\r\n"

    def test_not_utf8_is_an_error(self) -> None:
        result = handler_for("a.sh")("a.sh", b"\xff\xfe\x00", text_context("a.sh", Options(mode="lint", target_version=T)))
        assert result.error is not None and "UTF-8" in result.error.message


class TestDockerfile:
    def test_env_forms(self) -> None:
        src = ("FROM x\n# ENV SGLANG_ENABLE_SPEC_V2=0\nENV SGLANG_ENABLE_SPEC_V2=0\n"
               "ENV A=1 \\\n    SGLANG_ENABLE_SPEC_V2=\"1\" \\\n    B=2\nENV SGLANG_ENABLE_SPEC_V2_X 0\n"
               'CMD ["python3", "-m", "sglang.launch_server", "--model-path", "m"]\n')
        assert codes("Dockerfile", src) == [(3, "DFM201"), (5, "DFM201")]
        assert fix("Dockerfile", src) == (
            "FROM x\n# ENV SGLANG_ENABLE_SPEC_V2=0\nENV A=1 \\\n    B=2\nENV SGLANG_ENABLE_SPEC_V2_X 0\n"
            f'CMD ["python3", "-m", "sglang.launch_server", "{FLAG}", "--model-path", "m"]\n')

    def test_legacy_form_and_shell_cmd(self) -> None:
        src = "FROM x\nENV SGLANG_ENABLE_SPEC_V2 0\nCMD python3 -m sglang.launch_server --port 1\n"
        assert fix("Dockerfile", src) == f"FROM x\nCMD python3 -m sglang.launch_server {FLAG} --port 1\n"

    def test_launch_in_another_stage_does_not_count(self) -> None:
        src = "FROM a\nENV SGLANG_ENABLE_SPEC_V2=0\nFROM b\nCMD python3 -m sglang.launch_server\n"
        assert "TODO(dflash-migrate): DFM201" in fix("Dockerfile", src)

    def test_run_uses_shell_rules(self) -> None:
        src = "FROM a\nRUN SGLANG_ENABLE_SPEC_V2=1 python -c 'print(1)'\n"
        assert fix("Dockerfile", src) == "FROM a\nRUN python -c 'print(1)'\n"


K8S = """\
spec:
  containers:
    - name: server
      command: ["python3", "-m", "sglang.launch_server"]
      env:
        - name: SGLANG_ENABLE_SPEC_V2
          value: "0"
        - name: SGLANG_ENABLE_SPEC_V2_OTHER
          value: "0"
        # - name: SGLANG_ENABLE_SPEC_V2
    - name: sidecar
      env:
        - name: SGLANG_ENABLE_SPEC_V2
          value: "true"
"""


class TestYaml:
    def test_kubernetes_env_list(self) -> None:
        assert codes("d.yaml", K8S) == [(6, "DFM201"), (13, "DFM201")]
        out = fix("d.yaml", K8S)
        assert f'"sglang.launch_server", "{FLAG}"]' in out
        assert "sidecar\n      env: []\n" in out
        assert "SGLANG_ENABLE_SPEC_V2_OTHER" in out and '- name: SGLANG_ENABLE_SPEC_V2\n' not in out.replace("# -", "")
        import yaml

        assert yaml.safe_load(out)["spec"]["containers"][0]["env"] == [
            {"name": "SGLANG_ENABLE_SPEC_V2_OTHER", "value": "0"}]

    def test_compose_mapping_and_list(self) -> None:
        src = ("services:\n  a:\n    environment:\n      SGLANG_ENABLE_SPEC_V2: \"0\"\n"
               "    command: python3 -m sglang.launch_server --port 1\n"
               "  b:\n    environment:\n      - SGLANG_ENABLE_SPEC_V2=1\n      - A=1\n")
        assert fix("c.yml", src) == (
            "services:\n  a:\n    environment: {}\n"
            f"    command: python3 -m sglang.launch_server {FLAG} --port 1\n"
            "  b:\n    environment:\n      - A=1\n")

    def test_block_list_launch_gets_a_new_item(self) -> None:
        src = ("containers:\n  - args:\n      - python3\n      - -m\n      - sglang.launch_server\n"
               "    env:\n      - name: SGLANG_ENABLE_SPEC_V2\n        value: '0'\n")
        out = fix("d.yaml", src)
        assert f"      - sglang.launch_server\n      - {FLAG}\n" in out and "value" not in out

    def test_ci_matrix_and_run_script(self) -> None:
        src = ("jobs:\n  t:\n    strategy:\n      matrix:\n        SGLANG_ENABLE_SPEC_V2: [0, 1]\n"
               "    steps:\n      - run: |\n          export SGLANG_ENABLE_SPEC_V2=0\n"
               "          python -m sglang.launch_server\n")
        assert codes("ci.yml", src) == [(5, "DFM201"), (8, "DFM201")]
        out = fix("ci.yml", src)
        assert "# TODO(dflash-migrate): DFM201" in out.splitlines()[4]
        assert out.rstrip().endswith(f"python -m sglang.launch_server {FLAG}")


class TestDotenvTomlJson:
    def test_dotenv(self) -> None:
        src = "A=1\nSGLANG_ENABLE_SPEC_V2=1\n# SGLANG_ENABLE_SPEC_V2=0\nexport SGLANG_ENABLE_SPEC_V2='no'\n"
        assert codes(".env", src) == [(2, "DFM201"), (4, "DFM201")]
        out = fix(".env", src)
        assert out.startswith("A=1\n# SGLANG_ENABLE_SPEC_V2=0\n# TODO(dflash-migrate): DFM201")

    def test_toml(self) -> None:
        src = ('[tool.poe.tasks.serve]\ncmd = "python -m sglang.launch_server --port 1"\n'
               '[tool.poe.tasks.serve.env]\nSGLANG_ENABLE_SPEC_V2 = "0"\nSGLANG_ENABLE_SPEC_V2_X = "0"\n')
        out = fix("pyproject.toml", src)
        assert out == ('[tool.poe.tasks.serve]\ncmd = "python -m sglang.launch_server ' + FLAG + ' --port 1"\n'
                       '[tool.poe.tasks.serve.env]\nSGLANG_ENABLE_SPEC_V2_X = "0"\n')

    def test_strict_json_is_report_only(self) -> None:
        src = json.dumps({"containerEnv": {"SGLANG_ENABLE_SPEC_V2": "0", "SGLANG_ENABLE_SPEC_V2_X": "0"}}, indent=2)
        result = lint("config.json", src)
        assert [(f.line, f.code) for f in result.findings] == [(3, "DFM201")]
        assert result.findings[0].fix.applicability == "manual" and result.findings[0].fix.replacement == FLAG
        assert fix("config.json", src) == src

    def test_json_with_comments_gets_a_slash_slash_todo(self) -> None:
        """devcontainer.json takes ``//`` comments: the TODO is written there (at 1549b23 it was report only)."""
        src = json.dumps({"containerEnv": {"SGLANG_ENABLE_SPEC_V2": "0"}}, indent=2)
        out = fix("devcontainer.json", src)
        lines = out.splitlines()
        assert lines[2].startswith("    // TODO(dflash-migrate): DFM201 ") and lines[5] == src.splitlines()[2], out
        assert all(line.startswith("    //   ") and len(line) <= 88 for line in lines[3:5]), out
        assert json.loads("\n".join(line for line in lines if not line.lstrip().startswith("//"))) == json.loads(src)
        assert fix("devcontainer.json", out) == out


class TestMarkdown:
    def test_code_blocks_and_inline_code(self) -> None:
        src = ("# Serve\nProse mentions SGLANG_ENABLE_SPEC_V2 freely.\nOr `SGLANG_ENABLE_SPEC_V2=0`.\n"
               "```bash\nexport SGLANG_ENABLE_SPEC_V2=0\npython -m sglang.launch_server\n```\n"
               "```text\nSGLANG_ENABLE_SPEC_V2=0\n```\n")
        assert codes("README.md", src) == [(2, "DFM409"), (3, "DFM201"), (5, "DFM201"), (9, "DFM201")]
        out = fix("README.md", src)
        assert f"```bash\npython -m sglang.launch_server {FLAG}\n```" in out
        assert "Or `SGLANG_ENABLE_SPEC_V2=0`." in out and "```text\nSGLANG_ENABLE_SPEC_V2=0\n```" in out

    def test_console_prompts(self) -> None:
        src = "```console\n$ SGLANG_ENABLE_SPEC_V2=1 python -m x\nSGLANG_ENABLE_SPEC_V2=1 output line\n```\n"
        assert codes("a.md", src) == [(2, "DFM201")]


def notebook(*cells: list[str], cell_type: str = "code") -> str:
    nb = {"cells": [{"cell_type": cell_type, "execution_count": None, "metadata": {}, "outputs": [], "source": c}
                    for c in cells],
          "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"


class TestNotebook:
    def test_shell_cell_rewrite_keeps_other_bytes(self) -> None:
        src = notebook(["print('héllo')\n", "x = 1"],
                       ["%%bash\n", "export SGLANG_ENABLE_SPEC_V2=0\n", "python -m sglang.launch_server\n"])
        result = lint("n.ipynb", src)
        [f] = result.findings
        assert f.message.endswith("[cell 2, line 2]")
        assert src.splitlines()[f.line - 1].strip().startswith('"export SGLANG_ENABLE_SPEC_V2=0')
        out = fix("n.ipynb", src)
        expected = src.replace('    "export SGLANG_ENABLE_SPEC_V2=0\\n",\n', "").replace(
            "sglang.launch_server\\n", f"sglang.launch_server {FLAG}\\n")
        assert out == expected

    def test_bang_and_env_magics(self) -> None:
        src = notebook(["%env SGLANG_ENABLE_SPEC_V2=1\n",
                        "!SGLANG_ENABLE_SPEC_V2=0 python -m sglang.launch_server --port 1"])
        out = fix("n.ipynb", src)
        assert json.loads(out)["cells"][0]["source"] == [f"!python -m sglang.launch_server {FLAG} --port 1"]

    def test_unreadable_notebook_is_an_error(self) -> None:
        assert lint("n.ipynb", "{not json").error is not None


def test_removed_line_between_blank_lines_takes_one_blank_line_along() -> None:
    from migrator.run.engine import Options
    from migrator.run.pipeline import process_bytes

    text = "#!/bin/sh\nset -e\n\nexport SGLANG_ENABLE_SPEC_V2=1\n\npython -m sglang.launch_server --speculative-algorithm DFLASH\n"
    result = process_bytes("serve.sh", text.encode(), Options(mode="fix", target_version="0.5.17"))
    assert result.new_bytes.decode() == "#!/bin/sh\nset -e\n\npython -m sglang.launch_server --speculative-algorithm DFLASH\n"
