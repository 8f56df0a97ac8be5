"""Every shortcut of a run (git narrowing, the byte prefilter, the fork index's words, hot
lines, partial parsing, cold statements) loses no finding and no fix: on every corpus of
the findings snapshot, ``--parse-all`` (every shortcut off) gives the same findings and the
same fixes as a plain run. What may differ is only what ``--parse-all`` is for: syntax
errors in files no rule can concern (and the exit code and summary they make)."""

from __future__ import annotations

import pytest

from tests.test_findings_unchanged import FAST, require_sglang_tree, snapshot

#: What a file can fail with only where every statement is parsed and analysed.
ONLY_WITHOUT_SHORTCUTS = ("syntax error", "cannot analyse: nesting too deep", "cannot parse")


def _path(line: str) -> str:
    return line.split(":", 1)[0]


def _same_without_shortcuts(name: str) -> None:
    plain, every = snapshot.record(name), snapshot.record(name, ("--parse-all",))
    lint_plain, lint_every = plain["lint"], every["lint"]
    new_errors = set(lint_every["errors"]) - set(lint_plain["errors"])
    assert set(lint_plain["errors"]) <= set(lint_every["errors"]), name
    assert all(error.split(": ", 1)[1].startswith(ONLY_WITHOUT_SHORTCUTS) for error in new_errors), new_errors
    failed = {_path(error) for error in new_errors}  # files the run without shortcuts could not analyse
    assert [f for f in lint_every["findings"] if _path(f) not in failed] == \
        [f for f in lint_plain["findings"] if _path(f) not in failed], name
    for label in snapshot.COMMANDS:
        if label != "lint":
            assert _diff_without(every[label]["diff"], failed) == _diff_without(plain[label]["diff"], failed), (name, label)


def _diff_without(diff: list[str], paths: set[str]) -> list[str]:
    """A unified diff without the files in ``paths`` (``./x.py`` as lint names them)."""
    kept: list[str] = []
    skipping = False
    for line in diff:
        if line.startswith("--- a/"):
            skipping = "./" + line[len("--- a/"):] in paths
        if not skipping:
            kept.append(line)
    return kept


@pytest.mark.parametrize("name", FAST)
def test_no_shortcut_loses_a_finding(name: str) -> None:
    _same_without_shortcuts(name)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(snapshot.SLOW))
def test_no_shortcut_loses_a_finding_on_sglang_tree(name: str) -> None:
    require_sglang_tree()
    _same_without_shortcuts(name)


#: For each rule's declared word group, a source whose finding or fix needs it: without the
#: group the statement that holds it is cold.
NEEDS_DECLARED_WORDS = {
    # the builder is edited only where the variable is a string literal; its alias is followed
    "spec_v2_env": ("import os\n\nfrom sglang import Engine as Start\n\n\ndef configure():\n"
                    "    os.environ[\"SGLANG_ENABLE_SPEC_V2\"] = \"0\"\n\n\ndef build():\n"
                    "    return Start(model_path=\"m\")\n"),
    # a removed member's name as data, fed to ``setattr`` on a receiver of unknown type
    "reflection_names": ("from sglang.srt.speculative.dflash_worker import DFlashWorker\n\n"
                         "NAMES = (\"_prepare_for_speculative_decoding\",)\n\n\ndef patch(cls):\n"
                         "    for name in NAMES:\n        setattr(cls, name, None)\n"),
}
#: Declared groups that only the fork pass needs (where another module types the receiver,
#: a file that spells no V1 class but writes its V1 keywords), which analyses without
#: shortcuts: no single file shows them; the corpora's equivalence above covers them.
FORK_PASS_ONLY = {"verify_input"}
#: Cases whose words matter only to a lint, the one mode that parses a file partly.
LINT_CASES: set[str] = set()


def _result(source: str, mode: str = "fix") -> tuple[list[tuple], bytes | None]:
    from migrator.base.options import Options
    from migrator.run.pipeline import process_bytes

    result = process_bytes("m.py", source.encode(), Options(mode=mode, target_version="0.5.17"))
    return sorted((f.line, f.code, f.message, repr(f.fix)) for f in result.findings), result.new_bytes


def _clear_word_tables() -> None:
    from migrator.relevance import words

    for cached in (words.word_groups, words._searched_preconditions, words._followed):
        cached.cache_clear()


def test_every_declared_word_group_has_a_case() -> None:
    from migrator.python.rules import RULES

    declared = {rule.name for rule in RULES if rule.words}
    assert declared == set(NEEDS_DECLARED_WORDS) | FORK_PASS_ONLY


@pytest.mark.parametrize("rule_name", sorted(NEEDS_DECLARED_WORDS))
def test_a_declared_word_group_is_needed(rule_name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rule's ``words`` are words it compares names against: without them its case loses a
    finding or a fix (a declaration in vain fails here, one missing in the test above)."""
    from migrator.python import rules

    source = NEEDS_DECLARED_WORDS[rule_name]
    rule = next(r for r in rules.RULES if r.name == rule_name)
    mode = "lint" if rule_name in LINT_CASES else "fix"
    with_words = _result(source, mode)
    assert any(code in rule.emits for _, code, _, _ in with_words[0]), with_words
    monkeypatch.setattr(rules, "RULES", tuple(r._replace(words=()) if r is rule else r for r in rules.RULES))
    _clear_word_tables()
    try:
        assert _result(source, mode) != with_words
    finally:
        monkeypatch.undo()
        _clear_word_tables()


def test_no_declared_word_repeats_the_catalogs() -> None:
    """A word a rule declares is not one the catalog already gives under a precondition the
    rule's implies (the worker's ``__init__`` was declared twice, by the catalog's DFM111)."""
    from migrator import catalog
    from migrator.python.rules import RULES

    def implied(condition: tuple[str, ...], preconditions: tuple[str, ...]) -> bool:
        return not condition or set(condition) <= set(preconditions)

    repeated = [(rule.name, word) for rule in RULES for preconditions, words in rule.words for word in words
                if any(word in given and implied(condition, preconditions) for condition, given in catalog.name_word_groups())]
    assert repeated == []


#: A member of the class decides DFM307's fix; a lint parses a large file partly
#: (``migrator.python.partial``), which blanks ``__init__``: the rule asks for the attribute
#: by name (``Analysis.need_word``) only where a one-argument call depends on it.
ASKED_FOR_BY_NAME = (
    "from sglang.srt.speculative.dflash_utils import validate_dflash_request\n\n\n"
    "class MyScheduler:\n    def __init__(self, server_args):\n"
    "        self.enable_overlap = not server_args.disable_overlap_schedule\n\n"
    + "".join(f"    def helper_{i}(self):\n        return {i}\n\n" for i in range(800))
    + "    def handle(self, req):\n        return validate_dflash_request(req)\n"
)


def test_a_word_asked_for_by_a_rule_gives_a_partial_parse_the_whole_files_result() -> None:
    from migrator.base.options import Options
    from migrator.python import partial
    from migrator.relevance import words
    from migrator.run.pipeline import process_bytes

    source = ASKED_FOR_BY_NAME
    assert partial.mask(source, words.hot_text(source).lines_hot) is not None, "the case must be parsed partly"
    results = []
    for parse_all in (False, True):
        result = process_bytes("m.py", source.encode(), Options(mode="lint", target_version="0.5.17", parse_all=parse_all))
        results.append(sorted((f.line, f.code, f.message, repr(f.fix)) for f in result.findings))
    assert results[0] == results[1]
    assert [(code, "safe" in fix) for _, code, _, fix in results[0]] == [("DFM307", True)], results[0]
