"""Valid/invalid cases for migrator/python/rules/draft_input.py."""

from __future__ import annotations

from codemod_helpers import codes, migrate


def test_removed_fields_and_renamed_field() -> None:
    new, findings = migrate(
        """
        from sglang.srt.speculative.dflash_info import DFlashDraftInput

        def f(d: DFlashDraftInput):
            a = d.target_hidden
            b = d.verified_id
            return DFlashDraftInput(verified_id=b, ctx_lens=a)
        """,
        target="0.5.17",
    )
    assert "b = d.bonus_tokens" in new
    assert "DFlashDraftInputV2(bonus_tokens=b, ctx_lens=a)" in new
    assert codes(findings).count("DFM109") == 2
    assert codes(findings).count("DFM301") == 2


def test_eagle_verified_id_is_untouched() -> None:
    source = "from sglang.srt.speculative.eagle_info import EagleDraftInput\nd = EagleDraftInput()\nx = d.verified_id\n"
    assert migrate(source) == (source, [])


def test_v2_verified_id_only_after_0_5_14() -> None:
    source = "from sglang.srt.speculative.dflash_info_v2 import DFlashDraftInputV2\nd = DFlashDraftInputV2()\nx = d.verified_id\n"
    assert migrate(source, target="0.5.14") == (source, [])
    assert "d.bonus_tokens" in migrate(source, target="0.5.15")[0]


def test_each_removed_keyword_on_its_own_line() -> None:
    _, findings = migrate(
        """
        from sglang.srt.speculative import dflash_info as di

        def build(ids, hidden, ctx, seq):
            return di.DFlashDraftInput(
                verified_id=ids,
                target_hidden=hidden,
                ctx_lens=ctx,
                draft_seq_lens=seq,
            )
        """,
        target="0.5.17",
    )
    assert sorted(f.line for f in findings if f.code == "DFM109") == [7, 8, 9]
    assert [f.line for f in findings if f.code == "DFM301"] == [6]


def test_each_removed_keyword_in_a_notebook_cell(tmp_path) -> None:  # noqa: ANN001
    import json

    from migrator.run import engine

    cell = ["from sglang.srt.speculative.dflash_info import DFlashDraftInput\n", "\n",
            "d = DFlashDraftInput(\n", "    target_hidden=h,\n", "    ctx_lens=c,\n", ")\n"]
    notebook = {"cells": [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": cell}],
                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "draft.ipynb"
    path.write_text(json.dumps(notebook, indent=1))
    outcome = engine.run([path], engine.Options(mode="lint", target_version="0.5.17", jobs=1))
    findings = [f for r in outcome.results for f in r.findings if f.code == "DFM109"]
    assert len({f.line for f in findings}) == 2  # one per field, each on its own line


def test_removed_fields_after_isinstance_narrowing() -> None:
    _, findings = migrate(
        """
        from sglang.srt.speculative import dflash_info
        from sglang.srt.speculative.eagle_info import EagleDraftInput

        Draft = dflash_info.DFlashDraftInput

        def hidden(info, other):
            if isinstance(info, (Draft, int)):
                return info.target_hidden
            if isinstance(other, EagleDraftInput):
                return other.target_hidden
            return info.ctx_lens
        """,
        target="0.5.17",
    )
    assert [f.line for f in findings if f.code == "DFM109"] == [9]
