"""Fixtures shared by test modules."""

from __future__ import annotations

from pathlib import Path

import pytest


class UndeclaredCode(AssertionError):
    pass


@pytest.fixture(autouse=True, scope="session")
def rules_emit_only_declared_codes() -> object:
    """In every test, each Python rule may emit only the codes its ``RULE`` declares
    (``tests/test_rule_declarations.py`` checks the same on a corpus): a rule that emits
    another code fails the file it runs on, in this process and in the workers it forks."""
    import migrator.python.rules as rules

    def declared(rule):  # noqa: ANN001, ANN202
        def check(ctx) -> None:  # noqa: ANN001
            before = len(ctx.findings)
            rule.check(ctx)
            extra = {f.code for f in ctx.findings[before:]} - rule.emits
            if extra:
                raise UndeclaredCode(f"rule {rule.name} emitted {sorted(extra)}, not in its RULE declaration")
        return check

    saved = rules._CHECKS
    rules._CHECKS = tuple(declared(rule) for rule in rules.RULES)
    yield
    rules._CHECKS = saved


@pytest.fixture(scope="session")
def sglang_0_5_13() -> Path:
    """sglang 0.5.13's source tree from its PyPI wheel (downloaded once, cached)."""
    from migrator.releases.wheels import WheelError, unpacked_wheel

    try:
        return unpacked_wheel("0.5.13") / "sglang"
    except WheelError as error:  # pragma: no cover - offline
        pytest.skip(f"sglang 0.5.13 wheel not available: {error}")


@pytest.fixture()
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty folder marked as a repository top (for repository-relative report paths),
    made the current folder. Test modules that need another layout define their own."""
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path
