"""The splice path (span replacements, TODO lines and whole-line statement deletions) must
produce exactly what the libcst path produces, on every Python file of the example fork
and on awkward layouts (CRLF, tabs, form feeds, BOM, latin-1, decorators, nested blocks)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from migrator import edit
from migrator.base.lines import split_lines
from migrator.base.model import InsertComment, RemoveStatement, Replace, Span
from migrator.edit import chosen_edits
from migrator.edit.removal import removal_pieces
from migrator.relevance.prefilter import might_match
from migrator.run.engine import Options
from migrator.run.pipeline import process_bytes

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE_FILES = sorted(p for p in (ROOT / "examples" / "legacy_fork").rglob("*.py") if might_match(p.read_bytes()))

AWKWARD = {
    "crlf.py": b"import os\r\nfrom sglang.srt.speculative.dflash_worker import DFlashWorker\r\n\r\nclass W(DFlashWorker):\r\n    def _prepare_for_speculative_decoding(self, b, d):\r\n        pass\r\n",
    "tabs_ff.py": b"\x0c\nfrom sglang.srt.speculative import dflash_info\nif True:\n\tx = dflash_info.DFlashDraftInput\n\tkeep = dflash_info._compute_paged_keep_slots()\n",
    "bom.py": b"\xef\xbb\xbffrom sglang.srt.speculative.dflash_worker import DFlashWorker\nw = DFlashWorker\n",
    "latin1.py": "# -*- coding: latin-1 -*-\n# caf\xe9\nfrom sglang.srt.speculative.dflash_worker import DFlashWorker  # \xe9\nw = DFlashWorker  # \xe9\n".encode("latin-1"),
    "decorated.py": b"import functools\nfrom sglang.srt.speculative.dflash_worker import DFlashWorker\nclass W(DFlashWorker):\n    @functools.cache\n    @staticmethod\n    def forward_batch_generation(batch, **kw):\n        pass\n",
    "unicode.py": "from sglang.srt.speculative.dflash_worker import DFlashWorker\nname = '\u00e9\u00e9'; w = DFlashWorker\n".encode(),
}


def _cases() -> list[tuple[str, bytes]]:
    cases = [(str(p.relative_to(ROOT)), p.read_bytes()) for p in EXAMPLE_FILES]
    return cases + sorted(AWKWARD.items())


@pytest.mark.parametrize(("name", "data"), _cases(), ids=[c[0] for c in _cases()])
def test_splice_equals_libcst(name: str, data: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    options = Options(mode="check", target_version="0.5.17")
    result = process_bytes(name, data, options)
    assert result.error is None
    edits = [e for e in chosen_edits(result.findings, options.unsafe_fixes) if isinstance(e, (Replace, InsertComment))]
    if not edits:
        pytest.skip(f"{name}: no span or comment edits to compare")
    spliced = edit.apply(data, edits)
    monkeypatch.setenv("DFLASH_MIGRATE_ALWAYS_LIBCST", "1")
    through_libcst = edit.apply(data, edits)
    assert spliced == through_libcst
    ast.parse(spliced)
    if data.startswith(b"\xef\xbb\xbf"):
        assert spliced.startswith(b"\xef\xbb\xbf")
    if b"\r\n" in data:
        assert spliced.count(b"\r\n") == spliced.count(b"\n")


# ---- statement deletions spliced as text (``migrator.edit.removal``) ------------------
# Each case: the source, and the first lines of the statements deleted (with their rule).
# ``spliced``: whether the layout is one the splice path takes (else libcst does, and the
# case shows the splice declined rather than guessed).
_HOOK = '''import json
import logging
from typing import TYPE_CHECKING, Optional

from sglang.srt.environ import envs

if TYPE_CHECKING:
    from sglang.srt.server_args import ServerArgs


def hook(server_args):
    """Doc."""
    from sglang.srt.environ import envs
    from sglang.srt.server_args import ServerArgs

    if server_args.x:
        server_args.y = 1

    server_args.disable_overlap_schedule = True
    logger.warning(
        "Overlap scheduler is disabled when using DFLASH speculative decoding (spec v2 is not supported yet)."
    )

    if server_args.enable_mixed_chunk:
        server_args.enable_mixed_chunk = False
    # SGLANG_ENABLE_SPEC_V2=False selects the non-overlap (synchronous) spec v2
    # path instead of the overlap-scheduled one; both run the V2 worker.
    if (
        not envs.SGLANG_ENABLE_SPEC_V2.get()
        and not server_args.disable_overlap_schedule
    ):
        server_args.disable_overlap_schedule = True

    if server_args.disable_overlap_schedule:
        if not envs.SGLANG_ENABLE_SPEC_V2.get():
            envs.SGLANG_ENABLE_SPEC_V2.set(True)
            logger.warning("Spec v2 is enabled for EAGLE speculative decoding.")

        print("after")
    return ServerArgs
'''
_GUARD = '''class A:
    def get_worker(self, server_args):
        enable_overlap = not server_args.disable_overlap_schedule

        if self.is_dflash():
            if enable_overlap:
                raise ValueError(
                    "DFLASH does not support overlap scheduling (spec v2)."
                )
            from sglang.srt.speculative.dflash_worker import DFlashWorker

            return DFlashWorker
'''
REMOVALS = {
    "hook-imports": (_HOOK, (5, 13), True),
    "hook-settings": (_HOOK, (19, 20), True),
    "hook-blocks": (_HOOK, (28, 35), True),
    "hook-everything": (_HOOK, (5, 13, 19, 20, 28, 35), True),
    "guard": (_GUARD, (6,), True),
    "first-of-block-blank-above": ("if x:\n\n    import os\n\n    y = 1\n", (3,), True),
    "blanks-both-sides": ("import a\n\n\nimport os\n\nx = 1\n", (4,), True),
    "blank-after-only": ("import a\nimport os\n\n\nx = 1\n", (2,), True),
    "two-imports-blank-between": ("import a\n\nimport os\n\nimport sys\n\nx = 1\n", (3, 5), True),
    "trailing-comment": ("x = 0\ny = 1  # keep me\nz = 2\n", (2,), True),
    "last-in-block": ("def f():\n    x = 1\n    y = 2\n\n# after\nz = 3\n", (3,), True),
    "decorated-next": ("import os\nimport a\n\n@a.b\ndef f():\n    pass\n", (2,), True),
    "comment-above-and-below": ("x = 0\n# above\ny = 1\n# below\nz = 2\n", (3,), True),
    "long-tombstone": ("def f():\n    if True:\n        some_object.with_a_long_name.attribute_value = another_object.method_call(argument_one, argument_two)\n        z = 2\n", (3,), True),
    "unicode": ("x = 0\ny = '\u00e9\u00e9'  # \u00e9\nz = 2\n", (2,), True),
    # left to libcst:
    "emptied-block": ("if x:\n    import os\ny = 1\n", (2,), False),
    "module-first": ("import os\nx = 1\n", (1,), False),
    "semicolons": ("x = 0\ny = 1; z = 2\nw = 3\n", (2,), False),
    "deeper-comment-after-block": ("def f():\n    if a:\n        b = 1\n        # footer\n    c = 2\n", (2,), False),
    "spaces-line-after": ("x = 0\nimport os\n    \ny = 1\n", (2,), False),
    "crlf": ("x = 0\r\nimport os\r\n\r\ny = 1\r\n", (2,), False),
    "tabs": ("if x:\n\ty = 1\n\tz = 2\n", (2,), False),
    "elif": ("if a:\n    x = 1\nelif b:\n    y = 2\nz = 3\n", (3,), False),
    "with-else": ("x = 0\nif a:\n    y = 1\nelse:\n    y = 2\nz = 3\n", (2,), False),
    "nested": ("x = 0\nif a:\n    y = 1\n    w = 2\nz = 3\n", (2, 3), False),  # libcst deletes the outer
}


def _removals(source: str, first_lines: tuple[int, ...]) -> list[RemoveStatement]:
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    edits = {}
    for node in sorted((n for n in ast.walk(tree) if isinstance(n, ast.stmt)), key=lambda n: -n.col_offset):
        if node.lineno in first_lines:  # the line's first statement
            end = lines[node.end_lineno - 1].encode()[:node.end_col_offset].decode()
            code = "DFM210" if isinstance(node, ast.If) else "DFM211"
            edits[node.lineno] = RemoveStatement(Span.of(node.lineno, node.col_offset, node.end_lineno, len(end)), code)
    assert len(edits) == len(first_lines)
    return list(edits.values())


@pytest.mark.parametrize("name", sorted(REMOVALS))
def test_deletions_spliced_equal_libcst(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    source, first_lines, spliced_here = REMOVALS[name]
    data = source.encode()
    edits = _removals(source, first_lines)
    assert (removal_pieces(source, split_lines(source), edits, 88) is not None) == spliced_here
    spliced = edit.apply(data, edits)
    monkeypatch.setenv("DFLASH_MIGRATE_ALWAYS_LIBCST", "1")
    assert spliced == edit.apply(data, edits)
    ast.parse(spliced)


def test_deletions_beside_other_edits_equal_libcst(monkeypatch: pytest.MonkeyPatch) -> None:
    """A deleted guard beside the renames and TODOs of its neighbours (sglang's
    ``spec_info.py`` in ``--unsafe-fixes``): spliced; a TODO on a deleted line is libcst's."""
    lines = _GUARD.splitlines(keepends=True)
    renames = [Replace(Span.of(10, 17, 10, 53), "sglang.srt.speculative.dflash_worker_v2"),
               Replace(Span.of(10, 61, 10, 73), "DFlashWorkerV2"), Replace(Span.of(12, 19, 12, 31), "DFlashWorkerV2"),
               InsertComment(2, "# TODO(dflash-migrate): DFM205 a note"), InsertComment(10, "# TODO(dflash-migrate): x")]
    assert lines[9][17:53] == "sglang.srt.speculative.dflash_worker" and lines[11][19:31] == "DFlashWorker"
    edits = [*renames, *_removals(_GUARD, (6,))]
    assert removal_pieces(_GUARD, lines, edits, 88) is not None
    on_deleted = [*edits, InsertComment(7, "# TODO(dflash-migrate): y")]
    assert removal_pieces(_GUARD, lines, on_deleted, 88) is None
    spliced = edit.apply(_GUARD.encode(), edits)
    monkeypatch.setenv("DFLASH_MIGRATE_ALWAYS_LIBCST", "1")
    assert spliced == edit.apply(_GUARD.encode(), edits)


@pytest.mark.parametrize("unsafe", [False, True], ids=["default", "unsafe"])
def test_rule_deletions_spliced_equal_libcst(unsafe: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The deletions the rules choose (``spec_v2_blocks``, DFM210/211) on sglang-like code:
    the whole fix is byte-identical either way, and no file needs libcst for them."""
    options = Options(mode="check", target_version="0.5.17", unsafe_fixes=unsafe)
    for name, source in (("srt/arg_groups/speculative_hook.py", _HOOK), ("srt/speculative/spec_info.py", _GUARD)):
        result = process_bytes(name, source.encode(), options)
        edits = chosen_edits(result.findings, unsafe)
        if not any(isinstance(e, RemoveStatement) for e in edits):
            continue
        monkeypatch.delenv("DFLASH_MIGRATE_ALWAYS_LIBCST", raising=False)
        assert removal_pieces(source, split_lines(source), edit.wrapped(
            [line.rstrip("\n") for line in split_lines(source)], edits, 88), 88) is not None
        spliced = edit.apply(source.encode(), edits)
        monkeypatch.setenv("DFLASH_MIGRATE_ALWAYS_LIBCST", "1")
        assert spliced == edit.apply(source.encode(), edits), name


def test_libcst_deletions_are_deterministic() -> None:
    """A statement after a removed nested block is kept every time: the libcst path once
    marked dropped statements by ``id`` without holding them, so a node made later could
    take a freed id and vanish (about 1 run in 100 lost this ``return``: the guard then
    refused a fix for an undefined name that the original binds)."""
    from migrator.edit.structural import apply_with_libcst

    source, first_lines, _ = REMOVALS["hook-blocks"]
    edits = _removals(source, first_lines)
    outputs = set()
    for round_number in range(300):
        noise = [object() for _ in range(round_number % 7)]  # vary the allocator's free lists
        outputs.add(apply_with_libcst(source.encode(), edits))
        del noise
    assert len(outputs) == 1
    assert next(iter(outputs)).endswith(b"    return ServerArgs\n")
