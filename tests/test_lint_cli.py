"""``lint`` end to end over a mixed tree, exit codes, formats, ``rules`` and ``explain``."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from migrator import catalog
from migrator.cli.runs.explain import explain
from migrator.cli.runs.lint import run as lint
from migrator.cli.runs.rules import rules_table


def tree(root: Path) -> Path:
    (root / "pkg").mkdir()
    (root / "pkg" / "clean.py").write_text("import os\n")
    (root / "pkg" / "v1.py").write_text("from sglang.srt.speculative.dflash_worker import DFlashWorker\n")
    (root / "pkg" / "broken.py").write_text("from sglang.srt.speculative import dflash_worker\ndef (:\n")
    (root / "serve.sh").write_text("export SGLANG_ENABLE_SPEC_V2=0\npython -m sglang.launch_server\n")
    (root / "k8s.yaml").write_text("env:\n  - name: SGLANG_ENABLE_SPEC_V2\n    value: '1'\n")
    (root / "notes.md").write_text("plain text\n")
    return root


def run(*paths: Path, **kw) -> tuple[int, str]:
    out = io.StringIO()
    code = lint(list(paths), stdout=out, stderr=io.StringIO(), target_version="0.5.20", **kw)
    return code, out.getvalue()


def test_mixed_tree_reports_everything_and_exits_2(tmp_path: Path) -> None:
    code, out = run(tree(tmp_path), fmt="json")
    doc = json.loads(out)
    assert code == 2
    where = {(Path(f["path"]).name, f["code"]) for f in doc["findings"]}
    assert {("v1.py", "DFM102"), ("serve.sh", "DFM201"), ("k8s.yaml", "DFM201")} <= where
    assert [Path(e["path"]).name for e in doc["errors"]] == ["broken.py"]
    assert all(f["fix"] is None or f["fix"]["applicability"] in ("safe", "unsafe", "manual") for f in doc["findings"])
    assert (tmp_path / "serve.sh").read_text().startswith("export")  # lint never writes


def test_exit_codes(tmp_path: Path) -> None:
    root = tree(tmp_path)
    assert run(root / "pkg" / "clean.py", root / "notes.md")[0] == 0
    assert run(root / "serve.sh")[0] == 1
    assert run(root / "serve.sh", exit_zero=True)[0] == 0
    assert run(root / "pkg" / "broken.py", exit_zero=True)[0] == 2


def test_text_format_and_output_file(tmp_path: Path) -> None:
    root = tree(tmp_path)
    code, out = run(root / "serve.sh")
    assert code == 1 and f"{root / 'serve.sh'}:1:8: DFM201 " in out
    target = tmp_path / "report.sarif"
    code, out = run(root / "serve.sh", fmt="sarif", output=target)
    assert out == "" and json.loads(target.read_text())["runs"][0]["results"][0]["ruleId"] == "DFM201"


def test_config_and_flags(tmp_path: Path) -> None:
    root = tree(tmp_path)
    (root / "pyproject.toml").write_text('[tool.dflash-migrate]\nignore = ["DFM201"]\nexclude = ["pkg/broken.py"]\n')
    code, out = run(root, fmt="json")
    doc = json.loads(out)
    assert code == 1 and not doc["errors"] and "DFM102" in {f["code"] for f in doc["findings"]}
    assert "DFM201" not in {f["code"] for f in doc["findings"]}
    assert run(root, select=["DFM201"], ignore=None)[0] in (0, 1)


def test_suppression_in_shell_file(tmp_path: Path) -> None:
    f = tmp_path / "s.sh"
    f.write_text("export SGLANG_ENABLE_SPEC_V2=1  # dflash-migrate: ignore[DFM201]\necho  # dflash-migrate: ignore\n")
    code, out = run(f, fmt="json")
    doc = json.loads(out)
    assert code == 0 and doc["summary"]["suppressed"] == 1
    assert doc["unused_suppressions"] == [{"path": str(f), "line": 2, "codes": []}]


def test_rules_and_explain() -> None:
    table = rules_table().splitlines()
    assert table[0].split()[:3] == ["CODE", "FIX", "REMOVED"]
    assert len(table) == len(catalog.ENTRIES) + 1
    text = explain("dfm101")
    assert text.startswith("DFM101: ") and "dflash_worker_v2" in text and "MIGRATION.md#dfm101" in text
    with pytest.raises(KeyError):
        explain("DFM999")


def test_typer_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from migrator.cli.main import main

    f = tmp_path / "s.sh"
    f.write_text("export SGLANG_ENABLE_SPEC_V2=0\n")
    assert main(["lint", "--format", "github", "--target-version", "0.5.20", str(f)]) == 1
    assert capsys.readouterr().out.startswith("::error file=")
    assert main(["lint", "--exit-zero", str(f)]) == 0
    assert main(["rules"]) == 0 and "DFM201" in capsys.readouterr().out
    assert main(["explain", "DFM203"]) == 0 and "--speculative-draft-window-size" in capsys.readouterr().out
    assert main(["explain", "DFM999"]) == 2
