"""MIGRATION.md and the catalog must not drift: the generated block is re-rendered from
``migrator/catalog/entries.py`` and compared, and every rule code has its anchored section."""

from __future__ import annotations

import re
from pathlib import Path

from migrator import catalog
from migrator.catalog import docs

ROOT = Path(__file__).resolve().parent.parent


def test_generated_block_matches_catalog() -> None:
    text = (ROOT / "MIGRATION.md").read_text(encoding="utf-8")
    assert docs.render(text) == text, "MIGRATION.md drifted from the catalog: run `python -m migrator.catalog.docs --write`"


def test_every_code_has_a_section_and_no_unknown_codes() -> None:
    text = (ROOT / "MIGRATION.md").read_text(encoding="utf-8")
    for entry in catalog.ENTRIES:
        assert f'<a id="{entry.anchor}"></a>' in text
        assert f"### {entry.code}: {entry.message}" in text
    mentioned = set(re.findall(r"\bDFM\d{3}\b", text))
    assert mentioned <= set(catalog.by_code()), mentioned - set(catalog.by_code())


def test_drift_is_detected(tmp_path: Path) -> None:
    text = (ROOT / "MIGRATION.md").read_text(encoding="utf-8")
    tampered = text.replace(catalog.get("DFM102").message, "DFlashWorker is fine", 1)
    assert docs.render(tampered) != tampered


def test_todo_comments_point_at_existing_anchors() -> None:
    text = (ROOT / "MIGRATION.md").read_text(encoding="utf-8")
    for entry in catalog.ENTRIES:
        anchor = catalog.todo_comment(entry).rsplit("#", 1)[1].rstrip(")")
        assert f'<a id="{anchor}"></a>' in text


def test_the_release_table_has_a_row_per_v2_release_with_what_changed_there() -> None:
    from migrator.catalog.target import v2_releases

    rows = {line.split("|")[1].strip(): line for line in docs.release_table().splitlines()
            if line.startswith("| 0.")}
    assert list(rows) == list(v2_releases())
    assert "[DFM111](#dfm111)" in rows["0.5.16"] and "[DFM111](#dfm111)" in rows["0.5.21"]  # ranks, twice
    assert "[DFM317](#dfm317)" in rows["0.5.22"] and "DFM317" not in rows["0.5.21"]
    assert "DFM306" not in "".join(rows.values())  # moved in 0.5.13, before the V2 era
    assert "`speculative.dflash_worker_v2.DFlashWorkerV2.ps`" in rows["0.5.21"]  # a note of that release
