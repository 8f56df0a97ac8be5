"""Issue 47: the one occurrence search (``catalog.names.occurrences``) in every token of
structured data, shell, ``.env`` and Dockerfiles, classified by context.

* a removed server flag spelled as a config key a launcher turns into the flag
  (``speculative_dflash_draft_window_size: 512`` in YAML, ``... = 512`` in TOML, a JSON key),
  renamed as it was spelled;
* a removed class, function or method held as data by its unique bare name (a hook list, a
  registry value, a shell variable), reported with a TODO;
* the negatives real repositories hold beside them: Kubernetes ``apiVersion: v1``, OpenAI
  ``/v1`` routes, TLS ``verify``, EAGLE's and NGRAM's ``verify``/``spec_info``, a team's own
  ``v1``/``v2``, ``SPEC_V2`` inside other products' names, V2 names holding V1 ones, a bare
  name in a sentence, an ambiguous bare name (``draft_seq_lens``) held as data.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from migrator.run.engine import Options, run

TARGET = "0.5.14"


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def _lint(root: Path, target: str = TARGET) -> list[tuple[str, int, str]]:
    result = run([root], Options(mode="lint", target_version=target, jobs=1))
    assert [r.error for r in result.results if r.error] == []
    return sorted((Path(f.path).relative_to(root).as_posix(), f.line, f.code)
                  for r in result.results for f in r.findings)


def _fix(root: Path) -> None:
    result = run([root], Options(mode="fix", target_version=TARGET, jobs=1, allow_dirty=True))
    assert [r.error for r in result.results if r.error] == []


# ---- a removed flag spelled as a config key ------------------------------------------------

FLAG_KEYS = [
    ("configs/server.yaml", "server:\n  model_path: m\n  speculative_dflash_draft_window_size: 512\n", 3),
    ("configs/server.yaml", "args:\n  speculative-dflash-draft-window-size: 512\n  tp_size: 2\n", 2),
    ("deploy/helm/values.yaml", "sglang:\n  extraArgs:\n    - speculative_dflash_draft_window_size: 256\n", 3),
    ("configs/server.yaml", "profile: {tp_size: 2, speculative_dflash_draft_window_size: 256}\n", 1),
    ("gateway.toml", "[server]\nmodel_path = \"m\"\nspeculative_dflash_draft_window_size = 2048\n", 3),
    ("configs/profiles.json", '{\n  "long": {\n    "speculative_dflash_draft_window_size": 4096\n  }\n}\n', 3),
]


@pytest.mark.parametrize(("name", "text", "line"), FLAG_KEYS,
                         ids=[f"{n}:{t.splitlines()[l - 1].strip()[:30]}" for n, t, l in FLAG_KEYS])
def test_a_removed_flag_spelled_as_a_config_key_is_found(tmp_path: Path, name: str, text: str, line: int) -> None:
    _write(tmp_path, {name: text})
    assert (name, line, "DFM203") in _lint(tmp_path)


@pytest.mark.parametrize(("name", "key", "new"), [
    ("configs/server.yaml", "  speculative_dflash_draft_window_size: 512", "speculative_draft_window_size"),
    ("configs/server.yaml", "  speculative-dflash-draft-window-size: 512", "speculative-draft-window-size"),
    ("gateway.toml", "speculative_dflash_draft_window_size = 2048", "speculative_draft_window_size"),
])
def test_a_flag_key_gets_a_todo_naming_the_new_key_as_it_was_spelled(tmp_path: Path, name: str, key: str,
                                                                     new: str) -> None:
    """A key is the file's structure and its reader is not known: the key stays, the TODO
    names its new spelling."""
    _write(tmp_path, {name: ("server:\n" if name.endswith(".yaml") else "[server]\n") + key + "\n"})
    _fix(tmp_path)
    text = (tmp_path / name).read_text()
    assert text.endswith(key + "\n") and "TODO(dflash-migrate): DFM203" in text and f"`{new}`" in text


def test_a_flag_key_is_not_a_finding_before_its_release(tmp_path: Path) -> None:
    _write(tmp_path, {"configs/server.yaml": "server:\n  speculative_dflash_draft_window_size: 512\n"})
    assert _lint(tmp_path, target="0.5.12") == []


@pytest.mark.parametrize(("name", "text"), [
    ("configs/server.yaml", "notes: speculative_dflash_draft_window_size was renamed\n"),  # prose in a value
    ("configs/server.yaml", "speculative_draft_window_size: 512\nspeculative_dflash_block_size: 16\n"),  # V2 keys
    ("gateway.toml", "[server]\nmy_speculative_dflash_draft_window_size_hint = 3\n"),  # a longer key
])
def test_what_is_not_the_removed_key_is_not_found(tmp_path: Path, name: str, text: str) -> None:
    _write(tmp_path, {name: text})
    assert [f for f in _lint(tmp_path) if f[2] == "DFM203"] == []


# ---- unique bare names held as data --------------------------------------------------------

BARE = [
    ("configs/hooks.yaml", "hooks:\n  before_verify:\n    - _compute_paged_keep_slots\n", 3, "DFM104"),
    ("configs/hooks.yaml", "worker_class: DFlashWorker\n", 1, "DFM102"),
    ("configs/hooks.yaml", "patch: [\"DFlashDraftInput\", \"DFlashVerifyInput\"]\n", 1, "DFM103"),
    ("configs/registry.json", '{"workers": {"dflash": "DFlashWorker"}}\n', 1, "DFM102"),
    ("gateway.toml", "[hooks]\nkeep = \"_compute_paged_keep_slots\"\n", 2, "DFM104"),
    ("gateway.toml", "[hooks]\nwrap = [\"run\", \"_compute_paged_keep_slots\"]\n", 2, "DFM104"),
    ("configs/registry.yaml", "accept: compute_dflash_sampling_accept_len_and_bonus\n", 1, "DFM304"),
    ("gateway.toml", "[hooks]\nwrap = [\"_append_target_hidden_to_draft_kv\", \"run\"]\n", 2, "DFM107"),
    ("scripts/patch.sh", "#!/bin/bash\nWORKER_CLASS=DFlashWorker\npython -m app\n", 2, "DFM102"),
    (".env", "SPECBENCH_WORKER=DFlashWorker\n", 1, "DFM102"),
]


@pytest.mark.parametrize(("name", "text", "line", "code"), BARE,
                         ids=[f"{n}:{t.splitlines()[l - 1].strip()[:30]}" for n, t, l, _ in BARE])
def test_a_unique_bare_name_held_as_data_is_found(tmp_path: Path, name: str, text: str, line: int,
                                                  code: str) -> None:
    _write(tmp_path, {name: text})
    assert (name, line, code) in _lint(tmp_path)


def test_a_bare_name_held_as_data_gets_a_todo_not_a_rename(tmp_path: Path) -> None:
    _write(tmp_path, {"configs/hooks.yaml": "worker_class: DFlashWorker\n"})
    _fix(tmp_path)
    text = (tmp_path / "configs/hooks.yaml").read_text()
    assert text.endswith("worker_class: DFlashWorker\n") and "TODO" in text.splitlines()[0]


NOT_BARE = [
    # a sentence, V2 names holding V1 ones, other products, ambiguous bare names as data
    ("configs/hooks.yaml", "description: we replaced DFlashWorker with the V2 worker\n"),
    ("configs/hooks.yaml", "worker_class: DFlashWorkerV2\nmodule: dflash_worker_v2\n"),
    ("configs/hooks.yaml", "fields: [draft_seq_lens, target_hidden, ctx_lens]\nspec: spec_info\n"),
    ("configs/hooks.yaml", "DFlashWorker: {replicas: 2}\n"),  # a team's own key
    ("deploy/k8s/deploy.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: sglang-v1\n"),
    ("deploy/k8s/route.yaml", "paths:\n  - /v1/chat/completions\n  - /v2/models\nversion: v1\n"),
    ("configs/tls.yaml", "client:\n  verify: true\n  tls_verify: false\nhooks: [verify]\n"),
    ("configs/eagle.yaml", "algorithm: EAGLE\nhooks: [verify, spec_info]\nworker: EAGLEWorker\n"),
    ("configs/ngram.toml", "[ngram]\nverify = \"NgramVerifyInput.verify\"\nspec = \"spec_info\"\n"),
    ("configs/api.json", '{"api": "v1", "model_version": "v2", "MYAPP_SPEC_V2": true}\n'),
    ("scripts/run.sh", "#!/bin/bash\nexport GATEWAY_SPEC_V2=1\nAPI=v1\nWORKER=DFlashWorkerV2\n"),
    (".env", "SPECBENCH_WORKER=DFlashWorkerV2\nSPEC_V2_ROLLOUT=on\n"),
    # a name inside a sentence or a code snippet held as text (an answer key, a report)
    ("review/key.toml", ('why = "the V1 worker (DFlashWorker) is gone in 0.5.14"\n'
                         'text = "def find(s: Any) -> Optional[DFlashWorker]:"\n')),
    ("review/notes.yaml", "type: Optional[DFlashWorker]\nsnippet: 'isinstance(w, DFlashWorker)'\n"),
    ("review/report.json", '{"text": "if isinstance(worker, DFlashWorker):", "note": "see [DFlashWorker]"}\n'),
]


@pytest.mark.parametrize(("name", "text"), NOT_BARE, ids=[f"{n}:{t.splitlines()[0][:30]}" for n, t in NOT_BARE])
def test_what_only_looks_like_a_v1_name_is_not_found(tmp_path: Path, name: str, text: str) -> None:
    _write(tmp_path, {name: text})
    assert _lint(tmp_path) == []


# ---- the flag itself, looked up in the same table -------------------------------------------

@pytest.mark.parametrize(("name", "text", "line"), [
    ("scripts/serve.sh", "#!/bin/bash\nARGS=(--model-path m --speculative-dflash-draft-window-size 512)\n", 2),
    ("scripts/serve.sh", "#!/bin/bash\nEXTRA=\"--speculative-dflash-draft-window-size=512\"\n", 2),
    ("deploy/job.yaml", "args: [\"--speculative-dflash-draft-window-size\", \"512\"]\n", 1),
    ("configs/launch.json", '{"argv": ["-m", "sglang.launch_server", "--speculative-dflash-draft-window-size", "8"]}\n', 1),
])
def test_a_removed_flag_is_found_in_every_holder(tmp_path: Path, name: str, text: str, line: int) -> None:
    _write(tmp_path, {name: text})
    assert (name, line, "DFM203") in _lint(tmp_path)


def test_longer_and_new_flags_are_not_the_removed_one(tmp_path: Path) -> None:
    _write(tmp_path, {"scripts/serve.sh": "#!/bin/bash\npython -m sglang.launch_server --speculative-draft-window-size 8 "
                                          "--speculative-dflash-draft-window-size-max 9 --x-speculative-dflash-draft-window-size 1\n"})
    assert _lint(tmp_path) == []


# ---- unique bare names held as Python strings ------------------------------------------------

PY_STRINGS = [
    ("specbench/hooks.py", 'HOOKS = ["_compute_paged_keep_slots", "forward_batch_generation"]\n', 1, "DFM104"),
    ("specbench/registry.py", 'WORKERS = {"dflash": "DFlashWorker", "eagle": "EAGLEWorker"}\n', 1, "DFM102"),
    ("specbench/patches.py", ("from unittest import mock\n\n\ndef patched(cls):\n"
                              "    return mock.patch.object(cls, \"_compute_paged_keep_slots\")\n"), 5, "DFM104"),
    ("specbench/names.py", 'DRAFT_CLASSES = ("DFlashDraftInput",)\n', 1, "DFM103"),
    ("specbench/patches.py", ("from unittest import mock\n\n\ndef patched(cls):\n"
                              "    return mock.patch.object(cls, \"_append_target_hidden_to_draft_kv\")\n"), 5, "DFM107"),
]


@pytest.mark.parametrize(("name", "text", "line", "code"), PY_STRINGS, ids=[n for n, *_ in PY_STRINGS])
def test_a_unique_bare_name_held_as_a_python_string_is_found(tmp_path: Path, name: str, text: str, line: int,
                                                             code: str) -> None:
    _write(tmp_path, {name: text})
    assert (name, line, code) in _lint(tmp_path)


@pytest.mark.parametrize(("name", "text"), [
    ("specbench/compat.py", 'RENAMES = {"DFlashWorker": "DFlashWorkerV2", "DFlashDraftInputV2": "DFlashDraftInput"}\n'),
    ("specbench/own.py", 'class DFlashWorker:\n    pass\n\n\n__all__ = ["DFlashWorker"]\n'),
    ("specbench/log.py", 'import logging\n\nlog = logging.getLogger("dflash_worker")\nMSG = "DFlashWorker is gone"\n'),
    ("specbench/eagle.py", 'FIELDS = ["verify", "spec_info", "draft_seq_lens", "v1", "SPEC_V2"]\n'),
])
def test_what_a_python_string_holds_beside_v1_names_is_not_found(tmp_path: Path, name: str, text: str) -> None:
    _write(tmp_path, {name: text})
    assert _lint(tmp_path) == []


# ---- a removed member after its class's name: the class proves the receiver -----------------

@pytest.mark.parametrize(("name", "text", "line", "code"), [
    ("configs/hooks.yaml", "hooks:\n  - DFlashVerifyInput.verify\n  - EagleVerifyInput.verify\n", 2, "DFM105"),
    ("gateway.toml", "[profiling]\nwrap = [\"DFlashWorker.forward_batch_generation\"]\n", 2, "DFM108"),
    ("configs/fields.json", '{"drop": ["DFlashDraftInput.ctx_lens"]}\n', 1, "DFM109"),
    ("specbench/timing.py", 'TIMED = ["ScheduleBatch.is_spec_v2", "ScheduleBatch.filter_batch"]\n', 1, "DFM206"),
    ("specbench/timing.py", 'WRAP = ("DFlashVerifyInput.verify", "NgramVerifyInput.verify")\n', 1, "DFM105"),
])
def test_a_removed_member_after_its_class_is_found_as_data(tmp_path: Path, name: str, text: str, line: int,
                                                           code: str) -> None:
    _write(tmp_path, {name: text})
    assert (name, line, code) in _lint(tmp_path)


@pytest.mark.parametrize(("name", "text"), [
    ("configs/hooks.yaml", "hooks:\n  - EagleVerifyInput.verify\n  - NgramVerifyInput.verify\n  - DFlashVerifyInputV2.verify\n"),
    ("configs/hooks.yaml", "note: DFlashVerifyInput.verify moved into the worker in 0.5.14\n"),
    ("specbench/timing.py", 'TIMED = ["ScheduleBatch.filter_batch", "EAGLEWorker.forward_batch_generation"]\n'),
])
def test_the_same_member_of_another_class_is_not_found(tmp_path: Path, name: str, text: str) -> None:
    _write(tmp_path, {name: text})
    assert _lint(tmp_path) == []


def test_a_removed_flag_as_a_python_config_key_is_found(tmp_path: Path) -> None:
    _write(tmp_path, {"specbench/launch.py": (
        'CONFIG = {"model_path": "m", "speculative_dflash_draft_window_size": 512}\n'
        'ARGS = ["--speculative-dflash-draft-window-size", "8"]\n'
        'NEW = {"speculative_draft_window_size": 512, "speculative_dflash_block_size": 16}\n')})
    assert _lint(tmp_path) == [("specbench/launch.py", 1, "DFM203"), ("specbench/launch.py", 2, "DFM203")]


# ---- the same lookups inside Markdown fences (report-only) ----------------------------------

def test_markdown_fences_go_through_the_same_search(tmp_path: Path) -> None:
    _write(tmp_path, {"docs/deploy.md": (
        "# Deploy\n\n```yaml\nserver:\n  speculative_dflash_draft_window_size: 512\n"
        "  worker: sglang.srt.speculative.dflash_worker:DFlashWorker\nhooks: [_compute_paged_keep_slots]\n```\n\n"
        "```toml\n[hooks]\nwrap = [\"DFlashVerifyInput.verify\"]\n```\n\n"
        "```yaml\napiVersion: v1\nworker: sglang.srt.speculative.dflash_worker_v2:DFlashWorkerV2\nhooks: [verify]\n```\n")})
    assert _lint(tmp_path) == [("docs/deploy.md", 5, "DFM203"), ("docs/deploy.md", 6, "DFM102"),
                               ("docs/deploy.md", 7, "DFM104"), ("docs/deploy.md", 12, "DFM105")]


@pytest.mark.parametrize(("name", "text"), [
    ("gateway/client.py", ('import os\n\nimport httpx\n\nAPI = "/v1/chat/completions"\nVERSION = "v1"\n'
                           'client = httpx.Client(verify=os.environ.get("TLS_VERIFY", "1") == "1")\n'
                           'NEXT = {"api": "v2", "route": "/v2/models"}\nFLAG = os.environ.get("GATEWAY_SPEC_V2", "0")\n')),
    ("specbench/eagle.py", ('from sglang.srt.speculative.eagle_info import EagleVerifyInput\n\n\n'
                            'def accept(batch, v: EagleVerifyInput):\n    info = batch.spec_info\n'
                            '    return v.verify(batch), info, getattr(v, "verify"), ["verify", "spec_info"]\n')),
    ("specbench/v2.py", ('from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2\n'
                         'from sglang.srt.speculative.dflash_info_v2 import DFlashDraftInputV2\n\n'
                         'NAMES = ["DFlashWorkerV2", "dflash_worker_v2", "DFlashDraftInputV2"]\n'
                         'MOD = "sglang.srt.speculative.dflash_worker_v2"\n')),
])
def test_python_code_beside_v1_names_is_not_found(tmp_path: Path, name: str, text: str) -> None:
    """The Python context's negatives: TLS ``verify``, ``/v1`` routes, a team's own versions,
    another product's ``*_SPEC_V2``, EAGLE's ``verify``/``spec_info``, V2 names holding V1 ones."""
    _write(tmp_path, {name: text})
    assert _lint(tmp_path) == []


# ---- a removed module's file path -------------------------------------------------------------

@pytest.mark.parametrize(("name", "text", "line"), [
    ("patches/series.yaml", "patches:\n  - target: python/sglang/srt/speculative/dflash_worker.py\n", 2),
    ("Dockerfile", ("FROM lmsysorg/sglang:v0.5.14\n"
                    "COPY worker.py /sgl-workspace/sglang/python/sglang/srt/speculative/dflash_worker.py\n"), 2),
    ("scripts/patch.sh", "#!/bin/bash\ncp fork/worker.py \"$SITE/sglang/srt/speculative/dflash_worker.py\"\n", 2),
    ("configs/overrides.json", '{"replace": {"sglang/srt/speculative/dflash_worker.py": "fork/worker.py"}}\n', 1),
])
def test_a_removed_modules_file_path_is_found(tmp_path: Path, name: str, text: str, line: int) -> None:
    _write(tmp_path, {name: text})
    assert (name, line, "DFM101") in _lint(tmp_path)


@pytest.mark.parametrize(("name", "text"), [
    ("patches/series.yaml", ("patches:\n  - target: python/sglang/srt/speculative/dflash_worker_v2.py\n"
                             "  - target: sgl_jax/srt/speculative/dflash_worker.py\n")),
    ("configs/docs.yaml", ("source: https://github.com/sgl-project/sglang/blob/v0.5.13/python/sglang/srt/speculative/"
                           "dflash_worker.py\n")),
    ("Dockerfile", "FROM lmsysorg/sglang:v0.5.14\nCOPY worker.py /app/mysglang/srt/speculative/dflash_worker.py\n"),
])
def test_other_paths_are_not_a_removed_module(tmp_path: Path, name: str, text: str) -> None:
    _write(tmp_path, {name: text})
    assert _lint(tmp_path) == []


@pytest.mark.parametrize("value", ["/sgl-workspace/sglang/python/sglang/srt/speculative/dflash_worker.py",
                                   "sglang.srt.speculative.dflash_info._compute_paged_keep_slots"])
def test_a_todo_goes_above_a_continued_command_not_inside_it(tmp_path: Path, value: str) -> None:
    """A comment line between ``\\``-continued lines would end the command there."""
    _write(tmp_path, {"scripts/run.sh": f"#!/bin/bash\ndocker run \\\n  -e HOOK={value} \\\n  img\n"})
    _fix(tmp_path)
    lines = (tmp_path / "scripts/run.sh").read_text().splitlines()
    assert lines[1].startswith("# TODO(dflash-migrate): ")
    assert lines[-3:] == ["docker run \\", f"  -e HOOK={value} \\", "  img"]


def test_a_line_of_many_names_is_read_in_linear_time(tmp_path: Path) -> None:
    """Each hit's surroundings are read in bounded windows and the line's quotes found once:
    at 020492e this line (50,000 names in one quoted sentence) took 9.7 s here, quadratic; 1.3 s now."""
    import time

    _write(tmp_path, {"configs/long.yaml": "hooks: \"" + " ".join(["DFlashWorker"] * 50_000) + "\"\n"})
    began = time.perf_counter()
    assert _lint(tmp_path) == []
    assert time.perf_counter() - began < 6
