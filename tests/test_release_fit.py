"""Issue 30: a fix serves every release of the target (``migrator.python.release_fit``), existing
fallbacks stay fallbacks, probes keep their meaning, and reaches through a fork module's
alias of a V1 module are renamed with it.

Facts used (read in the wheels, ../shared/reference/sglang-dflash-api.md):
``compute_dflash_correct_drafts_and_bonus`` lives in ``speculative.dflash_utils`` in
0.5.12-0.5.22 and in ``sglang.kernels.ops.speculative.dflash`` from 0.5.23;
``DFlashDraftInputV2.verified_id`` is ``bonus_tokens`` from 0.5.15.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from codemod_helpers import migrate, todo_lines, write_tree

from migrator.catalog import target as targets

V2 = targets.v2_releases()  # 0.5.14 to the newest release
UTILS = "sglang.srt.speculative.dflash_utils"
KERNELS = "sglang.kernels.ops.speculative.dflash"
FN = "compute_dflash_correct_drafts_and_bonus"
OLD_FN = "compute_dflash_accept_len_and_bonus"

FALLBACK = f"""\
try:
    from {UTILS} import {FN} as score
except ImportError:
    from {UTILS} import {OLD_FN} as score
"""


def test_a_fallback_keeps_two_spellings_over_the_whole_v2_range() -> None:
    new, findings = migrate(FALLBACK, releases=V2)
    # the try serves 0.5.12-0.5.22 as written; the handler now serves 0.5.23, its only reader
    assert new == FALLBACK.replace(f"{UTILS} import {OLD_FN}", f"{KERNELS} import {FN}")
    assert {f.code for f in findings} == {"DFM303"}


def test_a_fallback_is_never_rewritten_to_one_spelling_for_a_single_release() -> None:
    new, findings = migrate(FALLBACK, target="0.5.23")
    assert new.count(f"from {KERNELS} import {FN} as score") == 1  # the try moves to 0.5.23's spelling...
    assert f"from {UTILS} import {OLD_FN} as score" in new  # ...and the handler no release reaches stays
    unreachable = [f for f in findings if f.code == "DFM303"]
    assert unreachable and all(f.fix is None and "no release of the target reaches" in f.message for f in unreachable)


def test_a_fallback_no_release_of_a_pinned_range_needs_is_left_and_reported() -> None:
    new, findings = migrate(FALLBACK, releases=("0.5.17", "0.5.18", "0.5.19", "0.5.20"))
    assert new == FALLBACK
    assert findings and all("no release of the target reaches this fallback branch" in f.message for f in findings)


def test_a_moved_import_becomes_version_adaptive_newest_first() -> None:
    new, findings = migrate(f"from {UTILS} import {FN}\n\n\ndef run(x):\n    return {FN}(x)\n", releases=V2)
    # each spelling over 88 characters in the try: laid out as black lays it out
    assert new.startswith(f"try:\n    from {KERNELS} import (\n        {FN},\n    )\nexcept ImportError:\n"
                          f"    from {UTILS} import (\n        {FN},\n    )\n")
    (finding,) = findings
    moved = targets.label(V2[V2.index("0.5.23"):])  # 0.5.23 to the newest release
    assert f"{moved}: `from sglang.kernels" in finding.message and "0.5.14..0.5.22: `from sglang.srt" in finding.message
    # where one spelling serves the whole range, a plain rename (or nothing at all)
    assert migrate(f"from {UTILS} import {FN}\n", releases=("0.5.23",))[0] == f"from {KERNELS} import (\n    {FN},\n)\n"
    assert migrate(f"from {UTILS} import {FN}\n", releases=V2[:V2.index("0.5.23")]) == (f"from {UTILS} import {FN}\n", [])


def test_a_renamed_and_moved_function_is_imported_adaptively_and_its_calls_follow() -> None:
    new, findings = migrate(f"from {UTILS} import {OLD_FN}\n\n\ndef run(x):\n    return {OLD_FN}(x)\n", releases=V2)
    assert new == (f"try:\n    from {KERNELS} import (\n        {FN},\n    )\nexcept ImportError:\n"
                   f"    from {UTILS} import (\n        {FN},\n    )\n\n\n"
                   f"def run(x):\n    return {FN}(x)\n")
    assert all(f.fix is not None and f.fix.applicability == "safe" for f in findings)


def test_a_moved_import_inside_a_function_keeps_its_indentation() -> None:
    new, _ = migrate(f"def run(x):\n    from {UTILS} import {FN} as f\n    return f(x)\n", releases=V2)
    assert f"    try:\n        from {KERNELS} import {FN} as f\n    except ImportError:\n        from {UTILS}" in new


def test_a_field_renamed_inside_the_range_gets_a_todo_naming_each_spelling() -> None:
    source = ("from sglang.srt.speculative.dflash_info_v2 import DFlashDraftInputV2\n\n\n"
              "def bonus(draft_input: DFlashDraftInputV2):\n    return draft_input.verified_id\n")
    new, findings = migrate(source, releases=V2)
    assert "draft_input.verified_id" in new  # not rewritten: 0.5.14 only has `verified_id`
    (todo,) = todo_lines(new)
    assert "DFM301" in todo and ("`sglang.srt.speculative.dflash_info_v2.DFlashDraftInputV2.bonus_tokens` serves "
                                 f"{targets.label(V2[1:])}") in todo
    assert "verified_id` serves 0.5.14" in todo
    fixed, _ = migrate(source, releases=V2[1:])  # 0.5.15 to the newest: one spelling
    assert "draft_input.bonus_tokens" in fixed and not todo_lines(fixed)


def test_probes_are_never_inverted() -> None:
    source = """\
        import importlib
        import importlib.util


        def _has_module(name):
            try:
                importlib.import_module(name)
            except ImportError:
                return False
            return True


        LEGACY = _has_module("sglang.srt.speculative.dflash_worker")
        SPEC = importlib.util.find_spec("sglang.srt.speculative.dflash_worker") is not None
        try:
            importlib.import_module("sglang.srt.speculative.dflash_worker")
            HAS_V1 = True
        except ImportError:
            HAS_V1 = False


        def load():
            return importlib.import_module("sglang.srt.speculative.dflash_worker")
        """
    new, findings = migrate(source, releases=V2)
    assert new.count('"sglang.srt.speculative.dflash_worker"') == 3  # the three probes
    assert 'return importlib.import_module("sglang.srt.speculative.dflash_worker_v2")' in new  # not a test
    probes = [f for f in findings if "the probe" in f.message]
    assert [p.span.start.line for p in probes] == [13, 14, 16]
    assert "`_has_module(...)` (it calls `import_module`)" in probes[0].message
    assert all(f"finds nothing on sglang {targets.label(V2)}" in p.message for p in probes)


def test_version_comparisons_split_the_range_between_branches() -> None:
    source = f"""\
        import sglang
        from packaging.version import Version

        if Version(sglang.__version__) >= Version("0.5.23"):
            from {KERNELS} import {FN} as score
        else:
            from {UTILS} import {FN} as score

        if sglang.__version__ < "0.5.14":
            from sglang.srt.speculative.dflash_worker import DFlashWorker as Worker
        else:
            from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2 as Worker
        """
    new, findings = migrate(source, releases=V2)
    assert new.count("dflash_worker import DFlashWorker as Worker") == 1  # the V1 branch: never both the same
    assert new.count(f"from {UTILS} import {FN} as score") == 1  # serves 0.5.14..0.5.22, as written
    assert all(f.fix is None for f in findings)


def test_a_version_test_the_tool_cannot_read_gets_a_todo() -> None:
    new, _ = migrate("""\
        import sglang

        if newer(sglang.__version__):
            pass
        else:
            from sglang.srt.speculative.dflash_worker import DFlashWorker
        """, releases=V2)
    assert "from sglang.srt.speculative.dflash_worker import DFlashWorker" in new
    assert any("test of sglang's version the tool cannot evaluate" in line for line in todo_lines(new))


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    return subprocess.run([sys.executable, "-m", "migrator", *args], capture_output=True, text=True, cwd=cwd, env=env)


def test_reaches_through_a_module_alias_are_renamed_with_it(tmp_path: Path) -> None:
    write_tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/worker.py": "from sglang.srt.speculative import dflash_worker as dfw\n",
        "pkg/plain.py": "import sglang.srt.speculative.dflash_worker as dw\n",
        "pkg/use.py": "from pkg import plain\n\nCLS = plain.dw.DFlashWorker\nDRAFT = plain.dw.DFlashDraftInput\n",
        "tests/__init__.py": "",
        "tests/test_worker.py": """\
            from unittest import mock

            from pkg import worker
            from pkg.worker import dfw


            def test_patch():
                with mock.patch.object(worker.dfw.DFlashWorker, "forward_batch_generation"):
                    pass
                with mock.patch("pkg.worker.dfw.DFlashWorker"):
                    pass
                return dfw.DFlashWorker
            """,
    })
    lint = _run("lint", ".", "--target-version", "0.5.14..0.5.23", cwd=tmp_path)
    reached = [line for line in lint.stdout.splitlines() if "through an alias of the V1 module" in line]
    assert [tuple(line.split(":")[:2]) for line in reached] == [
        ("./pkg/use.py", "3"), ("./pkg/use.py", "4"),
        ("./tests/test_worker.py", "8"), ("./tests/test_worker.py", "10"), ("./tests/test_worker.py", "12")], lint.stdout
    fixed = _run("fix", ".", "--allow-dirty", "--target-version", "0.5.14..0.5.23", cwd=tmp_path)
    assert fixed.returncode == 1, fixed.stdout + fixed.stderr  # the TODO below is left
    text = (tmp_path / "tests" / "test_worker.py").read_text()
    assert "worker.dfw.DFlashWorkerV2, " in text and '"pkg.worker.dfw.DFlashWorkerV2"' in text
    assert "return dfw.DFlashWorkerV2" in text and "DFlashWorker," not in text
    assert (tmp_path / "pkg" / "worker.py").read_text() == "from sglang.srt.speculative import dflash_worker_v2 as dfw\n"
    used = (tmp_path / "pkg" / "use.py").read_text()  # `import ... as dw`; a member that moved elsewhere: TODO
    assert "CLS = plain.dw.DFlashWorkerV2\n" in used and "DRAFT = plain.dw.DFlashDraftInput\n" in used
    assert any("`plain.dw.DFlashDraftInput` reaches `DFlashDraftInput`" in line for line in todo_lines(used))
