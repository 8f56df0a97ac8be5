"""Valid/invalid cases for migrator/text/doc_prose.py: Markdown and MDX prose that keeps
teaching the V1 API (a flags table listing the removed flag, instructions to hook V1-only methods)."""

from __future__ import annotations

import pytest

from migrator.catalog import NEWEST_RELEASE
from migrator.run import pipeline
from migrator.run.engine import Options


def found(path: str, text: str, target: str = NEWEST_RELEASE) -> list[tuple[int, str]]:
    result = pipeline.process_bytes(path, text.encode(), Options(mode="lint", target_version=target))
    assert result.error is None, result.error
    return sorted((f.line, f.code) for f in result.findings)


DOC = """\
# Serving DFLASH

| Flag | Default | Meaning |
|---|---|---|
| `--speculative-dflash-draft-window-size` | 512 | draft window |
| `--speculative-draft-window-size` | 512 | draft window |
| `--speculative-dflash-draft-window-size` | - | deprecated alias of `--speculative-draft-window-size` |

To tune drafting, override `_prepare_for_speculative_decoding` in your worker subclass.
Profile _append_target_hidden_to_draft_kv to see the KV cost.
Call `forward_batch_generation`, and subclass NGRAM's `verify` if you need to.
The V1 worker had `_prepare_for_speculative_decoding`.
"""


@pytest.mark.parametrize("path", ["serving.md", "serving.mdx"])
def test_flags_table_and_instructions_to_hook_v1_methods(path: str) -> None:
    assert found(path, DOC) == [(5, "DFM203"), (9, "DFM406"), (10, "DFM407")]


def test_comments_and_older_targets() -> None:
    hidden = "<!-- | `--speculative-dflash-draft-window-size` | 512 | -->\n<!-- override _prepare_for_speculative_decoding -->\n"
    assert found("notes.md", hidden) == []
    assert found("serving.md", DOC, target="0.5.14") == [(5, "DFM203"), (9, "DFM406"), (10, "DFM407")]
