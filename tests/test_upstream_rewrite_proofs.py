"""The wheel facts behind the rewrites issue 46 promoted to safe fixes, re-checked on every
release of the target range (0.5.14 to the newest the catalog knows): a release that breaks a
premise fails here, not in a user's tree. Each proof is written next to its rule
(``migrator/python/rules/spec_v2_flags.py``, ``migrator/python/rules/filter_batch.py``,
``migrator/python/rules/validate_request.py``, ``migrator/python/rules/spec_v2_blocks.py``).

The fixes themselves (what the rule writes, and that it is safe) are tested in
``tests/rules/``; this file checks only why they may be.

Slow: reads the cached wheels (:mod:`migrator.releases.wheels`), each parsed once.
"""

from __future__ import annotations

import ast

import pytest

from migrator import catalog
from migrator.python.rules.filter_batch import KEYWORD, RENAMED, RENAMED_IN, RENAMED_TO
from migrator.python.rules.validate_request import ATTRIBUTE, SCHEDULER
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


VALIDATE = "sglang.srt.speculative.dflash_utils.validate_dflash_request"


@pytest.mark.slow
@pytest.mark.parametrize("version", TARGETS)
def test_validate_dflash_request_takes_the_schedulers_enable_overlap(version: str) -> None:
    """DFM307: ``validate_dflash_request(req)`` in a method of a class with ``self.enable_overlap``
    (or a ``Scheduler`` subclass) -> ``validate_dflash_request(req, self.enable_overlap)``."""
    index = release_index(version)
    resolved = index.resolve(VALIDATE)
    # 1. the signature is (req, enable_overlap) with nothing else: the second positional is the flag
    assert resolved.found and resolved.ref is not None and resolved.ref.func is not None
    function = resolved.ref.func
    assert function.all_params == ("req", ATTRIBUTE) and not function.vararg and not function.kwarg
    # 2. the Scheduler assigns self.enable_overlap in its __init__: a subclass has it
    scheduler = index.resolve(SCHEDULER)
    assert scheduler.found and scheduler.ref is not None and scheduler.ref.cls is not None
    module, _, name = SCHEDULER.rpartition(".")
    source = dict(index.sources_under(module))[module]
    cls = next(n for n in ast.parse(source).body if isinstance(n, ast.ClassDef) and n.name == name)
    init = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__")
    assert any(isinstance(t, ast.Attribute) and t.attr == ATTRIBUTE and isinstance(t.value, ast.Name)
               and t.value.id == "self" for node in ast.walk(init) if isinstance(node, (ast.Assign, ast.AnnAssign))
               for t in (node.targets if isinstance(node, ast.Assign) else [node.target])), version
    # 3. upstream calls it this way, and only this way
    calls = [ast.unparse(node) for _, text in index.sources_under("sglang") if b"validate_dflash_request(" in text
             for node in ast.walk(ast.parse(text)) if isinstance(node, ast.Call)
             and getattr(node.func, "id", getattr(node.func, "attr", None)) == "validate_dflash_request"]
    assert calls and set(calls) == {"validate_dflash_request(req, self.enable_overlap)"}, calls


ENVS = "sglang.srt.environ.Envs"


def _logs_only(statements: list[ast.stmt]) -> bool:
    return all(isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Attribute)
               and s.value.func.attr in ("debug", "info", "warning", "error") for s in statements)


@pytest.mark.slow
@pytest.mark.parametrize("version", TARGETS)
def test_turning_spec_v2_on_through_envs_does_nothing_on_the_target(version: str) -> None:
    """DFM202's safe deletion of ``if not envs.SGLANG_ENABLE_SPEC_V2.get(): envs....set(True)``."""
    index = release_index(version)
    # 1. Envs is there and has no such member: the block's test raises AttributeError on the target
    assert index.resolve(ENVS).found
    assert index.resolve(f"{ENVS}.{catalog.ENV_SPEC_V2}").missing
    # 2. the only code that mentions the variable is the removal notice, which only logs: what the
    #    block set can change a log line and nothing else
    for module, source in index.sources_under("sglang"):
        if catalog.ENV_SPEC_V2.encode() not in source:
            continue
        tree = ast.parse(source)
        readers = [node for node in ast.walk(tree) if isinstance(node, ast.Constant) and node.value == catalog.ENV_SPEC_V2]
        notices = [node for node in ast.walk(tree) if isinstance(node, ast.If) and _logs_only(node.body)
                   and not node.orelse and ast.unparse(node.test) == f"os.getenv('{catalog.ENV_SPEC_V2}') is not None"]
        in_notices = {id(n) for notice in notices for n in ast.walk(notice)}
        assert readers and all(id(node) in in_notices for node in readers), (version, module)


@pytest.mark.slow
@pytest.mark.parametrize("version", catalog.RELEASES[catalog.RELEASES.index("0.5.8"):])
def test_filter_batch_renamed_its_first_parameter_in_0_5_22(version: str) -> None:
    """DFM319: ``filter_batch(chunked_req_to_exclude=x)`` -> ``reqs_to_exclude=x`` (0.5.22+ only targets), or
    ``filter_batch(x)`` (a target that also holds an older release)."""
    index = release_index(version)
    resolved = index.resolve(SCHEDULE_BATCH)
    assert resolved.found and resolved.ref is not None and resolved.ref.cls is not None
    method = resolved.ref.cls.methods["filter_batch"]
    renamed = catalog.parse_version(version) >= catalog.parse_version(RENAMED_IN)
    # 1. the first parameter after self has the old name up to 0.5.21 and the new one from 0.5.22: the
    #    positional form works on every release, each keyword only on its side; no **kwargs takes either
    assert method.all_params[1] == (RENAMED_TO if renamed else RENAMED), version
    assert not method.kwarg
    # 2. from 0.5.22 no filter_batch of the release takes the old name, whatever the receiver
    if renamed:
        for module, node in _filter_batch_definitions(index):
            assert RENAMED not in [a.arg for a in (*node.args.args, *node.args.kwonlyargs)], module
