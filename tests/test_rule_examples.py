"""Every rule's own examples (``examples=Examples(...)`` on its declaration, Fixit style), run
through the real engine at the newest release: each invalid source gives a code the rule
emits, each valid one gives none of them. A rule without examples fails here."""

from __future__ import annotations

from pathlib import Path

import pytest

from migrator import text
from migrator.base.model import Examples
from migrator.catalog import NEWEST_RELEASE
from migrator.python.rules import RULES
from migrator.run import engine

_FILE = "# file: "
#: (rule name, its examples or None, the codes it may emit)
_DECLARED = [(rule.name, rule.examples, rule.emits) for rule in RULES] + [
    (name, rule.examples, text.emitted_codes(name)) for name, rule in sorted(text.text_rules().items())
]


def _files(examples: Examples, source: str) -> dict[str, str]:
    """The files a source stands for: itself at ``examples.path``, or each ``# file: NAME`` part."""
    if not source.startswith(_FILE):
        return {examples.path: source}
    files = {}
    for part in source.split(_FILE)[1:]:
        name, _, body = part.partition("\n")
        files[name] = body
    return files


def _codes(root: Path, examples: Examples, source: str) -> set[str]:
    files = _files(examples, source)
    for name, body in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(body)
    checked = (root / list(files)[-1]).resolve()
    outcome = engine.run([root], engine.Options(mode="lint", target_version=NEWEST_RELEASE, jobs=1))
    assert not [r.error for r in outcome.results if r.error]
    return {f.code for r in outcome.results for f in r.findings if Path(f.path).resolve() == checked}


def _cases(kind: str) -> list:
    return [pytest.param(name, examples, emits, index, id=f"{name}-{index}")
            for name, examples, emits in _DECLARED if examples is not None
            for index in range(len(getattr(examples, kind)))]


@pytest.mark.parametrize("name", [name for name, _, _ in _DECLARED])
def test_every_rule_declares_valid_and_invalid_examples(name: str) -> None:
    examples = next(examples for declared, examples, _ in _DECLARED if declared == name)
    assert examples is not None and examples.invalid and examples.valid, f"{name}: no examples= on its declaration"


@pytest.mark.parametrize(("name", "examples", "emits", "index"), _cases("invalid"))
def test_each_invalid_example_gives_one_of_its_rules_codes(tmp_path: Path, name: str, examples: Examples,
                                                          emits: frozenset[str], index: int) -> None:
    found = _codes(tmp_path, examples, examples.invalid[index])
    assert found & emits, f"{name}: invalid example {index} gave {sorted(found)}, none of {sorted(emits)}"


@pytest.mark.parametrize(("name", "examples", "emits", "index"), _cases("valid"))
def test_each_valid_example_gives_none_of_its_rules_codes(tmp_path: Path, name: str, examples: Examples,
                                                         emits: frozenset[str], index: int) -> None:
    found = _codes(tmp_path, examples, examples.valid[index])
    assert not found & emits, f"{name}: valid example {index} gave {sorted(found & emits)}"


@pytest.mark.parametrize("name", [rule.name for rule in RULES])
def test_every_python_rule_has_its_own_test_file(name: str) -> None:
    assert (Path(__file__).parent / "rules" / f"test_{name}.py").is_file(), f"tests/rules/test_{name}.py is missing"
