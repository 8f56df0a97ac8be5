"""Fully qualified removed names in non-Python files (plugin configs, manifests)."""

from __future__ import annotations

from migrator.run.engine import Options
from migrator.run.pipeline import process_bytes


def run(name: str, text: str, mode: str = "fix", target: str = "0.5.17"):
    return process_bytes(name, text.encode(), Options(mode=mode, target_version=target))


def test_yaml_class_path_renamed_and_removed_function_gets_todo() -> None:
    text = (
        "spec:\n"
        "  worker_cls: sglang.srt.speculative.dflash_worker.DFlashWorker\n"
        "  # sglang.srt.speculative.dflash_worker is what we used\n"
        "  other: sglang.srt.speculative.dflash_worker_v2.DFlashWorkerV2\n"
        "  keep: sglang.srt.speculative.dflash_info._compute_paged_keep_slots\n"
    )
    result = run("plugin.yaml", text)
    assert [f.code for f in result.findings] == ["DFM102", "DFM104"]
    new = result.new_bytes.decode()
    assert "worker_cls: sglang.srt.speculative.dflash_worker_v2.DFlashWorkerV2\n" in new
    assert "  # TODO(dflash-migrate): DFM104" in new
    assert "# sglang.srt.speculative.dflash_worker is what we used" in new  # comments untouched
    again = process_bytes("plugin.yaml", result.new_bytes, Options(mode="fix", target_version="0.5.17"))
    assert again.new_bytes is None


def test_json_is_report_only_and_markdown_prose_is_reported_not_edited() -> None:
    json_result = run("c.json", '{"cls": "sglang.srt.speculative.dflash_info.DFlashDraftInput"}\n')
    assert [f.code for f in json_result.findings] == ["DFM103"] and json_result.new_bytes is None
    assert json_result.findings[0].fix.replacement == "sglang.srt.speculative.dflash_info_v2.DFlashDraftInputV2"
    md = run("notes.md", "We moved off sglang.srt.speculative.dflash_worker last year.\n")
    assert [(f.line, f.column, f.code) for f in md.findings] == [(1, 13, "DFM401")]
    assert md.findings[0].fix.edits == ()


def test_target_version_decides_moves() -> None:
    text = 'fn = "sglang.srt.speculative.dflash_utils.compute_dflash_correct_drafts_and_bonus"\n'
    assert run("x.toml", text, target="0.5.22").findings == []
    moved = run("x.toml", text, target="0.5.23")
    assert moved.new_bytes.decode() == 'fn = "sglang.kernels.ops.speculative.dflash.compute_dflash_correct_drafts_and_bonus"\n'
