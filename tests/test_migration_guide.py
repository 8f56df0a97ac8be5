"""MIGRATION.md is a migration guide first (issue 48): the staged upgrade path, then the
tasks, then an FAQ from the runtime errors people paste to the rules, and only then the rule
reference generated from the catalog, where every rule shows its "After" code (run by
``tests/test_catalog_examples.py``). At 8ed1b04 the document opened with the rule
reference's preamble and had no staged path, tasks or FAQ."""

from __future__ import annotations

import re
from pathlib import Path

from migrator import catalog

GUIDE = (Path(__file__).resolve().parents[1] / "MIGRATION.md").read_text(encoding="utf-8")
HEADINGS = [line[3:].strip() for line in GUIDE.splitlines() if line.startswith("## ")]


def _position(prefix: str) -> int:
    matches = [index for index, heading in enumerate(HEADINGS) if heading.startswith(prefix)]
    assert matches, f"MIGRATION.md has no section starting {prefix!r}"
    return matches[0]


def test_the_guide_comes_before_the_reference_in_this_order() -> None:
    order = ["Staged upgrade path", "Tasks", "FAQ", "Rule table", "Rules"]
    positions = [_position(prefix) for prefix in order]
    assert positions == sorted(positions), list(zip(order, positions))
    assert positions[0] == 0, "the staged path is the first section"


def test_the_staged_path_names_each_stage_in_order() -> None:
    start = GUIDE.index("## Staged upgrade path")
    section = GUIDE[start:GUIDE.index("\n## ", start + 1)]
    stages = [re.search(rf"\*\*{word}", section) for word in ("Pin", "Lint", "Shim", "Fix", "Verify", "Drop the shim")]
    assert all(stages), section
    assert [stage.start() for stage in stages] == sorted(stage.start() for stage in stages)


def test_every_faq_answer_links_to_a_rule_section_that_exists() -> None:
    start = GUIDE.index("## FAQ")
    section = GUIDE[start:GUIDE.index("\n## ", start + 1)]
    rows = [line for line in section.splitlines() if line.startswith("| ") and "DFM" in line]
    assert len(rows) >= 10
    for row in rows:
        anchors = re.findall(r"\]\(#(dfm\d{3})\)", row)
        assert anchors, row
        for anchor in anchors:
            assert f'<a id="{anchor}"></a>' in GUIDE, anchor
    assert "'ScheduleBatch' object has no attribute 'is_spec_v2'" in section
    assert "No module named 'sglang.srt.speculative.dflash_worker'" in section


def test_every_rule_section_shows_its_after_code() -> None:
    for entry in catalog.ENTRIES:
        if entry.kind == catalog.HISTORY_KIND:
            continue  # DFM490 reports what a changelog or a log says: nothing there is migrated
        start = GUIDE.index(f'<a id="{entry.anchor}"></a>')
        end = GUIDE.find("<a id=", start + 1)
        section = GUIDE[start:end if end > 0 else len(GUIDE)]
        assert entry.after and "After:" in section, entry.code
