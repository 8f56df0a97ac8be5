"""Every shortcut of a run (git narrowing, the byte prefilter, the fork index's words, hot
lines, partial parsing, cold statements) loses no finding and no fix: on every corpus of
the findings snapshot, ``--parse-all`` (every shortcut off) gives the same findings and the
same fixes as a plain run. What may differ is only what ``--parse-all`` is for: syntax
errors in files no rule can concern (and the exit code and summary they make)."""

from __future__ import annotations

import pytest

from tests.test_findings_unchanged import FAST, snapshot


#: What a file can fail with only where every statement is parsed and analysed.
ONLY_WITHOUT_SHORTCUTS = ("syntax error", "cannot analyse: nesting too deep", "cannot parse")


def _path(line: str) -> str:
    return line.split(":", 1)[0]


def _same_without_shortcuts(name: str) -> None:
    plain, every = snapshot.record(name), snapshot.record(name, ("--parse-all",))
    lint_plain, lint_every = plain["lint"], every["lint"]
    new_errors = set(lint_every["errors"]) - set(lint_plain["errors"])
    assert set(lint_plain["errors"]) <= set(lint_every["errors"]), name
    assert all(error.split(": ", 1)[1].startswith(ONLY_WITHOUT_SHORTCUTS) for error in new_errors), new_errors
    failed = {_path(error) for error in new_errors}  # files the run without shortcuts could not analyse
    assert [f for f in lint_every["findings"] if _path(f) not in failed] == \
        [f for f in lint_plain["findings"] if _path(f) not in failed], name
    for label in snapshot.COMMANDS:
        if label != "lint":
            assert every[label]["diff"] == plain[label]["diff"] or failed, (name, label)


@pytest.mark.parametrize("name", FAST)
def test_no_shortcut_loses_a_finding(name: str) -> None:
    _same_without_shortcuts(name)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(snapshot.SLOW))
def test_no_shortcut_loses_a_finding_on_sglang_tree(name: str) -> None:
    from migrator.releases.wheels import WheelError, unpacked_wheel

    try:
        unpacked_wheel("0.5.13")
    except WheelError as error:
        pytest.skip(f"sglang 0.5.13's wheel is not available here ({error})")
    _same_without_shortcuts(name)
