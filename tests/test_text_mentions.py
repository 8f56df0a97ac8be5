"""V1 names in every other text file, Markdown prose and notebook Markdown cells
(DFM401-DFM409, report-only; issue 16 items 3 and 4). Each case is a file as people write
it; every finding's line and column is asserted (0-based columns, as in the JSON report)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from migrator.run import engine, pipeline
from migrator.run.engine import Options
from migrator.run.python_file import text_context
from migrator.text import accepts, handler_for, module_for

T = "0.5.17"


def found(path: str, text: str | bytes, target: str = T) -> list[tuple[int, int, str]]:
    data = text if isinstance(text, bytes) else text.encode()
    result = pipeline.process_bytes(path, data, Options(mode="lint", target_version=target))
    assert result.error is None, result.error
    return [(f.line, f.column, f.code) for f in result.findings]


def col(text: str, line: int, needle: str) -> int:
    return text.splitlines()[line - 1].index(needle)


TSX = """\
// Docs site: builds the launch command shown on the DFlash page.
// Old docs said: SGLANG_ENABLE_SPEC_V2=0 python -m sglang.launch_server
import { CodeBlock } from "./CodeBlock";

const WORKER_SOURCE = "https://github.com/sgl-project/sglang/blob/v0.5.13/python/sglang/srt/speculative/dflash_worker.py";
const V2_MODULE = "sglang.srt.speculative.dflash_worker_v2"; /* the new home: DFlashWorkerV2 */

export function LaunchCommand({ model, sync }: { model: string; sync: boolean }) {
  const prefix = sync ? "SGLANG_ENABLE_SPEC_V2=0 " : "";
  const envs: string[] = [];
  if (sync) envs.push(`SGLANG_ENABLE_SPEC_V2=${0}`);
  const SGLANG_ENABLE_SPEC_V2_SETTING = "unused";
  return <CodeBlock>{`${prefix}python -m sglang.launch_server --model-path ${model}`}</CodeBlock>;
}
"""


def test_tsx_strings_are_reported_and_comments_skipped() -> None:
    assert found("site/src/LaunchCommand.tsx", TSX) == [
        (5, col(TSX, 5, "sglang/srt/speculative"), "DFM401"),
        (9, col(TSX, 9, "SGLANG"), "DFM409"),
        (11, col(TSX, 11, "SGLANG"), "DFM409"),
    ]


JS = """\
/* eslint-disable */
const { DFlashDraftInput } = require("./legacy"); // DFlashDraftInputV2 is the V2 name
module.exports.hint = "Set SGLANG_ENABLE_SPEC_V2=0 to run the synchronous path";
const url = "http://example.com//x"; const w = "DFlashVerifyInput.verify";
"""


def test_js_whole_words_and_members() -> None:
    assert found("tools/hint.js", JS) == [
        (2, col(JS, 2, "DFlashDraftInput"), "DFM403"),
        (3, col(JS, 3, "SGLANG"), "DFM409"),
        (4, col(JS, 4, "DFlashVerifyInput.verify"), "DFM405"),
    ]


def test_ambiguous_names_only_beside_an_unambiguous_spelling() -> None:
    text = ("const a = 'DFlashWorker';\n"
            "const b = 'NGRAMWorker._prepare_for_speculative_decoding';\n"
            "const c = 'target_worker.forward_batch_generation';\n"
            "const d = 'sglang.srt.speculative.dflash_worker.DFlashWorker.forward_batch_generation';\n"
            "const e = 'sgl_jax.srt.speculative.dflash_worker.DFlashWorker';\n")
    assert found("a.ts", text) == [(4, 11, "DFM401"), (4, 48, "DFM402"), (4, 61, "DFM408")]


MDX = """\
import Tabs from '@theme/Tabs';

{/* DFlashDraftInput was the V1 draft input */}
<!-- SGLANG_ENABLE_SPEC_V2 -->
The V1 worker lived in `sglang/srt/speculative/dflash_worker.py`; its
`DFlashWorker._prepare_for_speculative_decoding` is gone: "spec v2" is the only path.

```python
from sglang.srt.speculative.dflash_info import DFlashDraftInput
```
"""


def test_mdx_prose_comments_and_python_block() -> None:
    assert module_for("docs/dflash.mdx") == "markdown"
    assert found("docs/dflash.mdx", MDX) == [
        (5, col(MDX, 5, "sglang/"), "DFM401"),
        (9, col(MDX, 9, "sglang"), "DFM103"),  # the Python rules: the module moves with the class
        (9, col(MDX, 9, "DFlashDraftInput"), "DFM103"),
    ]


RST = """\
DFlash speculative decoding
===========================

.. note:: In sglang 0.5.13 the worker is :class:`sglang.srt.speculative.dflash_worker.DFlashWorker`.

.. code-block:: bash

   SGLANG_ENABLE_SPEC_V2=0 python -m sglang.launch_server --speculative-algorithm DFLASH
"""


def test_rst_every_line() -> None:
    assert found("docs/dflash.rst", RST) == [
        (4, col(RST, 4, "sglang.srt"), "DFM401"),
        (4, col(RST, 4, "DFlashWorker`"), "DFM402"),
        (8, 3, "DFM409"),
    ]


@pytest.mark.parametrize("path, text, expected", [
    ("Makefile", "# SGLANG_ENABLE_SPEC_V2=0 was needed before 0.5.14\nserve:\n"
                 "\tSGLANG_ENABLE_SPEC_V2=0 python -m sglang.launch_server  # sync\n", [(3, 1, "DFM201")]),  # a recipe is shell
    ("deploy/serve.ini", "; SGLANG_ENABLE_SPEC_V2 = 0\n[program:sglang]\n"
                         "environment=SGLANG_ENABLE_SPEC_V2=0\n", [(3, 12, "DFM409")]),
    ("setup.cfg", "[tool:pytest]\n# DFlashDraftInput\nfilterwarnings = ignore:.*DFlashDraftInput.*\n",
     [(3, 26, "DFM403")]),
    ("infra/main.tf", "# SGLANG_ENABLE_SPEC_V2\n// SGLANG_ENABLE_SPEC_V2\n/* SGLANG_ENABLE_SPEC_V2 */\n"
                      "env = { SGLANG_ENABLE_SPEC_V2 = \"0\" }\n", [(4, 8, "DFM409")]),
    ("templates/serve.sh.j2", "{# SGLANG_ENABLE_SPEC_V2 kept for 0.5.13 #}\n"
                              "export SGLANG_ENABLE_SPEC_V2={{ spec_v2 }}\n", [(2, 7, "DFM409")]),
    ("charts/sglang/templates/_helpers.tpl", "{{/* SGLANG_ENABLE_SPEC_V2 */}}\n"
                                            "- name: SGLANG_ENABLE_SPEC_V2\n", [(2, 8, "DFM409")]),
    ("notes.txt", "# not a comment in a file of unknown type: SGLANG_ENABLE_SPEC_V2\n", [(1, 43, "DFM409")]),
    ("kernels/keep.cu", "// _compute_paged_keep_slots in Python\nint _compute_paged_keep_slots_v3;\n"
                        "const char* k = \"_compute_paged_keep_slots\";\n", [(3, 17, "DFM404")]),
])
def test_comment_syntax_by_type(path: str, text: str, expected: list) -> None:
    assert found(path, text) == expected


@pytest.mark.parametrize("text", [
    "uses dflash_worker_v2 and DFlashWorkerV2 and DFlashDraftInputV2\n",
    "SGLANG_ENABLE_SPEC_V2_SETTING=1 SGLANG_ENABLE_FOO_SPEC_V2=1 MY_SGLANG_ENABLE_SPEC_V2=1\n",
    "from sgl_jax.srt.speculative.dflash_worker import DFlashWorker\n",
    "DFlashVerifyInput.prepare_for_verify(batch, target_worker)\n",
    "NGRAMWorker._prepare_for_speculative_decoding; target_worker.forward_batch_generation\n",
    "spec v2 is on; def test_spec_v2_default(use_spec_v2): ...\n",
    "myport.sglang.srt.speculative.dflash_worker\n",
])
def test_must_not_flag(text: str) -> None:
    assert found("notes.txt", text) == []


def test_binary_and_non_utf8_files_are_skipped() -> None:
    assert found("weights.dat", b"\x00\x01SGLANG_ENABLE_SPEC_V2") == []
    assert found("latin.txt", "SGLANG_ENABLE_SPEC_V2 caf\xe9\n".encode("latin-1")) == []
    assert not accepts("model.safetensors") and not accepts("logo.png") and accepts("Makefile")
    assert module_for("x.py") is None and module_for("notes.txt") == "fallback"


def test_fires_only_for_v2_targets() -> None:
    assert found("a.ts", "const x = 'DFlashDraftInput';\n", target="0.5.13") == []


MARKDOWN = """\
# Design notes

- The V1 worker's `DFlashWorker._append_target_hidden_to_draft_kv` in `dflash_worker.py`;
  see `sglang.srt.speculative.dflash_worker` (V2: `sglang.srt.speculative.dflash_worker_v2`).

| V1 | V2 |
|----|----|
| `DFlashVerifyInput.verify` | `DFlashWorkerV2._accept_block` |

```py
>>> from sglang.srt.speculative.dflash_worker import DFlashWorker
```

```python
this is not python: DFlashDraftInput
```
"""


def test_markdown_prose_lists_tables_and_python_blocks() -> None:
    assert found("docs/design.md", MARKDOWN) == [
        (4, col(MARKDOWN, 4, "sglang.srt"), "DFM401"),
        (8, 3, "DFM405"),
        (11, col(MARKDOWN, 11, "sglang"), "DFM101"),
        (11, col(MARKDOWN, 11, "DFlashWorker"), "DFM102"),
        (15, col(MARKDOWN, 15, "DFlashDraftInput"), "DFM403"),
    ]


def test_markdown_python_block_is_reported_not_edited() -> None:
    text = "```python\nfrom sglang.srt.speculative.dflash_worker import DFlashWorker\n```\n"
    result = handler_for("README.md")("README.md", text.encode(), text_context("README.md", Options(mode="fix", target_version=T)))
    assert [(f.line, f.column, f.code) for f in result.findings] == [(2, 5, "DFM101"), (2, 49, "DFM102")]
    assert result.new_bytes is None


def test_notebook_markdown_cell() -> None:
    cell = "The old worker is `sglang.srt.speculative.dflash_worker.DFlashWorker`.\n"
    text = json.dumps({"cells": [{"cell_type": "markdown", "metadata": {}, "source": [cell]}],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)
    line = next(n for n, l in enumerate(text.splitlines(), 1) if "The old worker" in l)
    start = text.splitlines()[line - 1].index('"') + 1
    assert found("demo.ipynb", text) == [(line, start + cell.index("sglang"), "DFM401"),
                                         (line, start + cell.index("DFlashWorker"), "DFM402")]


def test_lint_reaches_other_text_files_through_discovery(tmp_path: Path) -> None:
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "cmd.ts").write_text("export const ENV = 'SGLANG_ENABLE_SPEC_V2=0';\n")
    (tmp_path / "logo.png").write_bytes(b"\x89PNG SGLANG_ENABLE_SPEC_V2")
    result = engine.run([tmp_path], Options(mode="lint", target_version=T, jobs=1))
    assert [(Path(r.path).name, f.line, f.column, f.code) for r in result.results for f in r.findings] == [
        ("cmd.ts", 1, 20, "DFM409")]


@pytest.mark.parametrize("name", ["notes.md", "notes.rst", "page.tsx"])
def test_a_method_named_without_a_call_is_reported_through_the_whole_run(tmp_path: Path, name: str) -> None:
    """`DFlashVerifyInput.verify` in prose holds the class but no `.verify(`: the byte
    prefilter of a run dropped the file (the class still exists; only a cue of its removed
    member lets a file through), so lint reported nothing while one file's analysis did."""
    (tmp_path / name).write_text("The old docs call `DFlashVerifyInput.verify` here.\n")
    result = engine.run([tmp_path], Options(mode="lint", target_version=T, jobs=1))
    assert [(f.line, f.code) for r in result.results for f in r.findings] == [(1, "DFM405")]
