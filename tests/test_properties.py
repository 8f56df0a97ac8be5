"""Property tests: generated modules mixing V1 imports in all their forms with unrelated code.

Properties, for every generated module (LF or CRLF, with or without BOM, nested in blocks):

* the output always parses;
* a second run is a no-op;
* nothing outside the targeted nodes changes: the token streams of input and output,
  aligned with ``difflib``, differ only on lines covered by the findings' edit spans
  (inserted TODO comment lines and added imports aside).

Settings: profile ``dflash-ci`` (default; derandomized, 60 examples, no deadline) so CI is
reproducible; ``DFLASH_MIGRATE_HYPOTHESIS=explore`` runs 500 random examples locally.
"""

from __future__ import annotations

import ast
import difflib
import io
import os
import tokenize
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from migrator.base.fileio import decode_python
from migrator.base.model import AddImport, InsertComment
from migrator.edit import chosen_edits
from migrator.run import engine, pipeline

settings.register_profile("dflash-ci", max_examples=60, deadline=None, derandomize=True, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("dflash-explore", max_examples=500, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
PROFILE = settings.get_profile("dflash-" + os.environ.get("DFLASH_MIGRATE_HYPOTHESIS", "ci"))
FIX = engine.Options(mode="fix")

PKG = "sglang.srt.speculative"
identifiers = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True).filter(
    lambda s: s not in {"if", "in", "is", "or", "and", "as", "def", "del", "for", "not", "try", "with", "from",
                        "else", "elif", "pass", "class", "import", "return", "while", "yield", "async", "await",
                        "break", "raise", "global", "lambda", "assert", "except", "finally", "continue", "nonlocal",
                        "match", "case", "type", "sglang"})


@st.composite
def v1_chunk(draw) -> list[str]:  # noqa: ANN001
    """One V1 use in one of its forms (a few lines, left-aligned)."""
    alias = draw(identifiers)
    form = draw(st.sampled_from(range(14)))
    if form == 0:
        return [f"import {PKG}.dflash_worker"]
    if form == 1:
        return [f"import {PKG}.dflash_worker as {alias}", f"w_{alias} = {alias}.DFlashWorker"]
    if form == 2:
        return [f"from {PKG}.dflash_worker import DFlashWorker", "worker_cls = DFlashWorker"]
    if form == 3:
        return [f"from {PKG}.dflash_worker import DFlashWorker as {alias.capitalize()}Alias"]
    if form == 4:
        return [f"from {PKG} import dflash_worker", "chain = dflash_worker.DFlashWorker"]
    if form == 5:
        return [f"from {PKG}.dflash_info import DFlashDraftInput", "draft_cls = DFlashDraftInput"]
    if form == 6:
        return [f"import {PKG}.dflash_worker", f"chained = {PKG}.dflash_worker.DFlashWorker"]
    if form == 7:
        return [f"from {PKG}.dflash_worker import DFlashWorker", "",
                f'def make_{alias}(worker: "DFlashWorker") -> "DFlashWorker":', "    return worker"]
    if form == 8:
        return ["try:", f"    from {PKG}.dflash_worker import DFlashWorker", "except ImportError:  # older sglang",
                "    DFlashWorker = None"]
    if form == 9:
        return [f"from {PKG}.dflash_worker import (", "    DFlashWorker,  # the V1 worker", ")"]
    if form == 10:
        return [f"from {PKG}.dflash_worker import DFlashWorker", "", f"class My{alias.capitalize()}(DFlashWorker):",
                '    """Subclass."""', "", "    def helper(self):", "        return 1"]
    if form == 11:
        return ["from .dflash_worker import DFlashWorker", "relative_cls = DFlashWorker"]
    if form == 12:
        return ["from . import dflash_info", "info_cls = dflash_info.DFlashDraftInput"]
    return [f"from {PKG}.dflash_worker import DFlashWorker", f"isinstance(obj_{alias}, DFlashWorker)"]


@st.composite
def unrelated_chunk(draw) -> list[str]:  # noqa: ANN001
    name = draw(identifiers)
    number = draw(st.integers(-10**6, 10**6))
    text = draw(st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=12))
    form = draw(st.sampled_from(range(13)))
    if form == 0:
        return [f"{name} = {number}"]
    if form == 1:
        return [f"{name} = {text!r}  # comment mentioning DFlashWorker and dflash_worker"]
    if form == 2:
        return ['LOOKALIKE = "SGLANG_ENABLE_SPEC_V2_FOO"', "SGLANG_ENABLE_SPEC_V2_FOO = 1"]
    if form == 3:
        return ["class DFlashWorkerV2Like:", "    pass", "DFlashWorkerV2 = DFlashWorkerV2Like"]
    if form == 4:
        return [f"def {name}(a, b={number}, *args, **kw):", f"    '''Docstring naming {PKG}.dflash_worker.DFlashWorker.'''",
                "    return (a,", "            b)"]
    if form == 5:
        return [f"# {text.replace(chr(10), ' ').replace(chr(13), ' ')}"]
    if form == 6:
        return [""]
    if form == 7:
        return [f"{name}_s = f'{{{name}!r}} DFlashWorker {{1 + 2}}'"]
    if form == 8:
        return [f"{name}_d = {{'dflash_worker': 1, 'DFlashDraftInput': [1, 2,", "    3]}"]
    if form == 9:
        return [f"import os.path as {name}_p", f"from collections import OrderedDict as {name.capitalize()}Dict"]
    if form == 10:
        return [f"{name}_x = lambda v: v if v else {number}", f"{name}_y = [i for i in range(3) if i]"]
    if form == 11:
        return [f"{name}_t = '''multi", "DFlashWorker line", "'''"]
    return ["@staticmethod", f"def {name}_deco():", "    ..."]


@st.composite
def modules(draw) -> tuple[bytes, str | None]:  # noqa: ANN001
    chunks = draw(st.lists(st.one_of(v1_chunk(), unrelated_chunk()), min_size=1, max_size=10))
    if not any(any("dflash_worker import" in line or "import " + PKG in line or "dflash_info" in line for line in c)
               for c in chunks):
        chunks.append(draw(v1_chunk()))
    lines: list[str] = []
    for chunk in chunks:
        wrap = draw(st.sampled_from(["", "", "", "if", "def", "class"]))
        if wrap and chunk != [""]:
            header = {"if": "if TYPE_CHECKING:", "def": "def outer():", "class": "class Holder:"}[wrap]
            lines.append(header)
            lines.extend(("    " + line) if line else "" for line in chunk)
            lines.append("    pass")
        else:
            lines.extend(chunk)
    newline = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    text = newline.join(lines) + newline
    data = text.encode("utf-8")
    if draw(st.integers(0, 9)) == 0:
        data = b"\xef\xbb\xbf" + data
    module_name = draw(st.sampled_from([None, "myfork.models.runner", f"{PKG}.fork_ext", f"{PKG}"]))
    return data, module_name


def _tokens(data: bytes) -> list[tokenize.TokenInfo]:
    skip = {tokenize.ENCODING, tokenize.ENDMARKER}
    return [t for t in tokenize.tokenize(io.BytesIO(data).readline) if t.type not in skip]


def _edited_lines(findings, options: engine.Options) -> tuple[set[int], bool]:  # noqa: ANN001
    lines: set[int] = set()
    adds_import = False
    for edit in chosen_edits(findings, options.unsafe_fixes):
        if isinstance(edit, AddImport):
            adds_import = True
        elif isinstance(edit, InsertComment):
            lines.add(edit.line)
        else:
            lines.update(range(edit.span.start.line, edit.span.end.line + 1))
    return lines, adds_import


def assert_only_targeted_tokens_changed(old: bytes, new: bytes, findings, options: engine.Options) -> None:  # noqa: ANN001
    edited, adds_import = _edited_lines(findings, options)
    a, b = _tokens(old), _tokens(new)
    matcher = difflib.SequenceMatcher(None, [(t.type, t.string) for t in a], [(t.type, t.string) for t in b], autojunk=False)
    trivia = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT}
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        for token in a[i1:i2]:
            assert set(range(token.start[0], token.end[0] + 1)) <= edited, (
                f"token {token.string!r} at line {token.start[0]} changed outside the edits (edited lines {sorted(edited)})")
        inserted = b[j1:j2]
        if tag == "insert":
            neighbours = [t for t in a[max(0, i1 - 1):i1 + 1]]
            near_edit = any(t.start[0] in edited or t.end[0] in edited for t in neighbours)
            only_trivia = all(t.type in trivia for t in inserted)
            is_import = adds_import and any(t.string == "import" for t in inserted)
            assert near_edit or only_trivia or is_import, (
                f"tokens {[t.string for t in inserted]!r} inserted away from every edit (edited lines {sorted(edited)})")


def check_module(data: bytes, module_name: str | None) -> None:
    result = pipeline.process_bytes("generated.py", data, FIX, module_name)
    assert result.error is None, result.error
    new = result.new_bytes if result.new_bytes is not None else data
    ast.parse(decode_python(new))
    again = pipeline.process_bytes("generated.py", new, FIX, module_name)
    assert again.error is None, again.error
    assert again.new_bytes is None, "second run changed the output again"
    if result.new_bytes is not None:
        assert_only_targeted_tokens_changed(data, new, result.findings, FIX)
        assert new.startswith(b"\xef\xbb\xbf") == data.startswith(b"\xef\xbb\xbf")
        assert (b"\r\n" in new) == (b"\r\n" in data)
        assert new.count(b"\r\n") >= data.count(b"\r\n")
    lint = pipeline.process_bytes("generated.py", data, engine.Options(mode="lint"), module_name)
    assert lint.error is None and lint.new_bytes is None
    assert [f.code for f in lint.findings] == [f.code for f in result.findings]


@PROFILE
@given(modules())
def test_generated_modules(module: tuple[bytes, str | None]) -> None:
    check_module(*module)


@settings(PROFILE, max_examples=20)
@given(st.lists(modules(), min_size=2, max_size=4))
@example([(b"x = 1\n", None),  # found by hypothesis 6.170: the fix renamed the import the string was excused by
          (b"from sglang.srt.speculative.dflash_info import DFlashDraftInput\ndraft_cls = DFlashDraftInput\n"
           b"a_d = {'dflash_worker': 1, 'DFlashDraftInput': [1, 2,\n    3]}\n", None)])
def test_generated_package_tree(tmp_path_factory, modules_: list) -> None:  # noqa: ANN001
    """Relative imports resolve from the package layout; the CLI-level run keeps the properties."""
    root = tmp_path_factory.mktemp("pkgtree")
    package = root / "sglang" / "srt" / "speculative"
    package.mkdir(parents=True)
    for folder in (root / "sglang", root / "sglang" / "srt", package):
        (folder / "__init__.py").write_text("")
    files = {}
    for index, (data, _name) in enumerate(modules_):
        path = package / f"fork_{index}.py"
        path.write_bytes(data)
        files[path] = data
    first = engine.run([root], engine.Options(mode="fix", allow_dirty=True, jobs=1))
    assert first.summary.files_with_errors == 0, [str(r.error) for r in first.results if r.error]
    for path in files:
        ast.parse(decode_python(path.read_bytes()))
    snapshot = {path: path.read_bytes() for path in files}
    second = engine.run([root], engine.Options(mode="fix", allow_dirty=True, jobs=1))
    assert second.summary.files_changed == 0
    assert {path: path.read_bytes() for path in files} == snapshot
    assert not list(Path(root).rglob("*.dflash-migrate.tmp"))


def test_token_check_catches_a_change_outside_the_edits() -> None:
    """The checker itself is not vacuous: an edit outside the findings' spans is caught."""
    old = b"from sglang.srt.speculative.dflash_worker import DFlashWorker\nx = 1\n"
    result = pipeline.process_bytes("m.py", old, FIX)
    tampered = result.new_bytes.replace(b"x = 1", b"x = 2")
    try:
        assert_only_targeted_tokens_changed(old, tampered, result.findings, FIX)
    except AssertionError as error:
        assert "line 2" in str(error)
    else:  # pragma: no cover
        raise AssertionError("the token comparison missed a change outside the edits")
