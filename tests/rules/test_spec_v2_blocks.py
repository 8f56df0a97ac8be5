"""Valid/invalid cases for migrator/python/rules/spec_v2_blocks.py (DFM202's two blocks, issue 46)."""

from __future__ import annotations

import io

from codemod_helpers import codes, migrate

TURN_ON = """
import logging

logger = logging.getLogger(__name__)


def apply_defaults(server_args):
    from sglang.srt.environ import envs

    if server_args.speculative_algorithm is not None:
        if not envs.SGLANG_ENABLE_SPEC_V2.get():
            envs.SGLANG_ENABLE_SPEC_V2.set(True)
            logger.warning("Spec v2 is enabled for EAGLE speculative decoding.")

    server_args.page_size = 256
"""

NON_OVERLAP = """
from sglang.srt.environ import envs


def handle_eagle(server_args):
    if (
        not envs.SGLANG_ENABLE_SPEC_V2.get()
        and not server_args.disable_overlap_schedule
    ):
        server_args.disable_overlap_schedule = True
    return server_args
"""


def _pyflakes(source: str) -> str:
    from pyflakes.api import check
    from pyflakes.reporter import Reporter

    out = io.StringIO()
    check(source, "fixed.py", Reporter(out, out))
    return out.getvalue()


def test_a_block_that_only_turns_v2_on_is_deleted_safely_with_its_import() -> None:
    fixed, findings = migrate(TURN_ON)
    assert codes(findings) == ["DFM202"] and findings[0].fix is not None and findings[0].fix.applicability == "safe"
    assert "SGLANG_ENABLE_SPEC_V2.set" not in fixed and "logger.warning" not in fixed
    assert "from sglang.srt.environ import envs" not in fixed  # left unused: dropped
    # the breadcrumb, wrapped to the line length as a TODO is (88 here: 96 characters on one line)
    assert ("        # dflash-migrate: removed the `if not envs.SGLANG_ENABLE_SPEC_V2.get():` block\n"
            "        #   (DFM202)\n") in fixed
    assert max(map(len, fixed.splitlines())) <= 88
    assert "TODO(dflash-migrate)" not in fixed
    assert "server_args.page_size = 256" in fixed
    assert _pyflakes(fixed) == ""


def test_the_import_stays_where_the_function_still_reads_envs() -> None:
    source = TURN_ON.replace("    server_args.page_size = 256", "    envs.SGLANG_OTHER.set(False)")
    fixed, findings = migrate(source)
    assert codes(findings) == ["DFM202"] and findings[0].fix.applicability == "safe"
    assert "from sglang.srt.environ import envs" in fixed and "envs.SGLANG_OTHER.set(False)" in fixed
    assert _pyflakes(fixed) == ""


def test_anything_else_in_the_block_keeps_the_todo() -> None:
    for change in (('logger.warning("Spec v2', 'server_args.x = 1\n            logger.warning("Spec v2'),
                   ("set(True)", "set(False)"),
                   ("if not envs", "if envs"),
                   ('decoding.")\n', 'decoding.")\n        else:\n            pass\n')):
        fixed, findings = migrate(TURN_ON.replace(*change))
        assert all(f.fix is None or f.fix.applicability == "manual" for f in findings), change
        assert "# TODO(dflash-migrate): DFM202" in fixed, change


def test_equals_zero_means_non_overlap_is_an_unsafe_deletion_stating_the_behaviour_change() -> None:
    fixed, findings = migrate(NON_OVERLAP)
    assert codes(findings) == ["DFM202"] and findings[0].fix.applicability == "unsafe"
    assert "--disable-overlap-schedule" in findings[0].message and "overlap scheduling" in findings[0].message
    assert "# TODO(dflash-migrate): DFM202" in fixed and "server_args.disable_overlap_schedule = True" in fixed
    fixed, findings = migrate(NON_OVERLAP, unsafe=True)
    assert "disable_overlap_schedule = True" not in fixed and "TODO(dflash-migrate)" not in fixed
    assert "from sglang.srt.environ import envs" not in fixed
    assert _pyflakes(fixed) == ""


def test_both_blocks_in_one_file_drop_the_import_only_with_the_unsafe_one() -> None:
    source = NON_OVERLAP + TURN_ON.replace("    from sglang.srt.environ import envs\n", "")
    fixed, _ = migrate(source)
    assert "SGLANG_ENABLE_SPEC_V2.set" not in fixed and "from sglang.srt.environ import envs" in fixed
    assert _pyflakes(fixed) == ""
    fixed, _ = migrate(source, unsafe=True)
    assert "SGLANG_ENABLE_SPEC_V2" not in fixed.replace("`if not envs.SGLANG_ENABLE_SPEC_V2.get()", "")
    assert "from sglang.srt.environ import envs" not in fixed
    assert _pyflakes(fixed) == ""


def test_a_fork_s_own_envs_is_not_sglangs() -> None:
    source = TURN_ON.replace("from sglang.srt.environ import envs", "from myfork.environ import envs")
    assert migrate(source)[1] == []


def test_only_from_0_5_14() -> None:
    assert migrate(TURN_ON, target="0.5.13")[1] == []


def test_the_todo_says_what_to_do_for_the_idiom_it_sees() -> None:
    """DFM202's guidance per idiom (read, set truthy, set falsy, clear, fixture override)."""
    cases = {
        "flag = envs.SGLANG_ENABLE_SPEC_V2.get()": "always true",
        "envs.SGLANG_ENABLE_SPEC_V2.set(True)": "nothing changes at run time",
        "envs.SGLANG_ENABLE_SPEC_V2.set(False)": "--disable-overlap-schedule",
        "envs.SGLANG_ENABLE_SPEC_V2.clear()": "delete it with that set",
        "env_overrides = ((envs.SGLANG_ENABLE_SPEC_V2, False),)": "disable_overlap = True",
    }
    for line, said in cases.items():
        _, findings = migrate(f"from sglang.srt.environ import envs\n{line}\n")
        assert codes(findings) == ["DFM202"], line
        assert said in findings[0].message, (line, findings[0].message)
    messages = {migrate(f"from sglang.srt.environ import envs\n{line}\n")[1][0].message for line in cases}
    assert len(messages) == len(cases)


def test_a_mention_in_a_comment_or_string_does_not_keep_the_import() -> None:
    source = TURN_ON.replace("    server_args.page_size = 256", '    # envs is gone\n    server_args.page_size = "envs"')
    fixed, _ = migrate(source)
    assert "from sglang.srt.environ import envs" not in fixed and _pyflakes(fixed) == ""


def test_an_elif_is_left_to_a_todo() -> None:
    source = TURN_ON.replace("        if not envs", "        if server_args.x:\n            pass\n        elif not envs")
    fixed, findings = migrate(source, unsafe=True)
    assert all(f.fix.applicability == "manual" for f in findings) and "# TODO(dflash-migrate): DFM202" in fixed
