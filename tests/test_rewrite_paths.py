"""The splice path (span replacements and TODO lines) must produce exactly what the
libcst path produces, on every Python file of the example fork and on awkward layouts
(CRLF, tabs, form feeds, BOM, latin-1, decorators, nested blocks)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from migrator import edit
from migrator.base.model import InsertComment, Replace
from migrator.edit import chosen_edits
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
