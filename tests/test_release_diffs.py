"""The catalog accounts for every change of the DFLASH surface from 0.5.11 to the newest
release (issue 44): :func:`migrator.verify.wheel_diff.release_changes` diffs every consecutive
pair of :data:`migrator.catalog.RELEASES` from 0.5.11 on, and each change is a catalog name,
the replacement a catalog entry names (DFM111 names ``DFlashWorkerV2.__init__``, whose rank
keywords changed), or a :data:`migrator.catalog.scope.RELEASE_NOTES` note of that release;
every note is still in its release's diff. ``.post`` releases lose nothing against their
base. (``tests/test_catalog_truth.py`` checks each named entry on the wheels.)

Slow: reads 16 wheels (cached by :mod:`migrator.releases.wheels`), each parsed once.
"""

from __future__ import annotations

import pytest

from migrator import catalog
from migrator.catalog.scope import DIFF_TO, RELEASE_NOTES, SCOPE_NOTES
from migrator.verify import wheel_diff

#: Consecutive pairs from the first release that has a DFLASH worker to the newest one.
PAIRS = tuple(zip(catalog.RELEASES[catalog.RELEASES.index("0.5.11"):], catalog.RELEASES[catalog.RELEASES.index("0.5.12"):]))


def covered(change: wheel_diff.Change) -> bool:
    callable_name = change.name.partition("(")[0]
    names = catalog.by_name()
    replaced = {r.new for entry in catalog.ENTRIES for r in entry.replacements}
    if change.name in names or callable_name in names or callable_name in replaced:
        return True
    if change.new == DIFF_TO and any(note.name == change.name for note in SCOPE_NOTES):  # the 0.5.13 -> 0.5.14 notes of issue 14
        return True
    note = next((note for note in RELEASE_NOTES if note.name == change.name), None)
    return note is not None and note.release == change.new


@pytest.mark.slow
@pytest.mark.parametrize(("old", "new"), PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_every_change_of_the_pair_is_in_the_catalog_or_noted(old: str, new: str) -> None:
    missing = [c for c in wheel_diff.release_changes(old, new) if not covered(c)]
    assert not missing, f"{old} -> {new}: neither a catalog name or replacement nor a RELEASE_NOTES note:\n" + "\n".join(
        f"  {c.kind} {c.name}" for c in missing)


@pytest.mark.slow
def test_every_note_is_still_in_its_release_diff() -> None:
    by_release = {new: {c.name for c in wheel_diff.release_changes(old, new)} for old, new in PAIRS}
    stale = [(note.release, note.name) for note in RELEASE_NOTES if note.name not in by_release.get(note.release, ())]
    assert not stale, f"notes no longer in their release's diff: {stale}"
    named = [note.name for note in RELEASE_NOTES if note.name in catalog.by_name()]
    assert not named, f"notes of names the catalog already has: {named}"


@pytest.mark.slow
def test_the_diff_sees_what_the_catalog_knows() -> None:
    """The differ itself: changes the catalog records are found in the release it says."""
    changes = {(c.new, c.name, c.kind) for old, new in PAIRS for c in wheel_diff.release_changes(old, new)}
    utils = "sglang.srt.speculative.dflash_utils"
    assert ("0.5.14", f"{utils}.validate_dflash_request(enable_overlap)", "required-parameter") in changes
    assert ("0.5.16", "sglang.srt.speculative.dflash_worker_v2.DFlashWorkerV2.__init__(tp_rank)", "parameter") in changes
    assert ("0.5.20", "--speculative-dflash-draft-window-size", "flag") in changes  # the deprecated alias went
    assert ("0.5.21", "SGLANG_ENABLE_SPEC_V2", "env") in changes
    assert ("0.5.14", "sglang.srt.speculative.spec_info.SpeculativeAlgorithm.supports_spec_v2", "method") in changes
    # a ServerArgs field read from the defstruct-assembled record of 0.5.20+ is not a removal
    assert not any(name.startswith("sglang.srt.server_args.ServerArgs.") for release, name, _ in changes
                   if catalog.parse_version(release) >= (0, 5, 20))


@pytest.mark.slow
@pytest.mark.parametrize("post", wheel_diff.POST_RELEASES)
def test_a_post_release_loses_nothing_against_its_base(post: str) -> None:
    base = post.rpartition(".")[0]
    after = catalog.RELEASES[catalog.RELEASES.index(base) + 1]
    assert wheel_diff.release_changes(base, post) == []
    # what it adds, the next release has too (0.5.15.post1 adds six DSA members of 0.5.16)
    assert [c.name for c in wheel_diff.release_changes(post, after)] == \
           [c.name for c in wheel_diff.release_changes(base, after)]


def test_the_surface_rule_is_data_with_a_reason_for_each_part() -> None:
    parts = {name for name in wheel_diff.SurfaceRule._fields if not name.endswith(("packages", "modules", "words"))}
    assert parts <= set(wheel_diff.SURFACE_REASONS), parts - set(wheel_diff.SURFACE_REASONS)
    assert all(reason.strip() for reason in wheel_diff.SURFACE_REASONS.values())
    for note in RELEASE_NOTES:
        assert note.release in catalog.RELEASES and note.reason.strip(), note


@pytest.mark.slow
def test_the_shipped_surface_index_is_what_the_wheels_say() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("surface_index_script", wheel_diff.__file__.replace(
        "migrator/verify/wheel_diff.py", "scripts/surface_index.py"))
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)  # type: ignore[union-attr]
    assert script.TARGET.read_text() == script.render(), "run: python scripts/surface_index.py"
