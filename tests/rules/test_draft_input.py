"""Valid/invalid cases for migrator/rules/draft_input.py."""

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
