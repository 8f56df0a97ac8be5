"""benchmarks/replay.py's comparison on small synthetic release pairs (the replay itself is a
benchmark: ``python benchmarks/replay.py``). Slow tier with the rest of the benchmark code."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "replay.py"


def load():
    spec = importlib.util.spec_from_file_location("bench_replay", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


OLD = '''\
class Batch:
    @property
    def is_spec_v2(self):
        return self.spec_algorithm.supports_spec_v2()


def run(batch):
    # spec v1 path below
    if batch.is_spec_v2:
        go(batch)
    warn("DFLASH does not support overlap scheduling (spec v2).")
    x = compute(batch.is_spec_v2)
    batch.filter_batch(v1_spec_info_filtered=True)
'''
NEW = '''\
def later(batch):
    x = compute(batch.is_spec_v2)


class Batch:
    pass


def run(batch):
    # the path below
    if not batch.spec_algorithm.is_none():
        go(batch)
    batch.filter_batch()
'''


def _trees(tmp_path: Path) -> tuple[Path, Path]:
    old, new = tmp_path / "old", tmp_path / "new"
    for root, text in ((old, OLD), (new, NEW)):
        (root / "srt").mkdir(parents=True)
        (root / "srt" / "mod.py").write_text(text)
    return old, new


def test_statements_are_split_into_uses_definitions_moved_and_internal(tmp_path: Path) -> None:
    replay = load()
    hunks, changed, _ = replay.upstream_hunks(*_trees(tmp_path))
    kinds = {(h.span[0], h.kind) for h in hunks}
    assert changed == 1
    assert (2, "definition") in kinds  # the property that defines is_spec_v2 (from its decorator)
    assert (9, "use") in kinds and (11, "use") in kinds and (13, "use") in kinds
    assert (12, "moved") in kinds  # the same statement is elsewhere in the new release
    assert not any(h.span[0] == 8 for h in hunks)  # a comment is no statement


def test_a_judgment_goes_stale_when_the_tools_output_for_its_site_changes(tmp_path: Path) -> None:
    replay = load()
    old, new = _trees(tmp_path)
    hunks, _, _ = replay.upstream_hunks(old, new)
    site = next(h for h in hunks if h.span == (13, 13))
    old_lines, new_lines = OLD.splitlines(), NEW.splitlines()
    import ast

    candidates = replay.upstream_candidates(new_lines, replay.statement_spans(ast.parse(NEW)), site)
    same = OLD.replace("filter_batch(v1_spec_info_filtered=True)", "filter_batch()").splitlines()
    assert replay.judge(site, old_lines, same, candidates, {}, set()).outcome == "same"
    other = OLD.replace("v1_spec_info_filtered=True", "keep=True").splitlines()
    first = replay.judge(site, old_lines, other, candidates, {}, set())
    assert first.outcome == "unjudged"
    judgments = {first.key: {"verdict": "different", "reason": "r"}}
    used: set[str] = set()
    assert replay.judge(site, old_lines, other, candidates, judgments, used).outcome == "different"
    assert used == {first.key}
    changed_again = OLD.replace("v1_spec_info_filtered=True", "keep=False").splitlines()
    assert replay.judge(site, old_lines, changed_again, candidates, judgments, set()).outcome == "unjudged"


def test_normalise_ignores_comments_layout_and_string_splits() -> None:
    replay = load()
    a = 'f(  "ab"  # note\n  "c", x=1)'
    b = textwrap.dedent('''\
        f(
            "abc",
            x=1,
        )''')
    assert replay.normalise(a) == replay.normalise(b)
    assert replay.normalise("if a:") == replay.normalise("if a:  # why")
    assert replay.normalise("if a:") != replay.normalise("if not a:")


def test_a_moved_name_is_a_term_next_to_its_old_module_or_in_a_changed_call_form() -> None:
    replay = load()
    names, moved, calls = replay.removed_names(), replay.moved_names(), replay.call_form_names()
    assert "validate_dflash_request" in moved and "validate_dflash_request" in calls

    def terms(source: str) -> list[str]:
        tokens = replay._code_tokens(source)
        return replay._related_terms(1, 1, names, moved, calls, replay.text_spellings(), tokens)[0]

    assert terms("from sglang.srt.managers.scheduler import validate_dflash_request") == ["validate_dflash_request"]
    assert terms("from sglang.srt.speculative.dflash_utils import validate_dflash_request") == []
    assert terms("error = validate_dflash_request(req)") == ["validate_dflash_request"]
    assert terms("if batch.is_spec_v2:  # spec v2") == ["is_spec_v2"]
    assert terms('raise ValueError("DFLASH does not support overlap scheduling (spec v2).")')[0].startswith("text: ")
