"""The two speed shortcuts must never lose a finding: the byte prefilter and skipping
statements and function bodies that hold no word any rule looks for."""

from __future__ import annotations

from pathlib import Path

import pytest

from migrator import analysis, catalog, engine

ROOT = Path(__file__).resolve().parent.parent
CORPUS = sorted((ROOT / "examples" / "legacy_fork").rglob("*.py")) + sorted((ROOT / "tests" / "rules").glob("test_*.py"))


def test_every_trigger_token_contains_a_coarse_marker() -> None:
    for token in engine._tokens():
        assert any(marker in token.lower() for marker in engine.COARSE_MARKERS), token


def test_prefilter_rejects_clean_and_accepts_each_token() -> None:
    assert not engine.might_match(b"import os\nprint('flash attention')\n")
    for token, cues in engine._groups():
        if not cues:
            assert engine.might_match(b"x = '" + token + b"'\n")
            continue
        assert not engine.might_match(b"from m import " + token + b"\n")  # the class alone still exists
        for cue in cues:
            assert engine.might_match(b"from m import " + token + b"\nv" + cue + b"\n")


def test_every_catalog_member_name_is_a_relevant_word() -> None:
    words = set(catalog.relevant_words())
    for entry in catalog.ENTRIES:
        for name in entry.names:
            assert name.rpartition(".")[2] in words


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: str(p.relative_to(ROOT)))
def test_skipping_cold_code_loses_nothing(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = path.read_bytes()
    options = engine.Options(mode="lint", target_version="0.5.17")
    fast = engine.process_bytes(str(path), data, options)
    monkeypatch.setattr(analysis, "_hot_lines", lambda source, *_: list(range(1, source.count("\n") + 2)))
    thorough = engine.process_bytes(str(path), data, options)
    assert fast.findings == thorough.findings
