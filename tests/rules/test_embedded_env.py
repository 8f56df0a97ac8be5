"""Valid/invalid cases for migrator/python/rules/embedded_env.py: ``SGLANG_ENABLE_SPEC_V2`` set inside
shell or env text held in a Python string (DFM201)."""

from __future__ import annotations

from codemod_helpers import codes, migrate, todo_lines


def test_a_truthy_prefix_of_a_command_string_is_removed() -> None:
    new, findings = migrate('cmd = "SGLANG_ENABLE_SPEC_V2=1 python -m sglang.launch_server --model-path m"\n')
    assert [(f.code, f.fix.applicability) for f in findings] == [("DFM201", "safe")]
    assert new == 'cmd = "python -m sglang.launch_server --model-path m"\n'


def test_a_falsy_setting_in_an_env_list_is_a_todo() -> None:
    new, findings = migrate('env = ["SGLANG_ENABLE_SPEC_V2=0"]\n')
    assert codes(findings) == ["DFM201"] and '"SGLANG_ENABLE_SPEC_V2=0"' in new
    assert "--disable-overlap-schedule" in todo_lines(new)[0]


def test_other_variables_and_mentions_in_prose_are_not_settings() -> None:
    _, findings = migrate("""
        cmd = "SGLANG_ENABLE_TORCH_COMPILE=1 python -m sglang.launch_server"
        note = "see the SGLANG_ENABLE_SPEC_V2 section of the docs"
        """)
    assert "DFM201" not in codes(findings)
