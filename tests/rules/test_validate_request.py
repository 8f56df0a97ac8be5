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


def test_a_method_of_a_class_assigning_enable_overlap_gets_upstreams_call() -> None:
    """Issue 46: safe (proof in the rule's docstring, re-checked on the wheels by
    tests/test_upstream_rewrite_proofs.py)."""
    fixed, findings = migrate(
        """
        from sglang.srt.speculative.dflash_utils import validate_dflash_request

        class MyScheduler:
            def __init__(self, server_args):
                self.enable_overlap = not server_args.disable_overlap_schedule

            def handle(self, req):
                return validate_dflash_request(req)
        """
    )
    assert codes(findings) == ["DFM307"] and findings[0].fix is not None and findings[0].fix.applicability == "safe"
    assert "return validate_dflash_request(req, self.enable_overlap)" in fixed
    assert "TODO(dflash-migrate)" not in fixed


def test_a_scheduler_subclass_gets_upstreams_call() -> None:
    fixed, findings = migrate(
        """
        from sglang.srt.managers.scheduler import Scheduler
        from sglang.srt.speculative.dflash_utils import validate_dflash_request

        class MyScheduler(Scheduler):
            def handle(self, req):
                error = validate_dflash_request(req)
                return error
        """
    )
    assert codes(findings) == ["DFM307"] and findings[0].fix is not None and findings[0].fix.applicability == "safe"
    assert "error = validate_dflash_request(req, self.enable_overlap)" in fixed
    assert "TODO(dflash-migrate)" not in fixed


def test_a_free_function_stays_a_todo() -> None:
    source = """
        from sglang.srt.speculative.dflash_utils import validate_dflash_request

        def handle(self, req):
            self.enable_overlap = True
            return validate_dflash_request(req)
        """
    fixed, findings = migrate(source, unsafe=True)
    assert codes(findings) == ["DFM307"] and "TODO(dflash-migrate)" in fixed
    assert "enable_overlap)" not in fixed


def test_a_class_without_enable_overlap_stays_a_todo() -> None:
    fixed, findings = migrate(
        """
        from sglang.srt.speculative.dflash_utils import validate_dflash_request

        class Handler:
            def __init__(self):
                self.overlap = True

            def handle(self, req):
                return validate_dflash_request(req)

            @staticmethod
            def check(req):
                return validate_dflash_request(req)
        """,
        unsafe=True,
    )
    assert codes(findings) == ["DFM307", "DFM307"]
    assert fixed.count("TODO(dflash-migrate)") == 2 and "enable_overlap)" not in fixed


def test_a_target_that_includes_0_5_13_stays_a_todo() -> None:
    """0.5.13's function takes only ``req``: no one call serves both releases."""
    fixed, findings = migrate(
        """
        from sglang.srt.managers.scheduler import Scheduler
        from sglang.srt.speculative.dflash_utils import validate_dflash_request

        class MyScheduler(Scheduler):
            def handle(self, req):
                return validate_dflash_request(req)
        """,
        releases=("0.5.13", "0.5.17"),
    )
    assert codes(findings) == ["DFM307"] and "return validate_dflash_request(req)\n" in fixed
    assert "TODO(dflash-migrate)" in fixed


def test_a_subclass_of_a_class_assigning_enable_overlap_in_the_same_file_gets_upstreams_call() -> None:
    fixed, findings = migrate(
        """
        from sglang.srt.speculative.dflash_utils import validate_dflash_request

        class Base:
            def __init__(self):
                self.enable_overlap = False

        class Child(Base):
            def handle(self, req):
                return validate_dflash_request(req)
        """
    )
    assert codes(findings) == ["DFM307"] and "return validate_dflash_request(req, self.enable_overlap)" in fixed


def _lint_fix_of(source: str, parse_all: bool) -> list[tuple]:
    from migrator.base.options import Options
    from migrator.run.pipeline import process_bytes

    result = process_bytes("big.py", source.encode(), Options(mode="lint", target_version="0.5.17", parse_all=parse_all))
    return [(f.line, f.code, f.fix.applicability if f.fix else None) for f in result.findings]


def test_a_lints_partial_parse_sees_a_scheduler_base_the_file_defines_far_away() -> None:
    """A lint parses a large file partly (migrator.python.partial): a base class with no
    relevant line is blanked. ``Mid`` is ``Scheduler``'s subclass only through its header;
    the rule asks for the unseen base by name, so the lint calls the fix safe as a run
    with every shortcut off does (were ``Scheduler`` not a word and not asked for, the
    lint would say TODO)."""
    padding = "".join(f"def helper_{i}():\n    return {i}\n\n\n" for i in range(900))
    source = ("from sglang.srt.managers.scheduler import Scheduler\n"
              "from sglang.srt.speculative.dflash_utils import validate_dflash_request\n\n\n"
              "class Mid(Scheduler):\n    pass\n\n\n" + padding +
              "class Mine(Mid):\n    def handle(self, req):\n        return validate_dflash_request(req)\n")
    assert len(source) > 24 * 1024
    partial, whole = _lint_fix_of(source, parse_all=False), _lint_fix_of(source, parse_all=True)
    assert [code for _, code, _ in whole] == ["DFM307"] and whole[0][2] == "safe"
    assert partial == whole
