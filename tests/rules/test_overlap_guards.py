"""Valid/invalid cases for migrator/python/rules/overlap_guards.py (DFM210, DFM211): the coupled
unsafe deletions of DFLASH's V1-era overlap handling (issue 46)."""

from __future__ import annotations

from codemod_helpers import codes, migrate

SOURCE = """
import logging

logger = logging.getLogger(__name__)


def _handle_dflash(server_args):
    server_args.disable_overlap_schedule = True
    logger.warning(
        "Overlap scheduler is disabled when using DFLASH speculative decoding."
    )
    server_args.enable_mixed_chunk = False


def create_worker(algorithm, server_args):
    enable_overlap = not server_args.disable_overlap_schedule
    if algorithm.is_dflash():
        if enable_overlap:
            raise ValueError("DFLASH does not support overlap scheduling (spec v2).")
        return "dflash"
    if enable_overlap:
        return "overlap"
    return None
"""


def _code(source: str) -> str:
    """``source`` without its comment lines (the breadcrumbs name what was removed)."""
    return "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("#"))


def test_the_guard_and_the_forced_setting_are_one_unsafe_fix() -> None:
    fixed, findings = migrate(SOURCE)
    assert codes(findings) == ["DFM210", "DFM211"]
    assert all(f.fix is not None and f.fix.applicability == "unsafe" for f in findings)
    assert findings[0].fix.edits == findings[1].fix.edits  # applied together or not at all
    assert "--disable-overlap-schedule" in next(f.message for f in findings if f.code == "DFM211")
    assert fixed.count("# TODO(dflash-migrate): DFM21") == 2 and "raise ValueError" in fixed
    fixed, _ = migrate(SOURCE, unsafe=True)
    code = _code(fixed)
    assert "disable_overlap_schedule = True" not in code and "raise ValueError" not in code
    assert "Overlap scheduler is disabled" not in code
    assert "# dflash-migrate: removed the `if enable_overlap:` block (DFM210)" in fixed
    assert "server_args.enable_mixed_chunk = False" in fixed and 'return "overlap"' in fixed
    assert "TODO(dflash-migrate)" not in fixed


def test_a_guard_that_cannot_go_keeps_both_as_todos() -> None:
    for source in (SOURCE.replace('        return "dflash"', '        else:\n            pass\n        return "dflash"'),
                   SOURCE.replace('    if enable_overlap:\n        return "overlap"\n', "")):  # its local left unused
        fixed, findings = migrate(source, unsafe=True)
        assert codes(findings) == ["DFM210", "DFM211"]
        assert all(f.fix.applicability == "manual" for f in findings)
        assert "disable_overlap_schedule = True" in fixed and "raise ValueError" in fixed


def test_a_forced_setting_alone_is_an_unsafe_fix_naming_the_guards_it_needs_gone() -> None:
    source = SOURCE[:SOURCE.index("def create_worker")]
    fixed, findings = migrate(source)
    assert codes(findings) == ["DFM211"] and findings[0].fix.applicability == "unsafe"
    assert "DFM210" in findings[0].message
    fixed, _ = migrate(source, unsafe=True)
    assert "disable_overlap_schedule" not in _code(fixed) and "Overlap scheduler" not in _code(fixed)


def test_with_the_guards_rule_off_the_setting_is_not_deleted_alone() -> None:
    from migrator.base.options import Options
    from migrator.run.pipeline import process_bytes

    options = Options(mode="fix", target_version="0.5.17", unsafe_fixes=True, select=frozenset({"DFM211"}))
    result = process_bytes("fork_module.py", SOURCE.encode(), options, None)
    assert [f.code for f in result.findings] == ["DFM211"] and result.findings[0].fix.applicability == "manual"


def test_an_elif_guard_is_left_to_a_todo() -> None:
    source = SOURCE.replace("        if enable_overlap:\n            raise",
                            "        if server_args.x:\n            pass\n        elif enable_overlap:\n            raise")
    fixed, findings = migrate(source, unsafe=True)
    assert codes(findings) == ["DFM210", "DFM211"] and all(f.fix.applicability == "manual" for f in findings)


def test_other_algorithms_keep_their_overlap_handling() -> None:
    _, findings = migrate("""
        def _handle_eagle(server_args, enable_overlap):
            server_args.disable_overlap_schedule = True
            if enable_overlap:
                raise ValueError("NGRAM does not support overlap scheduling.")
        """)
    assert findings == []
