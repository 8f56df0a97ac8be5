"""Every catalog fact checked against the real sglang wheels from PyPI.

For each entry in ``migrator.catalog.ENTRIES``:

* the old name(s) exist in the releases ``entry.exists`` names and in no other release;
* every replacement's ``new`` exists in every release of its ``targets`` range;
* for call-form entries, the old *form* (its distinguishing parameter, see
  ``CALL_FORMS``) is what the old releases have and the new form is what the target
  releases have.

Which releases: all of ``catalog.RELEASES`` (0.5.8-0.5.23, 16 wheels). Downloading all
of them into the ``migrator.releases.wheels`` cache takes about 20 s on the dev box (4-39 MB
each, ~310 MB in all), and the index reads the zip archives lazily (a few dozen modules
per release, ~0.5 s each), so there is no need to sample boundary releases only.
``DFLASH_MIGRATE_TRUTH_RELEASES=0.5.13,0.5.14`` restricts the run when iterating locally.

What "exists" means per kind (``migrator.releases.index`` resolves names statically,
following re-exports and inheritance, never importing sglang):

* module/class/function/method/attribute/call-form: the dotted name resolves;
* server-arg: a keyword ``ServerArgs`` accepts (its annotated fields; from 0.5.20 also
  the fields of the ``arg_groups/fields`` namespaces it is assembled from);
* cli-flag: the flag is a string constant in sglang's code (``add_argument``, aliases,
  deprecated-alias actions) or is auto-derived from a ServerArgs field;
* env: the variable is read or mentioned by sglang code (an ``Envs`` attribute, an
  ``os.getenv``/``os.environ`` key, a warning that it is set): 0.5.14-0.5.20 still
  mention ``SGLANG_ENABLE_SPEC_V2`` in a warning, 0.5.21+ not at all.

Entries with several names (``also``) approximate the union of their names' lifetimes
by one range, which cannot express gaps (DFM301: ``DFlashDraftInput.verified_id`` lives
in 0.5.11 only, ``DFlashDraftInputV2.verified_id`` in 0.5.14 only). For them no name may
exist outside the range, and the first and last release of the range must each have one.
"""

from __future__ import annotations

import os
from functools import cache

import pytest

from migrator import catalog
from migrator.catalog import Entry
from migrator.releases.index import SglangIndex

pytestmark = pytest.mark.slow


def _releases() -> tuple[str, ...]:
    chosen = os.environ.get("DFLASH_MIGRATE_TRUTH_RELEASES")
    if not chosen:
        return catalog.RELEASES
    return tuple(r for r in catalog.RELEASES if r in {c.strip() for c in chosen.split(",")})


RELEASES = _releases()


@cache
def index(version: str) -> SglangIndex:
    return SglangIndex.for_version(version)


@cache
def server_arg_fields(version: str) -> frozenset[str]:
    return frozenset(index(version).server_arg_fields())


#: Call forms: (parameter, present?) pairs that tell the old form from the new one, per
#: rule code, for the old name in ``exists`` and per replacement range.
CALL_FORMS: dict[str, dict[str, tuple[tuple[str, bool], ...]]] = {
    # V1 prepare_for_verify(batch, page_size, *, build_custom_mask); V2 (batch, target_worker)
    "DFM110": {"old": (("page_size", True),), "0.5.14+": (("target_worker", True), ("page_size", False))},
    # rank arguments: V1/0.5.14-0.5.15 tp_rank..., 0.5.16-0.5.20 ps, 0.5.21+ neither
    "DFM111": {
        "old": (("tp_rank", True),),
        "0.5.14–0.5.15": (("tp_rank", True),),
        "0.5.16–0.5.20": (("ps", True), ("tp_rank", False)),
        "0.5.21+": (("ps", False), ("tp_rank", False)),
    },
    # filter_batch(chunked_req_to_exclude, keep_indices, v1_spec_info_filtered) -> without the last
    "DFM112": {"old": (("v1_spec_info_filtered", True),), "0.5.14+": (("v1_spec_info_filtered", False),)},
    # filter_batch(chunked_req_to_exclude, ...) -> filter_batch(reqs_to_exclude, ...) in 0.5.22
    "DFM319": {"old": (("chunked_req_to_exclude", True),),
               "0.5.22+": (("reqs_to_exclude", True), ("chunked_req_to_exclude", False))},
    # validate_dflash_request(req) -> (req, enable_overlap)
    "DFM307": {"old": (("enable_overlap", False),), "0.5.14+": (("enable_overlap", True),)},
}


def exists(version: str, name: str, kind: str) -> bool:
    """Whether ``name`` (of catalog kind ``kind``) exists in sglang ``version``."""
    idx = index(version)
    if kind == "env":
        return bool(idx.mentions(name))
    if kind == "cli-flag":
        field = name.lstrip("-").replace("-", "_")
        return bool(idx.mentions(name, under="sglang.srt")) or field in server_arg_fields(version)
    if kind == "server-arg":
        owner, _, field = name.rpartition(".")
        assert owner == catalog.SERVER_ARGS, name
        return field in server_arg_fields(version)
    return idx.resolve(name).found


def kind_of_replacement(new: str) -> str:
    """Replacements may be of another kind than the entry (an env var becomes a server arg)."""
    if new.startswith("--"):
        return "cli-flag"
    if new.startswith(catalog.SERVER_ARGS + "."):
        return "server-arg"
    if "." not in new and new.isupper():
        return "env"
    return "function"


def former_homes(name: str) -> tuple[str, ...]:
    """Names the catalog says moved to ``name`` (e.g. DFM306 -> DFM307's old name): a call
    form exists in a release where the function was still reachable at a former home."""
    return tuple(
        old for entry in catalog.ENTRIES for r in entry.replacements if r.new == name for old in entry.names
    )


def form_matches(version: str, name: str, facts: tuple[tuple[str, bool], ...]) -> bool | None:
    """None when the function is not there; else whether its parameters match ``facts``."""
    res = index(version).resolve(name)
    if not res.found or res.ref is None or res.ref.func is None:
        return None
    params = set(res.ref.func.all_params)
    return all((param in params) == present for param, present in facts)


#: Behaviour entries name no removed thing (``old`` is the setting the V1-era code is about).
NAMED_ENTRIES = tuple(e for e in catalog.ENTRIES if e.kind != catalog.BEHAVIOUR_KIND)
ENTRY_IDS = [e.code + ("" if not e.also else "+also") for e in NAMED_ENTRIES]


@pytest.mark.parametrize("entry", NAMED_ENTRIES, ids=ENTRY_IDS)
def test_old_names_exist_exactly_where_the_catalog_says(entry: Entry) -> None:
    kind = "function" if entry.kind == "call-form" else entry.kind
    if kind == catalog.TEXT_KIND:  # a text code finds the names of the entry it mirrors: same facts
        mirrored = next(m.mirrors for m in catalog.TEXT_MIRRORS if m.code == entry.code)
        kind = next(e.kind for e in catalog.ENTRIES if e.code == mirrored)
        kind = "function" if kind == "call-form" else kind
    inside = [r for r in RELEASES if r in entry.exists]
    problems: list[str] = []
    present = {r: [n for n in entry.names if exists(r, n, kind)] for r in RELEASES}
    if entry.kind == "call-form":
        facts = CALL_FORMS[entry.code]["old"]
        for r in RELEASES:
            names = [n for n in (*entry.names, *former_homes(entry.old)) if form_matches(r, n, facts)]
            present[r] = names
    for r in RELEASES:
        if r not in entry.exists and present[r]:
            problems.append(f"{r}: {present[r]} exists, but the catalog says only {entry.exists}")
    if entry.also:
        ends = {entry.exists.first, entry.exists.last or catalog.NEWEST_RELEASE}
        for r in sorted(ends & set(RELEASES)):
            if not present[r]:
                problems.append(f"{r}: none of {entry.names} exists at an end of the range {entry.exists}")
    else:
        for r in inside:
            if not present[r]:
                problems.append(f"{r}: {entry.old} is missing, but the catalog says it exists in {entry.exists}")
    assert not problems, f"{entry.code}:\n  " + "\n  ".join(problems)


REPLACEMENTS = [(e, r) for e in catalog.ENTRIES for r in e.replacements if r.new is not None]


@pytest.mark.parametrize(
    "entry,replacement", REPLACEMENTS, ids=[f"{e.code}->{r.targets}" for e, r in REPLACEMENTS]
)
def test_replacements_exist_in_every_target_release(entry: Entry, replacement: catalog.Replacement) -> None:
    assert replacement.new is not None
    kind = kind_of_replacement(replacement.new)
    problems = []
    for r in RELEASES:
        if r not in replacement.targets:
            continue
        if not exists(r, replacement.new, kind):
            problems.append(f"{r}: {replacement.new} does not exist (target range {replacement.targets})")
        elif entry.kind == "call-form":
            facts = CALL_FORMS[entry.code][str(replacement.targets)]
            if not form_matches(r, replacement.new, facts):
                params = index(r).resolve(replacement.new).ref.func.all_params  # type: ignore[union-attr]
                problems.append(f"{r}: {replacement.new}{params} is not the form {facts}")
    assert not problems, f"{entry.code}:\n  " + "\n  ".join(problems)


def test_every_call_form_has_its_facts() -> None:
    for entry in catalog.entries_of_kind("call-form"):
        forms = CALL_FORMS[entry.code]
        assert "old" in forms
        for replacement in entry.replacements:
            assert str(replacement.targets) in forms, (entry.code, str(replacement.targets))


def test_removed_names_really_are_removed_in_the_first_target() -> None:
    """The rule fires from ``first_target``: no old name may still exist there, except
    for entries that fire for other reasons (a moved function still re-exported, a
    call form whose name survives, an env var that is only warned about)."""
    lenient_kinds = {"call-form", "env", "cli-flag", catalog.BEHAVIOUR_KIND}
    for entry in catalog.ENTRIES:
        if entry.kind in lenient_kinds or entry.fires_from:
            continue
        first = entry.first_target
        if first not in RELEASES:
            continue
        still = [n for n in entry.names if exists(first, n, entry.kind)]
        assert not still, f"{entry.code}: {still} still exist in {first}, where the rule starts firing"


@pytest.mark.parametrize("release", RELEASES)
def test_release_wheel_hash_table_matches_pypi(release: str) -> None:
    """``migrator.releases.hashes`` holds the sha256 of the wheel PyPI serves for each release
    (the one ``verify`` refuses to use if its bytes differ), and nothing else."""
    import hashlib

    from migrator.releases import wheels
    from migrator.releases.hashes import WHEEL_SHA256

    wheel = wheels.download_wheel(release)
    assert wheel.name in WHEEL_SHA256, f"{wheel.name} is not in migrator/releases/hashes.py"
    assert hashlib.sha256(wheel.read_bytes()).hexdigest() == WHEEL_SHA256[wheel.name]
    assert {name.split("-")[1] for name in WHEEL_SHA256} == set(catalog.RELEASES)


def test_dflash_results_carry_num_correct_drafts_per_req_cpu_only_before_v2() -> None:
    """DFM316's fact: the field stays on ``GenerationBatchResult`` (its ``exists``, checked
    above), but only V1 ``DFlashWorker.forward_batch_generation`` sets it; ``DFlashWorkerV2``
    never does: from 0.5.14 the scheduler's batch-result processor derives it from
    ``accept_lens`` after the step, so a fork reading it off the worker's result gets None."""
    entry = catalog.get("DFM316")
    field = entry.member
    for release in RELEASES:
        if release not in entry.exists:
            continue
        v2 = release in catalog.V2
        home = catalog.DFLASH_WORKER_V2 if v2 else catalog.DFLASH_WORKER
        assert bool(index(release).mentions(field, under=home)) == (not v2), (release, home)
        if v2:
            assert index(release).mentions(field, under="sglang.srt.managers"), release
