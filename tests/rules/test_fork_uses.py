"""Valid/invalid cases for migrator/python/rules/fork_uses.py: every use of a V1 object that a file
reaches through the fork's compat module, each on its own line."""

from __future__ import annotations

from pathlib import Path

from codemod_helpers import write_tree

from migrator.run import engine

COMPAT = """\
try:
    from sglang.srt.speculative.dflash_info import DFlashDraftInput, DFlashVerifyInput, _compute_paged_keep_slots
    from sglang.srt.speculative.dflash_worker import DFlashWorker
    HAS_DFLASH = True
except ImportError:
    DFlashDraftInput = DFlashVerifyInput = _compute_paged_keep_slots = DFlashWorker = None
    HAS_DFLASH = False
"""


def lint(root: Path, files: dict[str, str], target: str = "0.5.17") -> list[tuple[str, int, str, str]]:
    write_tree(root, {"pkg/__init__.py": "", "pkg/compat.py": COMPAT, **files})
    outcome = engine.run([root], engine.Options(mode="lint", target_version=target, jobs=1))
    return sorted((Path(f.path).name, f.line, f.code, f.message) for r in outcome.results for f in r.findings
                  if f.path.endswith("use.py"))


def lines(findings: list[tuple[str, int, str, str]], code: str) -> list[int]:
    return [line for _, line, found, _ in findings if found == code]


def test_each_use_of_a_reexported_name_is_its_own_finding(tmp_path: Path) -> None:
    findings = lint(tmp_path, {"pkg/use.py": """\
        from .compat import DFlashDraftInput, DFlashVerifyInput, DFlashWorker, _compute_paged_keep_slots


        def is_dflash(info):
            return isinstance(info, (DFlashDraftInput, int))


        def keep(a, b):
            return _compute_paged_keep_slots(a, b)


        class Mine(
            DFlashWorker,
        ):
            pass


        REGISTRY = {"dflash": DFlashWorker}
        VERIFY = DFlashWorker._prepare_for_speculative_decoding
        """})
    assert lines(findings, "DFM500") == [1, 1, 1, 5, 13, 18]
    assert lines(findings, "DFM104") == [9]
    assert lines(findings, "DFM106") == [19]
    message = next(m for _, line, code, m in findings if line == 5)
    assert "`isinstance` against `DFlashDraftInput`" in message and "compat.py:6" in message


def test_fields_read_after_isinstance_against_a_reexport(tmp_path: Path) -> None:
    findings = lint(tmp_path, {"pkg/use.py": """\
        from .compat import DFlashDraftInput as DI


        def hidden(info, other):
            if isinstance(info, DI) and info is not None:
                return info.target_hidden, other.ctx_lens
            elif isinstance(other, DI):
                return other.draft_seq_lens
            return info.ctx_lens
        """})
    assert lines(findings, "DFM109") == [6, 8]


def test_plain_uses_and_other_algorithms_are_not_reported(tmp_path: Path) -> None:
    findings = lint(tmp_path, {"pkg/use.py": """\
        from sglang.srt.speculative.eagle_info import EagleDraftInput

        from .compat import DFlashWorker, HAS_DFLASH


        def make(*args):
            worker = DFlashWorker
            return worker


        def hidden(info):
            if isinstance(info, EagleDraftInput):
                return info.target_hidden, HAS_DFLASH
            return isinstance(info, DFlashWorker)
        """})
    assert [(line, code) for _, line, code, _ in findings] == [(3, "DFM500"), (14, "DFM500")]  # import, isinstance
