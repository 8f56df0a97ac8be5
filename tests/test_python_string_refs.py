"""Removed names reached through strings in Python (issue 16 items 1, 2 and 4): reflection
with names (also from iterated tuples), the module loaded at run time and what is read
from it, comparisons against removed names, the removed file's path, and the variable set
inside command, env, hint and JSON strings. Every finding's line and column is asserted."""

from __future__ import annotations

import pytest

from migrator.run import pipeline
from migrator.run.engine import Options

T = "0.5.17"


def lint(source: str, path: str = "fork/tool.py") -> list[tuple[int, int, str]]:
    result = pipeline.process_bytes(path, source.encode(), Options(mode="lint", target_version=T))
    assert result.error is None, result.error
    return [(f.line, f.column, f.code) for f in result.findings]


def fixed(source: str, path: str = "fork/tool.py") -> str:
    result = pipeline.process_bytes(path, source.encode(), Options(mode="fix", target_version=T))
    assert result.error is None, result.error
    return result.new_bytes.decode() if result.new_bytes is not None else source


def at(source: str, line: int, needle: str, nth: int = 0) -> tuple[int, int]:
    text = source.splitlines()[line - 1]
    column = -1
    for _ in range(nth + 1):
        column = text.index(needle, column + 1)
    return line, column


def only(found: list[tuple[int, int, str]], *codes: str) -> list[tuple[int, int, str]]:
    return [f for f in found if f[2] in codes]


PROFILER = '''\
"""Profiler hooks: time the V1 worker's hot methods."""
import functools
import time

from sglang.srt.speculative.dflash_worker import DFlashWorker

HOT_METHODS = (
    "_prepare_for_speculative_decoding",
    "_append_target_hidden_to_draft_kv",
    "forward_batch_generation",
    "draft_model_runner",
)


def _timed(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            print(fn.__name__, time.perf_counter() - start)
    return wrapper


def install():
    for name in HOT_METHODS:
        if hasattr(DFlashWorker, name):
            setattr(DFlashWorker, name, _timed(getattr(DFlashWorker, name)))
    if hasattr(DFlashWorker, "forward_batch_generation"):
        pass
    for method in ["_prepare_for_speculative_decoding"]:
        delattr(DFlashWorker, method)
'''


def test_names_iterated_into_reflection_on_the_class() -> None:
    found = only(lint(PROFILER), "DFM106", "DFM107", "DFM108")
    assert found == [
        (*at(PROFILER, 8, '"_prepare'), "DFM106"),
        (*at(PROFILER, 9, '"_append'), "DFM107"),
        (*at(PROFILER, 10, '"forward'), "DFM108"),
        (*at(PROFILER, 30, '"forward'), "DFM108"),
        (*at(PROFILER, 32, '"_prepare'), "DFM106"),
    ]


def test_same_names_on_other_classes_are_not_flagged() -> None:
    source = ("from sglang.srt.speculative.ngram_worker import NGRAMWorker\n"
              "NAMES = ('_prepare_for_speculative_decoding', 'forward_batch_generation')\n"
              "for name in NAMES:\n    hasattr(NGRAMWorker, name)\n"
              "getattr(NGRAMWorker, 'forward_batch_generation')\n"
              "from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2\n"
              "getattr(DFlashWorkerV2, 'forward_batch_generation')\n")
    assert only(lint(source), "DFM106", "DFM107", "DFM108") == []


HOOK = '''\
"""sitecustomize: patch sglang's V1 DFLASH worker when it is imported."""
import importlib
import sys

from sglang.srt.speculative.dflash_info import DFlashVerifyInput


def _patch(module):
    worker = module.DFlashWorker
    worker._prepare_for_speculative_decoding = lambda self, batch, draft_input: None
    module.DFlashWorker.forward_batch_generation = None


_patch(importlib.import_module("sglang.srt.speculative.dflash_worker"))
mod = importlib.import_module("sglang.srt.speculative.dflash_worker")
cls = mod.DFlashWorker
original = cls._append_target_hidden_to_draft_kv
loaded = sys.modules["sglang.srt.speculative.dflash_worker"].DFlashWorker

Verify = DFlashVerifyInput
saved = getattr(Verify, "verify")
Verify.verify = lambda self, *a, **k: saved(self, *a, **k)
'''


def test_dynamic_module_and_what_is_read_from_it() -> None:
    found = lint(HOOK)
    assert only(found, "DFM102", "DFM105", "DFM106", "DFM107", "DFM108") == [
        (*at(HOOK, 9, "DFlashWorker"), "DFM102"),
        (*at(HOOK, 10, "_prepare"), "DFM106"),
        (*at(HOOK, 11, "DFlashWorker"), "DFM102"),
        (*at(HOOK, 11, "forward_batch"), "DFM108"),
        (*at(HOOK, 16, "DFlashWorker"), "DFM102"),
        (*at(HOOK, 17, "_append"), "DFM107"),
        (*at(HOOK, 18, "DFlashWorker"), "DFM102"),
        (*at(HOOK, 21, '"verify"'), "DFM105"),
        (22, 0, "DFM105"),
    ]
    # a string that is the module's name: the literal is the token (its fix replaces it)
    assert only(found, "DFM101") == [(*at(HOOK, n, '"sglang.srt'), "DFM101") for n in (14, 15, 18)]


def test_class_read_from_a_renamed_module_string_is_renamed_with_it() -> None:
    source = ('import importlib\nmod = importlib.import_module("sglang.srt.speculative.dflash_worker")\n'
              "Worker = mod.DFlashWorker\n")
    assert fixed(source) == ('import importlib\nmod = importlib.import_module("sglang.srt.speculative.dflash_worker_v2")\n'
                             "Worker = mod.DFlashWorkerV2\n")


def test_top_level_import_and_other_modules_are_not_followed() -> None:
    source = ('m = __import__("sglang.srt.speculative.dflash_worker")\nm.DFlashWorker\n'
              'import importlib\nj = importlib.import_module("sgl_jax.srt.speculative.dflash_worker")\nj.DFlashWorker\n')
    assert lint(source) == [(*at(source, 1, '"sglang'), "DFM101")]


INSPECTOR = '''\
"""Checks that a fork's copy of sglang still has what the plugin patches (reads the source with ast)."""
import ast
import pathlib

WORKER_FILE = pathlib.Path(sglang_root) / "srt/speculative/dflash_worker.py"
DOCS = "https://github.com/sgl-project/sglang/blob/v0.5.13/python/sglang/srt/speculative/dflash_worker.py"
OTHER = "sgl_jax/srt/speculative/dflash_worker.py"


def find(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == "DFlashWorker":
            yield node
        if getattr(node, "name", None) in ("DFlashDraftInput", "_compute_paged_keep_slots"):
            yield node
        if isinstance(node, ast.FunctionDef) and node.name != "_prepare_for_speculative_decoding":
            continue
    print("spec v2 enabled:", "DFlashWorkerV2" == "DFlashWorker" + "V2")
'''


def test_comparisons_and_paths() -> None:
    assert lint(INSPECTOR) == [
        (*at(INSPECTOR, 5, "srt/spec"), "DFM101"),
        (*at(INSPECTOR, 6, "sglang/srt"), "DFM101"),
        (*at(INSPECTOR, 12, '"DFlashWorker"'), "DFM102"),
        (*at(INSPECTOR, 14, '"DFlashDraftInput"'), "DFM103"),
        (*at(INSPECTOR, 14, '"_compute'), "DFM104"),
        (*at(INSPECTOR, 16, '"_prepare'), "DFM106"),
    ]


def test_member_comparison_needs_its_class_named_in_the_file() -> None:
    source = "def f(node):\n    return node.name == 'forward_batch_generation'\n"
    assert lint(source + "X = 'keep_slots'\n") == []


LAUNCHER = '''\
import os
import subprocess

MODEL = os.environ.get("MODEL", "meta-llama/Llama-3.1-8B-Instruct")


def launch_command(sync: bool) -> str:
    prefix = "SGLANG_ENABLE_SPEC_V2=0 " if sync else ""
    return prefix + f"python -m sglang.launch_server --model-path {MODEL} --speculative-algorithm DFLASH"


def env_assignments(sync: bool) -> list[str]:
    assignments = ["CUDA_VISIBLE_DEVICES=0"]
    if sync:
        assignments.append("SGLANG_ENABLE_SPEC_V2=0")
    return assignments


DOCKER = "docker run --gpus all -e SGLANG_ENABLE_SPEC_V2=0 lmsysorg/sglang:v0.5.13"
CONFIG = "echo '{\\"SGLANG_ENABLE_SPEC_V2\\": \\"0\\"}' > /tmp/env.json"
HINT = "DFLASH runs synchronously: set SGLANG_ENABLE_SPEC_V2=0 if you see overlap errors"
SCRIPT = """set -e
python -m sglang.launch_server \\\\
    --model-path m
export SGLANG_ENABLE_SPEC_V2=0
"""
FAST = "SGLANG_ENABLE_SPEC_V2=1 python -m sglang.launch_server --model-path m"
LOOKALIKES = "SGLANG_ENABLE_SPEC_V2_SETTING=1 SGLANG_ENABLE_FOO_SPEC_V2=0 spec_v2=0"
MESSAGE = "SGLANG_ENABLE_SPEC_V2 is ignored from 0.5.14"
'''


def test_the_variable_set_inside_strings() -> None:
    assert lint(LAUNCHER) == [
        (*at(LAUNCHER, 8, "SGLANG"), "DFM201"),
        (*at(LAUNCHER, 15, "SGLANG"), "DFM201"),
        (*at(LAUNCHER, 19, "SGLANG"), "DFM201"),
        (*at(LAUNCHER, 20, "SGLANG"), "DFM201"),
        (*at(LAUNCHER, 21, "SGLANG"), "DFM201"),
        (*at(LAUNCHER, 25, "SGLANG"), "DFM201"),
        (*at(LAUNCHER, 27, "SGLANG"), "DFM201"),
    ]


def test_a_truthy_prefix_of_a_command_string_is_removed_and_the_rest_get_todos() -> None:
    out = fixed(LAUNCHER)
    assert 'FAST = "python -m sglang.launch_server --model-path m"' in out
    assert out.count("# TODO(dflash-migrate): DFM201") == 6
    assert fixed(out) == out


@pytest.mark.parametrize("literal", [
    "'SGLANG_ENABLE_SPEC_V2=1 python -m x'", "r'SGLANG_ENABLE_SPEC_V2=1 python -m x'", "'SGLANG_ENABLE_SPEC_V2=1 '",
])
def test_truthy_prefix_forms(literal: str) -> None:
    out = fixed(f"CMD = {literal}\n")
    assert "SGLANG_ENABLE_SPEC_V2" not in out and "TODO" not in out


def test_notebook_code_cell_command_string() -> None:
    import json

    cell = 'cmd = "SGLANG_ENABLE_SPEC_V2=0 python -m sglang.launch_server --model-path m"\n'
    text = json.dumps({"cells": [{"cell_type": "code", "source": [cell], "metadata": {}, "outputs": [],
                                  "execution_count": None}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)
    result = pipeline.process_bytes("demo.ipynb", text.encode(), Options(mode="lint", target_version=T))
    line = next(n for n, l in enumerate(text.splitlines(), 1) if "cmd = " in l)
    start = text.splitlines()[line - 1].index('"') + 1
    assert [(f.line, f.column, f.code) for f in result.findings] == [(line, start + cell.index("SGLANG") + 1, "DFM201")]
