"""The catalog accounts for the whole 0.5.13 -> 0.5.14 wheel diff (issue 14 item 4): every
in-scope removal :mod:`migrator.verify.wheel_diff` finds in the real wheels is a catalog
name (a parameter: of a catalog function or method) or a note of
:mod:`migrator.catalog.scope`, and every note is still in the diff.

Slow: reads the two wheels from PyPI (cached by :mod:`migrator.releases.wheels`).
"""

from __future__ import annotations

from functools import cache

import pytest

from migrator import catalog
from migrator.catalog.scope import DIFF_FROM, DIFF_TO, SCOPE_NOTES
from migrator.releases.index import SglangIndex
from migrator.verify import wheel_diff


NOTED = frozenset(note.name for note in SCOPE_NOTES)


@cache
def removals() -> tuple[wheel_diff.Removal, ...]:
    old, new = SglangIndex.for_version(DIFF_FROM), SglangIndex.for_version(DIFF_TO)
    return tuple(wheel_diff.removals(old, new, wheel_diff.catalog_renames(DIFF_TO)))


def covering_entry(removal: wheel_diff.Removal) -> catalog.Entry | None:
    names = catalog.by_name()
    name = removal.name.partition("(")[0] if removal.kind.endswith("parameter") else removal.name
    return names.get(name)


@pytest.mark.slow
def test_every_in_scope_removal_is_in_the_catalog_or_noted() -> None:
    missing = [r for r in removals() if covering_entry(r) is None and r.name not in NOTED]
    assert not missing, "in the wheel diff, neither a catalog name nor in catalog_scope.SCOPE_NOTES:\n" + "\n".join(
        f"  {r.kind} {r.name} [{r.evidence}]" for r in missing)


@pytest.mark.slow
def test_the_diff_finds_what_issue_14_names_and_every_note_is_still_in_it() -> None:
    found = {r.name: r for r in removals()}
    assert "sglang.srt.managers.schedule_batch.ScheduleBatch.filter_batch(v1_spec_info_filtered)" in found
    assert found["sglang.srt.speculative.dflash_utils.validate_dflash_request(enable_overlap)"].kind == "required-parameter"
    assert found["sglang.srt.speculative.dflash_worker"].kind == "module"
    # the renamed V1 worker's contents are compared with DFlashWorkerV2's
    assert f"{catalog.V1_WORKER_CLASS}._prepare_for_speculative_decoding" in found
    assert "sglang.srt.speculative.dflash_info.torch" not in found  # stdlib and torch re-imports are no API
    stale = [note.name for note in SCOPE_NOTES if note.name not in found]
    assert not stale, f"notes no longer in the {DIFF_FROM} -> {DIFF_TO} diff: {stale}"
    noted_and_named = [note.name for note in SCOPE_NOTES if note.name in catalog.by_name()]
    assert not noted_and_named


def test_notes_name_real_codes_and_render_into_migration_md() -> None:
    from migrator.catalog import docs

    for note in SCOPE_NOTES:
        assert note.code is None or note.code in catalog.by_code()
        assert note.reason
    table = docs.scope_table()
    assert all(docs._short(note.name) in table for note in SCOPE_NOTES)
