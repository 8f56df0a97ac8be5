"""Valid/invalid cases for migrator/python/rules/validate_request.py (DFM307)."""

from __future__ import annotations

from codemod_helpers import codes, migrate


def test_one_argument_call_flagged_two_argument_call_not() -> None:
    _, findings = migrate(
        """
        from sglang.srt.speculative.dflash_utils import validate_dflash_request
        a = validate_dflash_request(req)
        b = validate_dflash_request(req, enable_overlap=True)
        c = validate_dflash_request(req, False)
        """
    )
    assert codes(findings) == ["DFM307"] and findings[0].line == 3


def test_only_from_0_5_14() -> None:
    source = "from sglang.srt.speculative.dflash_utils import validate_dflash_request\nvalidate_dflash_request(r)\n"
    assert migrate(source, target="0.5.13") == (source, [])
