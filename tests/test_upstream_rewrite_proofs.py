"""The wheel facts behind the rewrites issue 46 promoted to safe fixes, re-checked on every
release of the target range (0.5.14 to the newest the catalog knows): a release that breaks a
premise fails here, not in a user's tree. Each proof is written next to its rule
(``migrator/python/rules/spec_v2_flags.py``, ``migrator/python/rules/filter_batch.py``).

The fixes themselves (what the rule writes, and that it is safe) are tested in
``tests/rules/``; this file checks only why they may be.

Slow: reads the cached wheels (:mod:`migrator.releases.wheels`), each parsed once.
"""

from __future__ import annotations

import ast

import pytest

from migrator import catalog
from migrator.python.rules.filter_batch import KEYWORD
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


def _filter_batch_definitions(index: SglangIndex) -> list[tuple[str, ast.FunctionDef]]:
    found = []
    for module, source in index.sources_under("sglang"):
        if b"def filter_batch" in source:
            found += [(module, node) for node in ast.walk(ast.parse(source))
                      if isinstance(node, ast.FunctionDef) and node.name == "filter_batch"]
    return found


@pytest.mark.slow
@pytest.mark.parametrize("version", TARGETS)
def test_filter_batch_lost_the_keyword_and_its_value_is_never_read(version: str) -> None:
    """DFM112: ``filter_batch(v1_spec_info_filtered=<constant>)`` -> ``filter_batch()``."""
    index = release_index(version)
    resolved = index.resolve(SCHEDULE_BATCH)
    assert resolved.found and resolved.ref is not None and resolved.ref.cls is not None
    method = resolved.ref.cls.methods["filter_batch"]
    # 1. ScheduleBatch.filter_batch rejects the keyword (TypeError): nothing of the target's behaviour is lost
    assert KEYWORD not in method.all_params and not method.kwarg
    # 2. no other filter_batch of the release takes it either (0.5.17's DFlashDraftInputV2.filter_batch
    #    takes has_been_filtered): whatever the receiver, the keyword raised on the target
    definitions = _filter_batch_definitions(index)
    assert definitions
    for module, node in definitions:
        assert KEYWORD not in [a.arg for a in (*node.args.args, *node.args.kwonlyargs)], module
    # 3. the value it guarded is never read: nothing mentions the keyword, and ScheduleBatch passes
    #    no has_been_filtered but the constant False on to the draft input
    assert _mentions(index, KEYWORD.encode()) == []
    body = next(node for module, node in definitions if module == "sglang.srt.managers.schedule_batch")
    passed = [k.value for call in ast.walk(body) if isinstance(call, ast.Call)
              for k in call.keywords if k.arg == "has_been_filtered"]
    assert all(isinstance(value, ast.Constant) and value.value is False for value in passed), version
