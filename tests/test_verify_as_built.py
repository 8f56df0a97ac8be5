"""``verify`` reads every release as it is built (issue 44), against the real wheels.

* From 0.5.20 ``ServerArgs`` is assembled with ``msgspec.defstruct`` from namespace classes;
  its fields (``tp_size``, ``model_path``, ``disable_overlap_schedule``) exist on every release.
* A class's ``__getattr__`` answers its instances, never the class object: ``DFlashWorkerV2``
  defines one, and ``DFlashWorkerV2.<missing>`` is missing.
* A missing name gets a "did you mean" only from the catalog, never from spelling.
"""

from __future__ import annotations

import textwrap

import pytest

from migrator.catalog.target import v2_releases
from migrator.verify import target_for_version, verify_source

pytestmark = pytest.mark.slow

#: The V2 era: every release that has ``DFlashWorkerV2``.
V2_RELEASES = v2_releases()

SERVER_ARGS_FIELDS = textwrap.dedent("""
    from sglang.srt.server_args import ServerArgs

    def sizes(args: ServerArgs):
        return args.tp_size, args.model_path, args.disable_overlap_schedule

    DEFAULT_OVERLAP = ServerArgs.disable_overlap_schedule
""")


@pytest.mark.parametrize("release", V2_RELEASES)
def test_server_args_fields_exist_on_every_release(release: str) -> None:
    findings = verify_source("fork.py", SERVER_ARGS_FIELDS, target_for_version(release))
    assert findings == [], [f.message for f in findings]


@pytest.mark.parametrize("release", V2_RELEASES)
def test_server_args_still_reports_a_field_no_release_has(release: str) -> None:
    source = "from sglang.srt.server_args import ServerArgs\n\ndef f(args: ServerArgs):\n    return args.no_such_flag\n"
    findings = verify_source("fork.py", source, target_for_version(release))
    assert [f.code for f in findings] == ["DFM900"] and "no_such_flag" in findings[0].message


CLASS_LEVEL = textwrap.dedent("""
    from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2

    EXISTS = DFlashWorkerV2.forward_batch_generation
    GONE = DFlashWorkerV2.no_such_member

    def through_an_instance(worker: DFlashWorkerV2):
        return worker.no_such_member  # the instance's __getattr__ may answer this
""")


@pytest.mark.parametrize("release", V2_RELEASES)
def test_class_level_access_bypasses_an_instance_getattr(release: str) -> None:
    target = target_for_version(release)
    cls = target.index.resolve_class("sglang.srt.speculative.dflash_worker_v2.DFlashWorkerV2")
    assert cls is not None and "__getattr__" in cls.methods, "the premise: DFlashWorkerV2 defines __getattr__"
    findings = verify_source("fork.py", CLASS_LEVEL, target)
    assert [(f.line, f.code) for f in findings] == [(5, "DFM900")], [f.message for f in findings]
    assert "DFlashWorkerV2.no_such_member" in findings[0].message


def test_no_successor_from_spelling() -> None:
    # 0.5.20 removed get_attention_tp_rank and still has get_attention_dp_rank: not its successor.
    target = target_for_version("0.5.20")
    assert target.index.resolve("sglang.srt.layers.dp_attention.get_attention_dp_rank").found
    source = "from sglang.srt.layers.dp_attention import get_attention_tp_rank\n"
    findings = verify_source("fork.py", source, target)
    assert [f.code for f in findings] == ["DFM900"]
    assert "get_attention_dp_rank" not in findings[0].message and findings[0].fix is None


def test_the_catalog_successor_is_still_suggested() -> None:
    source = "from sglang.srt.speculative.dflash_worker import DFlashWorker\n"
    findings = verify_source("fork.py", source, target_for_version("0.5.17"))
    assert [f.code for f in findings] == ["DFM900"]
    assert "(see DFM101); did you mean `sglang.srt.speculative.dflash_worker_v2`?" in findings[0].message
