"""Valid/invalid cases for migrator/python/rules/spec_v2_env.py (DFM201)."""

from __future__ import annotations

import pytest
from codemod_helpers import codes, migrate, todo_lines


def test_falsy_setting_moves_onto_engine() -> None:
    new, findings = migrate(
        """
        import os
        import sglang
        os.environ["SGLANG_ENABLE_SPEC_V2"] = "False"
        engine = sglang.Engine(model_path="m", speculative_algorithm="DFLASH")
        plain = sglang.Engine(model_path="m")
        """
    )
    assert 'speculative_algorithm="DFLASH", disable_overlap_schedule=True)' in new
    assert 'plain = sglang.Engine(model_path="m")' in new
    assert 'os.environ["SGLANG_ENABLE_SPEC_V2"] = "False"\n' not in new
    assert codes(findings) == ["DFM201"] and findings[0].fix.applicability == "safe"


def test_falsy_setting_moves_onto_server_args_and_argv() -> None:
    new, _ = migrate(
        """
        import os
        from sglang.srt.server_args import ServerArgs
        os.environ["SGLANG_ENABLE_SPEC_V2"] = "n"  # setdefault would apply only when unset: a TODO (below)
        args = ServerArgs(model_path="m", speculative_algorithm="DFLASH", disable_overlap_schedule=False)
        cmd = ["python", "-m", "sglang.launch_server", "--speculative-algorithm", "DFLASH"]
        """
    )
    assert "disable_overlap_schedule=False)" in new  # set explicitly by the user: kept
    assert '"DFLASH", "--disable-overlap-schedule"]' in new


@pytest.mark.parametrize("value", ["1", "true", "YES", "y"])
def test_truthy_setting_is_removed(value: str) -> None:
    new, findings = migrate(f'import os\nos.environ["SGLANG_ENABLE_SPEC_V2"] = "{value}"\nx = 1\n')
    assert not any(line.startswith("os.environ[") for line in new.splitlines()) and "x = 1" in new
    assert findings[0].fix.applicability == "safe"


def test_without_builder_leaves_todo() -> None:
    new, findings = migrate('import os\nos.environ["SGLANG_ENABLE_SPEC_V2"] = "0"\n')
    assert 'os.environ["SGLANG_ENABLE_SPEC_V2"] = "0"' in new
    assert findings[0].fix.applicability == "manual"


def test_kwargs_builder_is_unknowable() -> None:
    new, findings = migrate(
        'import os, sglang\nos.environ["SGLANG_ENABLE_SPEC_V2"] = "0"\nsglang.Engine(**cfg)\n'
    )
    assert findings[0].fix.applicability == "manual"


def test_reads_and_subprocess_env() -> None:
    new, findings = migrate(
        """
        import os, subprocess, sglang
        if os.environ.get("SGLANG_ENABLE_SPEC_V2") == "0":
            pass
        subprocess.run(["python", "-m", "sglang.launch_server", "--speculative-algorithm", "DFLASH"],
                       env={**os.environ, "SGLANG_ENABLE_SPEC_V2": "1"})
        """
    )
    assert [f.fix.applicability for f in findings] == ["manual", "safe"]
    assert "env={**os.environ})" in new


@pytest.mark.parametrize(
    "source",
    [
        'import os\nos.environ["SGLANG_ENABLE_SPEC_V2_FOO"] = "0"\n',
        "# os.environ['SGLANG_ENABLE_SPEC_V2'] = '0'\nimport os\n",
        'doc = "SGLANG_ENABLE_SPEC_V2 is ignored from 0.5.14"\n',  # a mention, not a setting
    ],
)
def test_look_alikes_not_flagged(source: str) -> None:
    assert migrate(source) == (source, [])


def test_a_hint_telling_people_to_set_it_is_a_todo() -> None:
    # issue 16: "set X=0" in a user-facing string is a setting people will copy (embedded_env)
    new, findings = migrate('doc = "set SGLANG_ENABLE_SPEC_V2=0 to ..."\n')
    assert [(f.line, f.column, f.code, f.fix.applicability) for f in findings] == [(1, 11, "DFM201", "manual")]
    assert new.startswith("# TODO(dflash-migrate): DFM201")


@pytest.mark.parametrize(("setting", "why"), [
    ('if sync:\n    os.environ["SGLANG_ENABLE_SPEC_V2"] = "0"\nengine = sglang.Engine(model_path="m", speculative_algorithm="DFLASH")\n',
     "conditional"),
    ('os.environ.setdefault("SGLANG_ENABLE_SPEC_V2", "0")\nengine = sglang.Engine(model_path="m", speculative_algorithm="DFLASH")\n',
     "setdefault"),
    ('engine = sglang.Engine(model_path="m", speculative_algorithm="DFLASH")\nos.environ["SGLANG_ENABLE_SPEC_V2"] = "0"\n',
     "after the server-argument builder"),
], ids=["under-if", "setdefault", "after-engine"])
def test_a_conditional_or_late_setting_keeps_its_condition_as_a_todo(setting: str, why: str) -> None:
    source = "import os\nimport sglang\n\nsync = False\n" + setting
    new, findings = migrate(source)
    assert 'speculative_algorithm="DFLASH", disable_overlap_schedule' not in new  # never unconditional on every launch
    assert 'os.environ' in new and why in " ".join(todo_lines(new))
