"""The two speed shortcuts must never lose a finding: the byte prefilter and skipping
statements and function bodies that hold no word any rule looks for."""

from __future__ import annotations

from pathlib import Path

import pytest
from codemod_helpers import assert_shortcut_changes_nothing

from migrator import catalog
from migrator.python import analysis
from migrator.relevance import prefilter
from migrator.relevance import words as relevance
from migrator.run import engine, pipeline

ROOT = Path(__file__).resolve().parent.parent
CORPUS = sorted((ROOT / "examples" / "legacy_fork").rglob("*.py")) + sorted((ROOT / "tests" / "rules").glob("test_*.py"))


def test_every_trigger_token_contains_a_coarse_marker() -> None:
    """A token holds a marker, or every cue it needs does; a file holding the token and a
    cue passes the coarse stage through the cue's marker."""
    from migrator.relevance import prefilter

    for token, cues, _ in prefilter._groups():
        markers = prefilter.markers_of(token, cues)
        assert markers, token
        assert any(m in token.lower() for m in markers) or all(any(m in cue.lower() for m in markers) for cue in cues), token
    cued = [(token, cues) for token, cues, _ in prefilter._groups()
            if cues and not any(m in token.lower() for m in prefilter.COARSE_MARKERS)]
    assert cued, "no token relies on its cues' marker: the case below tests nothing"
    for token, cues in cued:
        assert prefilter.might_match(b"r = w.forward(b)\nr." + token + b"\n# " + cues[0] + b"\n")
        assert not prefilter.might_match(b"r = w.forward(b)\nr." + token + b"\n")


def test_prefilter_rejects_clean_and_accepts_each_token() -> None:
    assert not prefilter.might_match(b"import os\nprint('flash attention')\n")
    for token, cues, patterns in prefilter._groups():
        if patterns:  # the shape of code the patterns describe: test_patterned_triggers
            continue
        if not cues:
            assert prefilter.might_match(b"x = '" + token + b"'\n")
            continue
        assert not prefilter.might_match(b"from m import " + token + b"\n")  # the class alone still exists
        for cue in cues:
            assert prefilter.might_match(b"from m import " + token + b"\nv" + cue + b"\n")


GUARD_SHAPES = {
    # (source, the rule fires): sent to the parser exactly where the rule can fire
    "guard on one line": ('if enable_overlap:\n    raise ValueError("DFLASH does not support overlap")\n', True),
    "black's split test and message": (
        "def create_worker(self, server_args):\n    if (\n        not server_args.disable_overlap_schedule\n"
        "        and self.is_dflash()\n    ):\n        logger.info('refusing')\n        raise ValueError(\n"
        "            'Overlap scheduling is not supported '\n            'with DFlash speculative decoding'\n        )\n", True),
    "forced off in _handle_dflash": ("def _handle_dflash(server_args):\n    server_args.disable_overlap_schedule = True\n", True),
    "forced off, no spaces": ("def _handle_dflash(a):\n    a.disable_overlap_schedule=True\n", True),
    "a DFLASH error that is no overlap guard": (
        "def load(self):\n    if self.is_dflash():\n        raise ValueError('DFLASH needs a draft model')\n"
        "    return not self.server_args.disable_overlap_schedule\n", False),
    "an overlap parameter next to DFLASH": (
        "def run(enable_overlap=False):\n    algo = 'DFLASH'\n    if enable_overlap:\n        print(algo)\n", False),
    "overlap read, not forced": ("def _handle_dflash(a):\n    a.disable_overlap_schedule = False\n", False),
}


@pytest.mark.parametrize("name", GUARD_SHAPES)
def test_patterned_triggers_send_exactly_the_guards_to_the_parser(name: str) -> None:
    source, fires = GUARD_SHAPES[name]
    options = engine.Options(mode="lint", target_version="0.5.14")
    assert prefilter.might_match(source.encode()) is fires
    everything = pipeline.process_bytes("m.py", source.encode(), options._replace(parse_all=True))
    assert bool(everything.findings) is fires  # the rule agrees: the prefilter drops no finding


def test_every_catalog_member_name_is_a_relevant_word() -> None:
    words = {word for _, group in relevance.word_groups() for word in group}  # every word any rule may look for
    for entry in catalog.ENTRIES:
        if entry.kind == catalog.BEHAVIOUR_KIND:  # names no removed thing; its rule reads the tree itself
            continue
        for name in entry.names:
            assert name.rpartition(".")[2] in words


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: str(p.relative_to(ROOT)))
def test_skipping_cold_code_loses_nothing(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = path.read_bytes()
    options = engine.Options(mode="lint", target_version="0.5.17")
    fast = pipeline.process_bytes(str(path), data, options)
    monkeypatch.setattr(analysis, "_hot_lines", lambda source, *_: list(range(1, source.count("\n") + 2)))
    thorough = pipeline.process_bytes(str(path), data, options)
    assert fast.findings == thorough.findings


SKIP_CASES = {
    # A cold statement still gives its target the value's type: the hot line after it
    # needs it (`w` is a DFlash worker).
    "type through a cold assignment": (
        "from sglang.srt.speculative.dflash_worker import DFlashWorker\n"
        "class Holder:\n    def __init__(self):\n        self.worker = DFlashWorker()\n"
        "    def step(self):\n        w = self.worker\n        w._prepare_for_speculative_decoding()\n", True),
    # A cold statement that rebinds an alias hides the V1 name from later lines.
    "cold rebinding shadows an alias": (
        "from sglang.srt.speculative import dflash_worker as dw\n"
        "def f():\n    dw = make()\n    return dw.DFlashWorker\n", True),
    # An alias bound in a cold-looking statement is a hot word for the lines using it.
    "alias of an alias": (
        "from sglang.srt.speculative.dflash_worker import DFlashWorker as W\nK = W\n"
        "def build():\n    return K(1, 2, 3)\n", True),
    # Member names are looked for only where their class is named.
    "member name without its class": ("def f(x):\n    return x.verify() + x.target_hidden\n# dflash\n", False),
    # Builders matter only where the variable is set as a string literal.
    "builder without the env literal": (
        "import sglang\nfrom sglang.srt.environ import envs\nflag = envs.SGLANG_ENABLE_SPEC_V2.get()\n"
        "engine = sglang.Engine(speculative_algorithm='DFLASH')\n", True),
    "builder with the env literal": (
        "import os, sglang\nos.environ['SGLANG_ENABLE_SPEC_V2'] = '0'\n"
        "def start():\n    return sglang.Engine(model_path='m', speculative_algorithm='DFLASH')\n", True),
}


@pytest.mark.parametrize("name", SKIP_CASES)
def test_skipping_cold_code_on_targeted_cases(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    source, has_findings = SKIP_CASES[name]
    options = engine.Options(mode="check", target_version="0.5.17")
    fast = pipeline.process_bytes("pkg/mod.py", source.encode(), options)
    monkeypatch.setattr(analysis, "_hot_lines", lambda source, *_: list(range(1, source.count("\n") + 2)))
    thorough = pipeline.process_bytes("pkg/mod.py", source.encode(), options)
    assert fast.error is None
    assert fast.findings == thorough.findings and fast.new_bytes == thorough.new_bytes
    assert bool(fast.findings) == has_findings


@pytest.mark.slow
def test_skipping_cold_code_loses_nothing_on_sglang_0_5_13(sglang_0_5_13: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def everything_hot() -> None:
        monkeypatch.setattr(analysis, "_hot_lines", lambda source, *_: list(range(1, source.count("\n") + 2)))

    assert len(assert_shortcut_changes_nothing(sglang_0_5_13, everything_hot)) >= 10


def _naive_matches(data: bytes) -> bool:
    """The byte prefilter without its marker positions: every token searched in the file."""
    from migrator.relevance import prefilter

    lowered = data.lower()
    return any(marker in lowered and any(token in data and (not cues or any(c in data for c in cues))
                                         and (not patterns or any(p.search(data) for p in patterns))
                                         for token, _, cues, patterns in groups)
               for marker, groups in prefilter._groups_by_marker())


def test_tokens_compared_at_marker_positions_find_what_a_whole_file_search_finds() -> None:
    """``_matches_bytes`` compares each token only where its marker stands: the same answer
    as searching the whole file, for every token at the start, the end and the middle of a
    file, after a different-case spelling of its marker, and past the position cap."""
    from migrator.relevance import prefilter

    filler = b"x = 1\n" * 50
    for token, cues, _ in prefilter._groups():
        cue = cues[0] + b"\n" if cues else b""
        for data in (token + b"\n" + cue, filler + cue + token, b"DFLASH dflash DFlash " + token + b" " + cue,
                     b"dflash " * (prefilter._MAX_MARKER_POSITIONS + 5) + token + cue,
                     token[:-1] + b" " + token[1:] + cue):
            assert prefilter._matches_bytes(data) == _naive_matches(data), (token, data[:80])
    for path in CORPUS:
        data = path.read_bytes()
        assert prefilter._matches_bytes(data) == _naive_matches(data), path


def test_hot_lines_compared_where_a_shorter_word_stands_equal_a_search_of_each_word() -> None:
    """``analysis._hot_lines`` compares a word that holds a shorter one only where that one
    stands: the same lines as searching each word in the whole source, on the corpus, with
    every relevant word of the catalog, and on overlapping spellings."""
    words = {word for _, group in relevance.word_groups() for word in group}

    def naive(source: str) -> list[int]:
        lines = source.split("\n")
        return [number for number, line in enumerate(lines, start=1) if any(word in line for word in words)]

    samples = [path.read_text(encoding="utf-8") for path in CORPUS]
    samples.append("dflashdflash_worker\nx = compute_dflash_accept_len_and_bonus\nverifyverify_\nprepare_for_verify\n")
    for source in samples:
        hot = relevance.hot_text(source)
        assert analysis._hot_lines(source, words, hot.line_ends) == naive(source)
