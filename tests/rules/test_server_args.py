"""Valid/invalid cases for migrator/python/rules/server_args.py (DFM203, DFM204)."""

from __future__ import annotations

from codemod_helpers import codes, migrate


def test_flag_and_keyword_renamed() -> None:
    new, findings = migrate(
        """
        import sglang
        argv = ["--speculative-dflash-draft-window-size", "512", "--speculative-dflash-draft-window-size=256"]
        engine = sglang.Engine(model_path="m", speculative_dflash_draft_window_size=512)
        size = engine.server_args.speculative_dflash_draft_window_size
        """
    )
    assert '"--speculative-draft-window-size", "512", "--speculative-draft-window-size=256"' in new
    assert "speculative_draft_window_size=512)" in new
    assert "size = engine.server_args.speculative_draft_window_size" in new
    assert codes(findings) == ["DFM203", "DFM203", "DFM204", "DFM204"]


def test_block_size_flag_untouched() -> None:
    source = 'argv = ["--speculative-dflash-block-size", "16"]\n'
    assert migrate(source) == (source, [])


def test_the_add_argument_that_registers_the_deprecated_alias_is_reported_not_rewritten() -> None:
    """sglang's own server_args.py: renaming it would register the new flag twice."""
    import argparse

    source = """
    import argparse
    import sglang

    parser = argparse.ArgumentParser()
    parser.add_argument("--speculative-draft-window-size", type=int)
    parser.add_argument("--speculative-dflash-draft-window-size", type=int, dest="speculative_draft_window_size")
    """
    new, findings = migrate(source, target="0.5.17")
    assert 'parser.add_argument("--speculative-dflash-draft-window-size", type=int' in new
    assert [f.code for f in findings] == ["DFM203"] and findings[0].fix.applicability == "manual"
    namespace: dict = {"argparse": argparse, "sglang": None}
    exec(compile(new.replace("import sglang", ""), "server_args.py", "exec"), namespace)  # registers no flag twice
