"""Relative imports inside a fork of SGLang resolve against the file's package."""

from __future__ import annotations

from pathlib import Path

from codemod_helpers import write_tree

from migrator.run.engine import Options, run


def test_relative_imports_in_sglang_fork(tmp_path: Path) -> None:
    write_tree(tmp_path, {
        "python/sglang/__init__.py": "",
        "python/sglang/srt/__init__.py": "",
        "python/sglang/srt/speculative/__init__.py": "",
        "python/sglang/srt/speculative/patch.py": "from .dflash_worker import DFlashWorker\nfrom . import dflash_worker as dw\nx = dw.DFlashWorker\n",
        "python/sglang/srt/other/__init__.py": "",
        "python/sglang/srt/other/use.py": "from ..speculative.dflash_info import DFlashDraftInput\n",
        "python/mypkg/__init__.py": "",
        "python/mypkg/dflash_worker.py": "class DFlashWorker:\n    pass\n",
        "python/mypkg/use.py": "from .dflash_worker import DFlashWorker\n",
    })
    outcome = run([tmp_path], Options(mode="fix", target_version="0.5.17", allow_dirty=True))
    assert outcome.summary.files_with_errors == 0
    patch = (tmp_path / "python/sglang/srt/speculative/patch.py").read_text()
    assert patch == "from .dflash_worker_v2 import DFlashWorkerV2\nfrom . import dflash_worker_v2 as dw\nx = dw.DFlashWorkerV2\n"
    assert (tmp_path / "python/sglang/srt/other/use.py").read_text() == "from ..speculative.dflash_info_v2 import DFlashDraftInputV2\n"
    assert (tmp_path / "python/mypkg/use.py").read_text() == "from .dflash_worker import DFlashWorker\n"
