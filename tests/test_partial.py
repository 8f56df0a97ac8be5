"""``migrator.python.partial``: statement boundaries found without the tokenizer must be the real
AST's, and parsing a masked file must never change a finding, in one file or through the
fork index."""

from __future__ import annotations

import ast
import warnings
from pathlib import Path

import pytest
from codemod_helpers import assert_shortcut_changes_nothing

from migrator.base.fileio import decode_python
from migrator.python import partial
from migrator.relevance import words
from migrator.run import engine, pipeline
from tests.blind_corpora import is_blind

ROOT = Path(__file__).resolve().parent.parent
# Not the blind corpora (tests/blind_corpora.py): only scripts/score_blind.py reads them.
CORPUS = sorted((ROOT / "examples").rglob("*.py")) + sorted(
    path for path in (ROOT / "tests").rglob("*.py") if not is_blind(path)
) + sorted((ROOT / "migrator").rglob("*.py"))
V1 = "from sglang.srt.speculative.dflash_worker import DFlashWorker\n"
#: Enough cold code to push a file past partial.MIN_PARTIAL_CHARS and the blanked share.
PADDING = "".join(f"\n\ndef helper_{i}(value):\n    total = value * {i}\n    return total + {i}\n" for i in range(600))


def real_starts(tree: ast.Module) -> tuple[list[int], dict[int, list[int]]]:
    """0-based first lines (decorators included) of top-level statements and class members."""
    def first(node: ast.stmt) -> int:
        return min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))]) - 1

    def lines(nodes: list[ast.stmt]) -> list[int]:
        return sorted({first(node) for node in nodes})  # `a; b` share a line: one unit

    top = lines(tree.body)
    members = {first(node): lines(node.body) for node in tree.body
               if isinstance(node, ast.ClassDef) and node.body[0].lineno > node.lineno}
    return top, members


def statement_starts(lines: list[str], starts: list[bool]) -> tuple[list[int], dict[int, list[int]]] | None:
    """Top-level statement starts and, per top-level class, its members', as ``partial`` finds them."""
    top = partial.top_level_starts(lines, starts)
    members: dict[int, list[int]] = {}
    for position, first in enumerate(top):
        end = top[position + 1] if position + 1 < len(top) else len(lines)
        found = partial.body_members(lines, starts, first, end, partial.CLASS_HEADS)
        if found is None:
            return None
        if found:
            members[first] = found
    return top, members


def assert_same_starts(source: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", (DeprecationWarning, SyntaxWarning))
        tree = ast.parse(source)
    lexed = partial.code_lines(source)
    if "\r" in source:  # such files are parsed whole
        assert lexed is None
        return
    assert lexed is not None
    found = statement_starts(*lexed)
    assert found is not None
    top, members = real_starts(tree)
    assert found[0] == top
    assert {k: v for k, v in found[1].items() if k in members} == members
    assert_same_function_bodies(tree, *lexed)


def assert_same_function_bodies(tree: ast.Module, lines: list[str], starts: list[bool]) -> None:
    """``body_members`` of each top-level function and method: its body's statements."""
    def first(node: ast.stmt) -> int:
        return min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))]) - 1

    top = sorted({first(node) for node in tree.body})
    bounds = dict(zip(top, [*top[1:], len(lines)]))
    functions = [(node, bounds[first(node)]) for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.body[0].lineno > node.lineno:
            member_starts = sorted({first(member) for member in node.body})
            ends = dict(zip(member_starts, [*member_starts[1:], bounds[first(node)]]))
            functions += [(m, ends[first(m)]) for m in node.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for function, end in functions:
        got = partial.body_members(lines, starts, first(function), end, partial.DEF_HEADS)
        if function.body[0].lineno == function.lineno or not starts[function.body[0].lineno - 1]:
            assert got == [], function.name  # the body on the header's (last) line: `def f(): ...`
            continue
        assert got == sorted({first(statement) for statement in function.body}), function.name


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: str(p.relative_to(ROOT)))
def test_statement_starts_match_the_ast_on_the_corpus(path: Path) -> None:
    source = decode_python(path.read_bytes())
    if "\r" in source:
        assert partial.code_lines(source) is None
        return
    assert_same_starts(source)


TRICKY = {
    "column-0 text inside strings": 'x = """\nclass Fake(DFlashWorker):\n    pass\n"""\ny = 1\n',
    "brackets across column 0": "x = [\n1,\n2,\n]\nz = (\n'a'\n)\n",
    "backslash continuation": "x = 1 + \\\n2\ny = 3\n",
    "clauses at column 0": "try:\n    import a\nexcept ImportError:\n    a = None\nelse:\n    pass\nfinally:\n    pass\nif a:\n    pass\nelif b:\n    pass\n",
    "decorators": "@dec\n@dec2(\n1)\ndef f():\n    pass\n\n\nclass A:\n    @property\n    def x(self):\n        return 1\n    y = 2\n",
    "quotes inside comments and strings": "x = '#'  # it's\ny = \"'\"  # \"\nz = r'\\''\nw = f\"{x!r}\"\n",
    "triple quotes with embedded quotes": 'x = """a "quoted" \'\'\' b"""\ny = \'\'\'c """ d\'\'\'\nz = 1\n',
    "string prefixes": "x = rb'\\x00'\ny = Rb\"q\"\nz = f'{1}'\nw = u'u'\n",
    "semicolons and one-line class": "import os; import sys\nclass A: pass\nclass B(A): x = 1; y = 2\n",
    "nested class and match": "class A:\n    class B:\n        x = 1\n    match = 1\n\nmatch x:\n    case 1:\n        pass\n",
    "function bodies": "@dec\nasync def f(\n    a,\n) -> int:\n    \"\"\"doc\"\"\"\n    x = [\n1]\n    if x:\n        pass\n    else:\n        pass\n    @d\n    def g(): return 1\n    return x\n\n\nclass C:\n    def m(self): return 1\n    def n(self):\n        y = 1; z = 2\n        return y\n",
}


@pytest.mark.parametrize("name", TRICKY)
def test_statement_starts_on_tricky_layouts(name: str) -> None:
    assert_same_starts(TRICKY[name])


def _findings(source: str, monkeypatch: pytest.MonkeyPatch | None = None, whole: bool = False) -> list:
    options = engine.Options(mode="lint", target_version="0.5.17")
    if whole and monkeypatch is not None:
        monkeypatch.setattr(partial, "mask", lambda source, hot: None)
    return pipeline.process_bytes("pkg/mod.py", source.encode(), options).findings


CASES = {
    # An alias bound at the top and used in a function that spells no V1 name: the
    # analysis adds `W` as a hot word after masking, so the whole file is parsed again.
    "alias used in a cold function": V1.replace("DFlashWorker\n", "DFlashWorker as W\n") + PADDING + "\n\ndef make():\n    return W(1, 2)\n",
    "subclass used elsewhere": V1 + "\n\nclass Mine(DFlashWorker):\n    pass\n" + PADDING + "\n\ndef make():\n    return Mine()._prepare_for_speculative_decoding()\n",
    "hot method among cold members": V1 + "\n\nclass Mine(DFlashWorker):\n" + "".join(
        f"    def m{i}(self):\n        return {i} + {i} * {i}\n" for i in range(800)) + "    def __init__(self, *a):\n        super().__init__(*a)\n",
    "code-like text in a docstring": V1 + '\n\nDOC = """\nclass Fake(DFlashWorker):\n    def _prepare_for_speculative_decoding(self):\n        pass\n"""\n' + PADDING,
    # A cold statement of a hot function that imports a name the hot statements use stays.
    "import in a cold block of a hot function": "def make(flag):\n    if flag:\n        import sglang.srt.speculative as spec\n"
                                                "    return spec.dflash_worker.DFlashWorker(1)\n" + PADDING,
    "guarded import in a cold block": "try:\n    from sglang.srt.speculative import dflash_worker as dw\nexcept ImportError:\n    dw = None\n" + PADDING + "\n\ndef f():\n    return dw.DFlashWorker\n",
}


@pytest.mark.parametrize("name", CASES)
def test_masked_parse_gives_the_same_findings(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    source = CASES[name]
    assert len(source) >= partial.MIN_PARTIAL_CHARS
    hot = words.hot_text(source)
    assert partial.mask(source, hot.lines_hot) is not None, "the case must exercise masking"
    fast = _findings(source)
    assert fast, "the case must have findings"
    assert fast == _findings(source, monkeypatch, whole=True)


def test_cold_functions_are_blanked_with_their_local_imports(monkeypatch: pytest.MonkeyPatch) -> None:
    source = (
        "import sglang.srt.speculative as spec\n\n\n"
        "class Mine:\n"
        "    import json\n\n"                                   # class level: kept
        "    def cold(self):\n        import re\n        return re\n\n"    # local: blanked
        "    def hot(self):\n        return spec.dflash_worker.DFlashWorker(1)\n\n\n"
        "def cold_function():\n    from os import path\n    return path\n\n\n"  # local: blanked
        "def with_global():\n    global path\n    from os import path\n\n\n"  # kept
        "def outer():\n    path = None\n\n    def rebind():\n        nonlocal path\n        from os import path\n"
        "    return spec.dflash_worker.DFlashWorker(path)\n\n\n"  # hot; its nonlocal import: kept
        "def hot_function(flag):\n"
        "    @decorated\n    def nested():\n        import json\n        return json\n"  # local: blanked
        "    if flag:\n        import json\n"  # the hot statements may use it: kept
        "    return spec.dflash_worker.DFlashWorker(json)\n"
        + PADDING)
    masked, blanked = partial.mask(source, words.hot_text(source).lines_hot)
    kept = masked.split("\n")
    assert kept[4] == "    import json"
    assert (7, 10) in blanked and kept[6] == "    pass"
    assert kept[11] == "        return spec.dflash_worker.DFlashWorker(1)"
    assert (15, 19) in blanked
    assert kept[19:22] == ["def with_global():", "    global path", "    from os import path"]
    assert kept[24:30] == ["def outer():", "    pass", "", "    def rebind():", "        nonlocal path",
                           "        from os import path"]
    assert (35, 38) in blanked and kept[34:36] == ["    pass", ""]
    assert kept[38:41] == ["    if flag:", "        import json", "    return spec.dflash_worker.DFlashWorker(json)"]
    fast = _findings(source)
    assert fast and fast == _findings(source, monkeypatch, whole=True)


def test_masked_text_keeps_every_position() -> None:
    source = V1 + PADDING + "\n\nclass Mine(DFlashWorker):\n    x = 1\n"
    masked, blanked = partial.mask(source, words.hot_text(source).lines_hot)
    assert masked.count("\n") == source.count("\n")
    kept = [(a, b) for a, b in zip(source.split("\n"), masked.split("\n")) if b]
    # kept lines are identical; blanked ones are empty, or `pass` where a class member was
    assert all(a == b or b.strip() == "pass" and b[:len(b) - 4] == a[:len(b) - 4] for a, b in kept)
    assert any(b.strip() == "pass" for _, b in kept)
    assert blanked and all(first <= last for first, last in blanked)
    got, real = ast.parse(masked).body[-1], ast.parse(source).body[-1]
    assert (got.name, got.lineno, got.col_offset, got.end_lineno) == (real.name, real.lineno, real.col_offset, real.end_lineno)


def test_syntax_error_in_a_blanked_statement_is_reported_by_check_fix_and_parse_all_not_lint() -> None:
    """The documented trade-off (README, ``--parse-all``): like a file that mentions no V1
    name, a cold statement of a large file is not parsed by lint; every other mode parses
    the file whole and names the error."""
    source = V1 + PADDING + "\n\ndef broken(:\n    pass\n"
    line = source.count("\n", 0, source.index("def broken")) + 1
    lint = pipeline.process_bytes("m.py", source.encode(), engine.Options(mode="lint", target_version="0.5.17"))
    assert lint.error is None and lint.findings
    for options in (engine.Options(mode="lint", target_version="0.5.17", parse_all=True),
                    engine.Options(mode="check", target_version="0.5.17"),
                    engine.Options(mode="fix", target_version="0.5.17")):
        result = pipeline.process_bytes("m.py", source.encode(), options)
        assert result.error is not None and "syntax error" in result.error.message and result.error.line == line
        assert result.new_bytes is None


def test_a_syntax_error_in_a_kept_statement_is_reported_by_lint() -> None:
    source = V1 + PADDING + "\n\ndef broken(:\n    return DFlashWorker\n"
    lint = pipeline.process_bytes("m.py", source.encode(), engine.Options(mode="lint", target_version="0.5.17"))
    assert lint.error is not None and "syntax error" in lint.error.message


def test_small_or_cr_files_are_parsed_whole() -> None:
    assert partial.mask(V1 + "x = DFlashWorker\n", [2]) is None
    assert partial.code_lines("x = 1\r\ny = 2\r\n") is None


@pytest.mark.slow
def test_statement_starts_match_the_ast_on_sglang_0_5_13(sglang_0_5_13: Path) -> None:
    checked = 0
    for path in sorted(sglang_0_5_13.rglob("*.py")):
        source = decode_python(path.read_bytes())
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", (DeprecationWarning, SyntaxWarning))
                ast.parse(source)
        except SyntaxError:
            continue
        assert_same_starts(source)
        checked += 1
    assert checked > 2000


@pytest.mark.slow
def test_masked_parse_changes_no_finding_on_sglang_0_5_13(sglang_0_5_13: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    candidates = assert_shortcut_changes_nothing(
        sglang_0_5_13, lambda: monkeypatch.setattr(partial, "mask", lambda source, hot: None), mode="lint")
    assert sum(1 for p in candidates if p.stat().st_size >= partial.MIN_PARTIAL_CHARS) >= 5


COLD = "\n\ndef _cold_padding(value):\n    return value + 1\n"


#: A candidate whose cold statements (no V1 word in them) bind a name another module carries:
#: the index needs them (``Mine``'s base, ``Alias``), so the masked summary is completed.
CARRIED_FORK = {
    "fork/__init__.py": "",
    "fork/compat.py": "from sglang.srt.speculative.dflash_worker import DFlashWorker as BaseWorker\n",
    "fork/workers.py": (
        "from sglang.srt.speculative.dflash_info import DFlashDraftInput  # a candidate of its own\n"
        "from .compat import BaseWorker\n\n\n"
        "class Mine(BaseWorker):\n    def step(self):\n        return 1\n\n\n"
        "Alias = BaseWorker\n\n\ndef uses(d: DFlashDraftInput):\n    return d\n"),
    "fork/run.py": "from .workers import Alias, Mine\n\n\ndef go():\n    Mine()._prepare_for_speculative_decoding()\n    return Alias\n",
}


def _fork_corpora() -> dict[str, dict[str, str]]:
    """Every fork the index's tests use, and CARRIED_FORK, as {relative path: text}."""
    import test_forkindex

    corpora = {"RETURNS_FORK": test_forkindex.RETURNS_FORK, "NGRAM_FORK": test_forkindex.NGRAM_FORK,
               "CARRIED_FORK": CARRIED_FORK}
    for folder in (*sorted((ROOT / "tests" / "data" / "forks").iterdir()), ROOT / "examples" / "legacy_fork"):
        corpora[folder.name] = {p.relative_to(folder).as_posix(): p.read_text() for p in sorted(folder.rglob("*"))
                                if p.is_file() and "__pycache__" not in p.parts}
    return corpora


@pytest.mark.parametrize("name", sorted(_fork_corpora()))
def test_masked_summaries_change_no_finding_through_the_fork_index(name: str, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Each fork's files, every one given cold code to blank, linted with every file masked
    and with none: the fork index must give the same findings (a masked summary it needs
    more of is completed from the whole file)."""
    for relative, text in _fork_corpora()[name].items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + COLD if relative.endswith(".py") and text.strip() else text)
    options = engine.Options(mode="lint", target_version="0.5.17", jobs=1)

    def findings() -> list:
        return sorted((f.path, f.line, f.column, f.code, f.message, f.related)
                      for r in engine.run([tmp_path], options).results for f in r.findings)

    masked: list[int] = []
    real_mask = partial.mask

    def counting_mask(source: str, hot: list[int]):  # noqa: ANN202
        result = real_mask(source, hot)
        masked.append(result is not None)
        return result

    monkeypatch.setattr(partial, "mask", counting_mask)
    monkeypatch.setattr(partial, "MIN_PARTIAL_CHARS", 0)
    monkeypatch.setattr(partial, "MIN_BLANKED_SHARE", 0)
    monkeypatch.setattr(partial, "MAX_HOT_LINE_SHARE", 0)
    fast = findings()
    assert any(masked), "the corpus must exercise masking"
    if name == "CARRIED_FORK":  # found only through the completed summary of workers.py
        assert {(Path(f[0]).name, f[3]) for f in fast} >= {("run.py", "DFM106"), ("run.py", "DFM500")}
    monkeypatch.setattr(partial, "mask", lambda source, hot: None)
    assert fast == findings()
