"""The wheel facts behind the rewrites issue 46 promoted to safe fixes, re-checked on every
release of the target range (0.5.14 to the newest the catalog knows): a release that breaks a
premise fails here, not in a user's tree. Each proof is written next to its rule
(``migrator/python/rules/spec_v2_flags.py``, ``migrator/python/rules/filter_batch.py``).

The fixes themselves (what the rule writes, and that it is safe) are tested in
``tests/rules/``; this file checks only why they may be.

Slow: reads the cached wheels (:mod:`migrator.releases.wheels`), each parsed once.
"""

from __future__ import annotations

import pytest

from migrator import catalog
from migrator.releases.index import SglangIndex
from migrator.verify.wheel_diff import release_index

#: Every release a V2 target may be: the proofs must hold on each.
TARGETS = catalog.RELEASES[catalog.RELEASES.index("0.5.14"):]
SCHEDULE_BATCH = "sglang.srt.managers.schedule_batch.ScheduleBatch"
ALGORITHM = "sglang.srt.speculative.spec_info.SpeculativeAlgorithm"


def _mentions(index: SglangIndex, word: bytes) -> list[str]:
    return [module for module, source in index.sources_under("sglang") if word in source]


@pytest.mark.slow
@pytest.mark.parametrize("version", TARGETS)
def test_the_spec_v2_flags_are_one_predicate_with_is_none(version: str) -> None:
    """DFM205/DFM206: ``X.is_spec_v2`` -> ``not X.spec_algorithm.is_none()``,
    ``algo.supports_spec_v2()`` -> ``not algo.is_none()``."""
    index = release_index(version)
    # 1. the original raises AttributeError on the target
    assert index.resolve(f"{SCHEDULE_BATCH}.is_spec_v2").missing
    assert index.resolve(f"{ALGORITHM}.supports_spec_v2").missing
    # 2. the rewrite's names exist
    assert index.resolve(f"{SCHEDULE_BATCH}.spec_algorithm").found
    assert index.resolve(f"{ALGORITHM}.is_none").found
    # 3. nothing in the release tells "V2 path" apart from "speculative"
    assert _mentions(index, b"is_spec_v2") == []
    assert _mentions(index, b"supports_spec_v2") == []
    # 4. upstream spells the test this way
    assert _mentions(index, b"spec_algorithm.is_none()")


def test_the_proof_covers_every_target_release() -> None:
    assert TARGETS[0] == "0.5.14" and TARGETS[-1] == catalog.NEWEST_RELEASE
