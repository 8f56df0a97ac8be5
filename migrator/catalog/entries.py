"""The catalog's data: every entry (``ENTRIES``, built once here), the text mirrors, the
codes whose fix assumes sglang's meaning and what ``SGLANG_ENABLE_SPEC_V2`` meant in each
release. A removed name is spelled here and nowhere else in the tool (the sglang modules
and classes the entries share are in ``migrator.catalog.sglang_names``).

Facts come from reading the released wheels (``pip download --no-deps sglang==X``); see
``../shared/reference/sglang-dflash-api.md`` for the line-level evidence.
"""

from __future__ import annotations

from migrator.catalog.model import (
    FORK_KIND,
    HISTORY_KIND,
    Entry,
    EnvMeaning,
    Replacement,
    TextMirror,
    text_entry,
)
from migrator.catalog.sglang_names import (
    DFLASH_INFO,
    DFLASH_UTILS,
    DFLASH_WORKER,
    DFLASH_WORKER_V2,
    DISABLE_OVERLAP_ARG,
    DISABLE_OVERLAP_FLAG,
    ENV_SPEC_V2,
    GENERATION_RESULT,
    KERNEL_OPS_DFLASH,
    MODEL_RUNNER,
    SERVER_ARGS,
    SPEC_ALGORITHM,
    SPEC_AUX_CONFIG,
    SPECULATIVE,
    TABLE_QK_NORM_ROPE,
    V1,
    V1_DRAFT_INPUT,
    V1_WORKER_CLASS,
    V2,
    V2_DRAFT_INPUT,
    V2_WORKER_CLASS,
    VERIFY_INPUT,
)
from migrator.catalog.versions import FIRST_V2_RELEASE, NEWEST_RELEASE, VersionRange


def _from_import(module: str, name: str, before: str) -> str:
    """``from module import name`` as the fix writes it in place of ``before``: over 88
    characters where ``before`` kept within them, one name a line in parentheses, as black
    keeps it (``migrator.edit.imports_laid_out``)."""
    line = f"from {module} import {name}"
    return line if len(line) <= 88 or len(before) > 88 else f"from {module} import (\n    {name},\n)"


#: Every removed or changed V1 name, call form, setting and behaviour, as a person writes it
#: (the text, history and fork entries below are derived from or added to these).
#: DFM202 per idiom (issue 46): what a use of ``envs.SGLANG_ENABLE_SPEC_V2`` meant, what upstream did
#: with it in 0.5.14 and what changes at run time. ``references`` picks the idiom from the use's shape
#: (``rules.spec_v2_blocks`` deletes the two blocks upstream deleted whole).
ENVS_SPEC_V2_IDIOMS: dict[str, str] = {
    "read": "a read raises AttributeError on 0.5.14+; a test for 'spec v2 on' is always true there "
    "(upstream deleted such branches), and where False meant the synchronous path (0.5.13's EAGLE hook) "
    f"read `server_args.{DISABLE_OVERLAP_ARG}` instead",
    "set truthy": "setting it truthy asked for what every 0.5.14+ release does anyway: delete it, as upstream "
    "did; nothing changes at run time",
    "set falsy": "setting it falsy selected the synchronous (non-overlap) path; 0.5.14+ read nothing, so the "
    f"server runs overlap scheduling: pass `{DISABLE_OVERLAP_FLAG}` / `{DISABLE_OVERLAP_ARG}=True` to the launch "
    "it applied to, as upstream's fixtures do",
    "clear": "the clean-up of an earlier set: delete it with that set (upstream did)",
    "fixture override": "a test fixture's override: upstream replaced `(envs.SGLANG_ENABLE_SPEC_V2, False)` by "
    f"`disable_overlap = True`, which passes `{DISABLE_OVERLAP_FLAG}` to the launch; a truthy override is "
    "dropped (the default now)",
}

CHANGES: tuple[Entry, ...] = (
    Entry(
        code="DFM101",
        old=DFLASH_WORKER,
        kind="module",
        exists=V1,
        replacements=(Replacement(V2, DFLASH_WORKER_V2),),
        fix="safe",
        message="module `dflash_worker` was removed in sglang 0.5.14; use `dflash_worker_v2`",
        guidance="The V1 worker module is gone and no alias module ships, so importing it raises "
        "`ModuleNotFoundError`. Every name that survived lives in `dflash_worker_v2` "
        "(the class is renamed, see DFM102).",
        before="from sglang.srt.speculative import dflash_worker",
        after="from sglang.srt.speculative import dflash_worker_v2",
    ),
    Entry(
        code="DFM102",
        old=V1_WORKER_CLASS,
        kind="class",
        exists=V1,
        replacements=(Replacement(V2, V2_WORKER_CLASS),),
        fix="safe",
        message="`DFlashWorker` was replaced by `DFlashWorkerV2`",
        guidance="`SpeculativeAlgorithm.DFLASH.create_worker` returns `DFlashWorkerV2` "
        "(a `BaseSpecWorker`). `target_worker`/`draft_worker` are read-only properties there, "
        "the constructor takes other rank arguments from 0.5.16 (DFM111), and the removed "
        "methods DFM106-DFM108 are no longer called by the scheduler.",
        before="from sglang.srt.speculative.dflash_worker import DFlashWorker",
        after="from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2",
    ),
    Entry(
        code="DFM103",
        old=V1_DRAFT_INPUT,
        kind="class",
        exists=V1,
        replacements=(Replacement(V2, V2_DRAFT_INPUT),),
        fix="safe",
        message="`dflash_info.DFlashDraftInput` was replaced by `dflash_info_v2.DFlashDraftInputV2`",
        guidance="The V2 draft input has other fields (see DFM109) and is returned in "
        "`GenerationBatchResult.next_draft_input` instead of living on `batch.spec_info`. "
        "The rename is mechanical; code touching removed fields gets a DFM109 TODO.",
        before="from sglang.srt.speculative.dflash_info import DFlashDraftInput",
        after="from sglang.srt.speculative.dflash_info_v2 import DFlashDraftInputV2",
    ),
    Entry(
        code="DFM104",
        old=f"{DFLASH_INFO}._compute_paged_keep_slots",
        kind="function",
        exists=V1,
        replacements=(Replacement(V2, None),),
        fix="manual",
        message="`_compute_paged_keep_slots` was removed with no replacement",
        guidance="Nothing in V2 computes it (read in the 0.5.14-0.5.23 wheels): V1's "
        "`DFlashVerifyInput.verify` called it (page size > 1) to free the rejected tail of each verify "
        "block. V2 frees no KV inside a step: `DFlashDraftInputV2.prepare_for_decode` reserves two "
        "blocks of headroom per request ahead of time, the batch-result processor only advances the "
        "committed length by the accepted tokens, and the over-allocated tail is freed once, "
        "page-aligned, when the request finishes (`mem_cache.common.release_kv_cache`). Delete the "
        "call; a value built on it (a kept-slots metric) has no V2 equivalent. With `--unsafe-fixes`, "
        "a module-level import of it that only functions use moves into those functions, so that "
        "the module imports on 0.5.14+ and only a call fails, with the same ImportError (unsafe: "
        "see \"Removed names without a replacement\"); the TODOs stay.",
        before=(
            "from sglang.srt.speculative.dflash_info import _compute_paged_keep_slots\n"
            "\n"
            "\n"
            "def keep_slots(prefix_lens, commit_lens):\n"
            "    return _compute_paged_keep_slots(prefix_lens=prefix_lens, commit_lens=commit_lens, draft_token_num=8, page_size=16)"
        ),
        after=(
            "def keep_slots(batch):\n"
            "    # V2 frees no KV inside a step: a request keeps its committed KV; the tail up to\n"
            "    # req.kv_allocated_len (DFlashDraftInputV2.prepare_for_decode's headroom) is freed\n"
            "    # when it finishes\n"
            "    return [req.kv_committed_len for req in batch.reqs]"
        ),
    ),
    Entry(
        code="DFM105",
        old=f"{VERIFY_INPUT}.verify",
        kind="method",
        exists=V1,
        replacements=(
            Replacement(VersionRange(FIRST_V2_RELEASE, "0.5.18"), f"{V2_WORKER_CLASS}.forward_batch_generation"),
            Replacement(VersionRange("0.5.19"), f"{V2_WORKER_CLASS}._accept_block"),
        ),
        fix="manual",
        message="`DFlashVerifyInput.verify()` was removed; acceptance now happens inside the V2 worker",
        guidance="V1 `verify` mutated requests and the batch. In V2 the accept step runs inside "
        "`DFlashWorkerV2.forward_batch_generation` (0.5.14-0.5.18) or `DFlashWorkerV2._accept_block` "
        "(0.5.19+), returns tensors (`accept_lens`, `next_token_ids`), and the scheduler's batch "
        "result processor appends tokens and frees KV.",
        before=(
            "from sglang.srt.speculative.dflash_info import DFlashVerifyInput\n"
            "\n"
            "\n"
            "def verify(verify_input: DFlashVerifyInput, batch, out, ps):\n"
            "    bonus, commit_lens, hidden, per_req = verify_input.verify(batch=batch, logits_output=out, page_size=ps)\n"
            "    return bonus"
        ),
        after=(
            "def verify(worker, batch):\n"
            "    result = worker.forward_batch_generation(batch)  # accept_lens, next_token_ids\n"
            "    return result"
        ),
        # the last: prose names the method without a call (`DFlashVerifyInput.verify`, DFM405)
        cues=(".verify(", "def verify", "DFlashVerifyInput.verify"),
    ),
    Entry(
        code="DFM106",
        old=f"{V1_WORKER_CLASS}._prepare_for_speculative_decoding",
        kind="method",
        exists=V1,
        replacements=(Replacement(V2, f"{VERIFY_INPUT}.prepare_for_verify"),),
        fix="manual",
        message="`DFlashWorker._prepare_for_speculative_decoding` was removed; V2 never calls it",
        guidance="An override silently stops running. V2 drafts a block inline in "
        "`forward_batch_generation` and calls `DFlashVerifyInput.prepare_for_verify(batch, "
        "target_worker)`; KV for verify is pre-reserved by `DFlashDraftInputV2.prepare_for_decode`. "
        "Move custom logic into a `forward_batch_generation` override.",
        before=(
            "from sglang.srt.speculative.dflash_worker import DFlashWorker\n"
            "\n"
            "\n"
            "class MyWorker(DFlashWorker):\n"
            "    def _prepare_for_speculative_decoding(self, batch, draft_input):\n"
            "        return batch"
        ),
        after=(
            "from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2\n"
            "\n"
            "\n"
            "class MyWorker(DFlashWorkerV2):\n"
            "    def forward_batch_generation(self, batch, on_publish=None, **kw):\n"
            "        return super().forward_batch_generation(batch, on_publish=on_publish, **kw)"
        ),
    ),
    Entry(
        code="DFM107",
        old=f"{V1_WORKER_CLASS}._append_target_hidden_to_draft_kv",
        kind="method",
        exists=V1,
        replacements=(Replacement(V2, f"{V2_WORKER_CLASS}._append_target_hidden_to_draft_kv_by_loc"),),
        fix="manual",
        message="`_append_target_hidden_to_draft_kv` was removed; use `_append_target_hidden_to_draft_kv_by_loc`",
        guidance="The V2 method takes explicit tensors (`target_hidden`, `cache_loc`, `positions`, "
        "optional `cache_loc_2d`, `commit_lens`) instead of reading `DFlashDraftInput.ctx_lens` "
        "and `draft_seq_lens`.",
        before=(
            "from sglang.srt.speculative.dflash_worker import DFlashWorker\n"
            "\n"
            "\n"
            "class MyWorker(DFlashWorker):\n"
            "    def extend(self, batch, draft_input):\n"
            "        self._append_target_hidden_to_draft_kv(batch, draft_input)"
        ),
        after=(
            "from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2\n"
            "\n"
            "\n"
            "class MyWorker(DFlashWorkerV2):\n"
            "    def extend(self, hidden, loc, pos):\n"
            "        self._append_target_hidden_to_draft_kv_by_loc(target_hidden=hidden, cache_loc=loc, positions=pos)"
        ),
    ),
    Entry(
        code="DFM108",
        old=f"{V1_WORKER_CLASS}.forward_batch_generation",
        kind="method",
        exists=V1,
        replacements=(Replacement(V2, f"{V2_WORKER_CLASS}.forward_batch_generation"),),
        fix="manual",
        message="the V1 `forward_batch_generation(batch, **kwargs)` contract changed in V2",
        guidance="V2's signature is `(batch, on_publish=None[, grammar_barrier][, pp_proxy_tensors])` "
        "and it returns `accept_lens`, padded `next_token_ids` and `next_draft_input` instead of "
        "mutating `batch.spec_info` and setting `num_correct_drafts*`. The scheduler applies "
        "the result. Rework overrides and callers against the new contract.",
        before=(
            "from sglang.srt.speculative.dflash_worker import DFlashWorker\n"
            "\n"
            "\n"
            "class MyWorker(DFlashWorker):\n"
            "    def forward_batch_generation(self, batch, **kwargs):\n"
            "        return super().forward_batch_generation(batch, **kwargs)"
        ),
        after=(
            "from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2\n"
            "\n"
            "\n"
            "class MyWorker(DFlashWorkerV2):\n"
            "    def forward_batch_generation(self, batch, on_publish=None, grammar_barrier=None):\n"
            "        return super().forward_batch_generation(batch, on_publish=on_publish, grammar_barrier=grammar_barrier)"
        ),
    ),
    Entry(
        code="DFM109",
        old=f"{V1_DRAFT_INPUT}.target_hidden",
        also=(f"{V1_DRAFT_INPUT}.ctx_lens", f"{V1_DRAFT_INPUT}.draft_seq_lens"),
        kind="attribute",
        exists=V1,
        replacements=(Replacement(V2, None),),
        fix="manual",
        message="this `DFlashDraftInput` field does not exist on `DFlashDraftInputV2`",
        guidance="V2 materializes the draft KV immediately, so the draft input no longer carries "
        "`target_hidden`, `ctx_lens` or `draft_seq_lens`. Pass the tensors explicitly to "
        "`_append_target_hidden_to_draft_kv_by_loc` instead.",
        before=(
            "from sglang.srt.speculative.dflash_info import DFlashDraftInput\n"
            "\n"
            "\n"
            "def hidden_of(draft_input: DFlashDraftInput):\n"
            "    return draft_input.target_hidden"
        ),
        after=(
            "from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2\n"
            "\n"
            "\n"
            "class HiddenTap(DFlashWorkerV2):\n"
            "    # V2 hands target_hidden to the draft KV writer instead of storing it on the input\n"
            "    def _append_target_hidden_to_draft_kv_by_loc(self, *, target_hidden, **slots):\n"
            "        self.last_target_hidden = target_hidden\n"
            "        return super()._append_target_hidden_to_draft_kv_by_loc(target_hidden=target_hidden, **slots)"
        ),
    ),
    Entry(
        code="DFM110",
        old=f"{VERIFY_INPUT}.prepare_for_verify",
        kind="call-form",
        exists=V1,
        replacements=(Replacement(V2, f"{VERIFY_INPUT}.prepare_for_verify"),),
        fix="manual",
        message="V1 call form `prepare_for_verify(batch, page_size)`; V2 takes `(batch, target_worker)` "
        "and returns `(ForwardBatch, bool)`",
        guidance="The name survived with an incompatible signature. The caller now sets "
        "`batch.out_cache_loc` itself and uses the returned `ForwardBatch` (attention and "
        "cuda-graph metadata pre-initialised). 0.5.23 adds keyword-only `defer_metadata_init`.",
        before=(
            "from sglang.srt.speculative.dflash_info import DFlashVerifyInput\n"
            "\n"
            "\n"
            "def prepare(verify_input: DFlashVerifyInput, batch, page_size):\n"
            "    verify_input.prepare_for_verify(batch, page_size)"
        ),
        after=(
            "from sglang.srt.speculative.dflash_info import DFlashVerifyInput\n"
            "\n"
            "\n"
            "def prepare(verify_input: DFlashVerifyInput, batch, target_worker):\n"
            "    forward_batch, can_run_graph = verify_input.prepare_for_verify(batch, target_worker)\n"
            "    return forward_batch, can_run_graph"
        ),
        cues=("prepare_for_verify",),
    ),
    Entry(
        code="DFM111",
        old=f"{V1_WORKER_CLASS}.__init__",
        kind="call-form",
        exists=V1,
        replacements=(
            Replacement(VersionRange(FIRST_V2_RELEASE, "0.5.15"), f"{V2_WORKER_CLASS}.__init__"),
            Replacement(VersionRange("0.5.16", "0.5.20"), f"{V2_WORKER_CLASS}.__init__"),
            Replacement(VersionRange("0.5.21"), f"{V2_WORKER_CLASS}.__init__"),
        ),
        fix="manual",
        message="the worker constructor's rank arguments changed (`ps: ParallelState` in 0.5.16-0.5.20, "
        "none from 0.5.21)",
        guidance="0.5.14-0.5.15 keep the V1 arguments; 0.5.16-0.5.20 take `(server_args, gpu_id, ps, "
        "nccl_port, target_worker)`; 0.5.21+ take `(server_args, gpu_id, nccl_port, target_worker)` "
        "and ranks come from `sglang.srt.runtime_context.get_parallel()`.",
        before=(
            "from sglang.srt.speculative.dflash_worker import DFlashWorker\n"
            "\n"
            "\n"
            "def build(server_args, gpu_id, tp_rank, dp_rank, moe_ep_rank, attn_cp_rank, moe_dp_rank, nccl_port, target_worker):\n"
            "    return DFlashWorker(server_args, gpu_id, tp_rank, dp_rank, moe_ep_rank, attn_cp_rank, moe_dp_rank, nccl_port,\n"
            "                        target_worker)"
        ),
        after=(
            "from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2\n"
            "\n"
            "\n"
            "def build(server_args, gpu_id, nccl_port, target_worker):\n"
            "    return DFlashWorkerV2(server_args, gpu_id, nccl_port, target_worker)"
        ),
        fires_from="0.5.16",
    ),
    Entry(
        code="DFM112",
        old="sglang.srt.managers.schedule_batch.ScheduleBatch.filter_batch",
        kind="call-form",
        exists=VersionRange("0.5.8", "0.5.13"),
        replacements=(Replacement(V2, "sglang.srt.managers.schedule_batch.ScheduleBatch.filter_batch"),),
        fix="safe",
        message="`filter_batch(v1_spec_info_filtered=...)`: the parameter was removed in 0.5.14 (TypeError)",
        guidance="In 0.5.13 `v1_spec_info_filtered=True` told `filter_batch` that a V1 worker's verify step had "
        "already filtered `spec_info` (`has_been_filtered = v1_spec_info_filtered and not is_spec_v2`). 0.5.14 "
        "has no V1 worker and always passes `has_been_filtered=False`; upstream dropped the keyword at every "
        "call site. The fix drops it: safe for a constant (`True` at every site upstream rewrote): on every "
        "release 0.5.14 and newer no `filter_batch` takes the keyword and nothing reads the value (proof in "
        "`migrator/python/rules/filter_batch.py`, re-checked on each wheel); unsafe for a name or attribute, "
        "or where the fork defines its own function taking the keyword (the message names it). A value with "
        "side effects, a positional third argument or `**kwargs` stay a TODO.",
        before="def drop_finished(batch):\n    batch.filter_batch(v1_spec_info_filtered=True)",
        after="def drop_finished(batch):\n    batch.filter_batch()",
        cues=("v1_spec_info_filtered",),
        # the same as the cue: the prefilter joins patterns of entries sharing a token (DFM319's
        # filter_batch) only where each has one
        patterns=("v1_spec_info_filtered",),
        distinctive=True,
    ),
    Entry(
        code="DFM210",
        old="enable_overlap",
        kind="behaviour",
        exists=V1,
        replacements=(Replacement(V2, None),),
        fix="unsafe",
        message="a DFLASH overlap guard: from 0.5.14 DFLASH runs with overlap scheduling (`DFlashWorkerV2`)",
        guidance="V1 DFLASH could not run under the overlap scheduler, so code raised when overlap was on "
        "(`if enable_overlap: raise ValueError(\"DFLASH does not support overlap scheduling (spec v2).\")` in "
        "0.5.13's `SpeculativeAlgorithm.create_worker`). 0.5.14 deleted the guard: the V2 worker drives both "
        "modes. The rule reports an `if` whose test reads an overlap setting and whose body raises with a "
        "message naming DFLASH. With `--unsafe-fixes` it deletes the guard as upstream did (no `else`, a body "
        "that only raises, the overlap variable still read elsewhere; else a TODO): at run time DFLASH then "
        "starts under overlap scheduling instead of raising. Coupled with DFM211: in one file the guard and "
        "the forced setting are one fix, deleted together or not at all.",
        before='def check_overlap(enable_overlap):\n    if enable_overlap:\n'
        '        raise ValueError("DFLASH does not support overlap scheduling (spec v2).")',
        after="def check_overlap(enable_overlap):\n    # dflash-migrate: removed the `if enable_overlap:` block (DFM210)\n    pass",
        # The prefilter's cues: sglang's two spellings of the setting. "overlap" alone sent every
        # model file that mentions DFLASH and overlap anywhere to the parser (+8 files, ~0.17 s of
        # CPU per lint of sglang 0.5.13's tree, none with a finding).
        cues=("enable_overlap", DISABLE_OVERLAP_ARG),
        # ... and the guard's shape: a line naming overlap (the `if`'s test, however it is
        # wrapped), then a `raise` starting one of the next 9 lines. Model code that names
        # DFLASH and reads the setting, but raises nowhere near it, is not parsed for this.
        patterns=(r"(?m)overlap[^\n]*\n(?:[^\n]*\n){0,8}?[ \t]*raise\b",),
    ),
    Entry(
        code="DFM211",
        old=DISABLE_OVERLAP_ARG,
        kind="behaviour",
        exists=V1,
        replacements=(Replacement(V2, None),),
        fix="unsafe",
        message="overlap scheduling forced off for DFLASH: from 0.5.14 DFLASH supports it; only "
        "`--disable-overlap-schedule` should turn it off",
        guidance="0.5.13's `_handle_dflash` set `server_args.disable_overlap_schedule = True` and warned "
        "\"Overlap scheduler is disabled when using DFLASH speculative decoding (spec v2 is not supported yet)\". "
        "0.5.14 removed both: DFLASH runs `DFlashWorkerV2` with overlap unless the user asks otherwise. The "
        "rule reports `<x>.disable_overlap_schedule = True` in DFLASH code (a function named after DFLASH, an "
        "`if` testing for DFLASH, or next to a message naming DFLASH). With `--unsafe-fixes` it deletes the "
        "setting and the overlap warning after it, as upstream did: at run time DFLASH then runs with overlap "
        "scheduling unless `--disable-overlap-schedule` is passed. Only correct together with deleting every "
        "DFM210 guard (which would now raise at start-up): in one file both are one fix; across files both "
        "are unsafe, so the same `--unsafe-fixes` run deletes both. Keep it if the synchronous path is "
        "wanted on purpose.",
        before='def _handle_dflash(server_args):\n    server_args.disable_overlap_schedule = True',
        after="def _handle_dflash(server_args):\n"
        "    # dflash-migrate: removed `server_args.disable_overlap_schedule = True` (DFM211)\n    pass",
        cues=(DISABLE_OVERLAP_ARG,),
        patterns=(rf"\.{DISABLE_OVERLAP_ARG}[ \t]*=[ \t]*True\b",),
    ),
    Entry(
        code="DFM201",
        old=ENV_SPEC_V2,
        kind="env",
        exists=VersionRange("0.5.8", "0.5.20"),
        replacements=(Replacement(V2, f"{SERVER_ARGS}.{DISABLE_OVERLAP_ARG}"),),
        fix="safe",
        message="`SGLANG_ENABLE_SPEC_V2` is gone: V2 always runs; `=0` now means "
        "`--disable-overlap-schedule`",
        guidance="0.5.14-0.5.20 only log a warning when it is set, 0.5.21+ ignore it silently, "
        "so a deployment relying on `=0` quietly switches to overlap scheduling. A truthy "
        "setting is the default now and is removed. A falsy one becomes "
        "`disable_overlap_schedule=True` / `--disable-overlap-schedule` where the same file "
        "builds the server arguments; otherwise a TODO is left.",
        before=(
            "import os\n"
            "\n"
            "import sglang\n"
            "\n"
            "os.environ[\"SGLANG_ENABLE_SPEC_V2\"] = \"0\"\n"
            "engine = sglang.Engine(model_path=\"m\", speculative_algorithm=\"DFLASH\")"
        ),
        after=(
            "import os\n"
            "\n"
            "import sglang\n"
            "\n"
            "# dflash-migrate: removed `os.environ[\"SGLANG_ENABLE_SPEC_V2\"] = \"0\"` (DFM201)\n"
            "engine = sglang.Engine(model_path=\"m\", speculative_algorithm=\"DFLASH\", disable_overlap_schedule=True)"
        ),
        fires_from=FIRST_V2_RELEASE,
    ),
    Entry(
        code="DFM202",
        old=f"sglang.srt.environ.envs.{ENV_SPEC_V2}",
        kind="attribute",
        exists=VersionRange("0.5.8", "0.5.13"),
        replacements=(Replacement(V2, f"{SERVER_ARGS}.{DISABLE_OVERLAP_ARG}"),),
        fix="manual",
        message="`envs.SGLANG_ENABLE_SPEC_V2` was removed from `Envs` (AttributeError on 0.5.14+)",
        guidance="`Envs` lost the member in 0.5.14, so every use raises `AttributeError`; what to write "
        "depends on what the use meant. A read: a test for 'spec v2 on' is always true (upstream deleted such "
        "branches); where `False` meant the synchronous path, read `server_args.disable_overlap_schedule` "
        "(or `scheduler.enable_overlap`). `.set(True)`: delete it, nothing changes at run time. `.set(False)`: "
        "it selected the synchronous path; the server now runs overlap scheduling unless the launch passes "
        "`--disable-overlap-schedule` / `disable_overlap_schedule=True` (upstream's fixtures do). `.clear()`: "
        "delete it with its set. A fixture override `(envs.SGLANG_ENABLE_SPEC_V2, False)`: upstream wrote "
        "`disable_overlap = True` (the launch gets `--disable-overlap-schedule`). The TODO names the idiom it "
        "sees. Two blocks are deleted as upstream did: `if not envs.SGLANG_ENABLE_SPEC_V2.get(): "
        "envs.SGLANG_ENABLE_SPEC_V2.set(True)` (plus logging; safe) and the block that turns "
        "`disable_overlap_schedule` on when the variable is falsy (unsafe: `=0` no longer selects the "
        "synchronous path).",
        before=(
            "from sglang.srt.environ import envs\n"
            "\n"
            "\n"
            "def overlapped() -> bool:\n"
            "    return envs.SGLANG_ENABLE_SPEC_V2.get()"
        ),
        after=(
            "def overlapped(server_args) -> bool:\n"
            "    return not server_args.disable_overlap_schedule"
        ),
    ),
    Entry(
        code="DFM203",
        old="--speculative-dflash-draft-window-size",
        kind="cli-flag",
        exists=VersionRange("0.5.11", "0.5.19"),
        replacements=(Replacement(VersionRange("0.5.12"), "--speculative-draft-window-size"),),
        fix="safe",
        message="`--speculative-dflash-draft-window-size` was renamed `--speculative-draft-window-size` "
        "(alias removed in 0.5.20)",
        guidance="A deprecated alias until 0.5.19; from 0.5.20 argparse rejects it.",
        before=(
            "python -m sglang.launch_server --model-path m --speculative-algorithm DFLASH --speculative-dflash-draft-window-size 512"
        ),
        after=(
            "python -m sglang.launch_server --model-path m --speculative-algorithm DFLASH --speculative-draft-window-size 512"
        ),
        example_file="launch.sh",
        fires_from="0.5.13",
    ),
    Entry(
        code="DFM204",
        old=f"{SERVER_ARGS}.speculative_dflash_draft_window_size",
        kind="server-arg",
        exists=VersionRange("0.5.11", "0.5.11"),
        replacements=(Replacement(VersionRange("0.5.12"), f"{SERVER_ARGS}.speculative_draft_window_size"),),
        fix="safe",
        message="server argument `speculative_dflash_draft_window_size` is now `speculative_draft_window_size`",
        guidance="The field was renamed in 0.5.12; keyword arguments to `ServerArgs`/`Engine` must follow.",
        before=(
            "import sglang\n"
            "\n"
            "engine = sglang.Engine(model_path=\"m\", speculative_dflash_draft_window_size=512)"
        ),
        after=(
            "import sglang\n"
            "\n"
            "engine = sglang.Engine(model_path=\"m\", speculative_draft_window_size=512)"
        ),
    ),
    Entry(
        code="DFM205",
        old=f"{SPEC_ALGORITHM}.supports_spec_v2",
        also=(f"{SPECULATIVE}.spec_registry.CustomSpecAlgo.supports_spec_v2",),
        kind="method",
        exists=VersionRange("0.5.8", "0.5.13"),
        replacements=(Replacement(V2, None),),
        distinctive=True,
        fix="safe",
        message="`supports_spec_v2()` was removed; 0.5.14 tests `not <algorithm>.is_none()` (speculative at all) instead",
        guidance="In 0.5.13 it was False for `NONE` and for DFLASH. 0.5.14 rewrote each call site as a "
        "test for 'speculative at all', and so does the safe fix: `algo.supports_spec_v2()` becomes "
        "`not algo.is_none()` (never `True`, which would send non-speculative batches down the "
        "speculative path). On every release 0.5.14 and newer the old call raises `AttributeError` and "
        "every worker runs the V2 schema, so the two tests are one (the proof is in "
        "`migrator/python/rules/spec_v2_flags.py`, re-checked on each wheel). A plugin's own "
        "`CustomSpecAlgo.supports_spec_v2` (it returned `supports_overlap`) is left as a TODO: "
        "plugins set `supports_overlap` instead.",
        before="from sglang.srt.speculative.spec_info import SpeculativeAlgorithm\n\n"
        "def uses_v2(algo: SpeculativeAlgorithm) -> bool:\n    return algo.supports_spec_v2()",
        after="from sglang.srt.speculative.spec_info import SpeculativeAlgorithm\n\n"
        "def uses_v2(algo: SpeculativeAlgorithm) -> bool:\n    return not algo.is_none()",
    ),
    Entry(
        code="DFM206",
        old="sglang.srt.managers.schedule_batch.ScheduleBatch.is_spec_v2",
        kind="attribute",
        exists=VersionRange("0.5.8", "0.5.13"),
        replacements=(Replacement(V2, None),),
        distinctive=True,
        fix="safe",
        message="`ScheduleBatch.is_spec_v2` was removed; 0.5.14 tests `not batch.spec_algorithm.is_none()` instead",
        guidance="In 0.5.13 it was `spec_algorithm.supports_spec_v2()`: False for batches without "
        "speculative decoding and for DFLASH. The safe fix is what 0.5.14 wrote at each site, "
        "`not batch.spec_algorithm.is_none()` (never `True`: a non-speculative batch would call "
        "`None.prepare_for_decode` and skip the future-map publish). On every release 0.5.14 and newer "
        "the old attribute raises `AttributeError` and every worker runs the V2 schema, so 'V2' and "
        "'speculative' are one test there (proof in `migrator/python/rules/spec_v2_flags.py`).",
        before="from sglang.srt.managers.schedule_batch import ScheduleBatch\n\n"
        "def publish(batch: ScheduleBatch) -> bool:\n    return batch.is_spec_v2",
        after="from sglang.srt.managers.schedule_batch import ScheduleBatch\n\n"
        "def publish(batch: ScheduleBatch) -> bool:\n    return not batch.spec_algorithm.is_none()",
    ),
    Entry(
        code="DFM301",
        old=f"{V2_DRAFT_INPUT}.verified_id",
        also=(f"{V1_DRAFT_INPUT}.verified_id",),
        kind="attribute",
        exists=VersionRange("0.5.11", "0.5.14"),
        replacements=(Replacement(VersionRange("0.5.15"), f"{V2_DRAFT_INPUT}.bonus_tokens"),),
        fix="safe",
        message="draft-input field `verified_id` is now `bonus_tokens`",
        guidance="Renamed in `DFlashDraftInput` in 0.5.12 and in `DFlashDraftInputV2` in 0.5.15. "
        "Only accesses on values known to be DFlash draft inputs are rewritten; EAGLE's "
        "`verified_id` is untouched.",
        before=(
            "from sglang.srt.speculative.dflash_info_v2 import DFlashDraftInputV2\n"
            "\n"
            "\n"
            "def bonus(draft_input: DFlashDraftInputV2):\n"
            "    return draft_input.verified_id"
        ),
        after=(
            "from sglang.srt.speculative.dflash_info_v2 import DFlashDraftInputV2\n"
            "\n"
            "\n"
            "def bonus(draft_input: DFlashDraftInputV2):\n"
            "    return draft_input.bonus_tokens"
        ),
    ),
    Entry(
        code="DFM302",
        old=f"{VERIFY_INPUT}.num_tokens_per_batch",
        kind="attribute",
        exists=VersionRange("0.5.11", "0.5.15"),
        replacements=(Replacement(VersionRange("0.5.16"), f"{VERIFY_INPUT}.num_tokens_per_req"),),
        fix="safe",
        message="`DFlashVerifyInput.num_tokens_per_batch` is now `num_tokens_per_req`",
        guidance="Renamed in 0.5.16; only accesses on values known to be `DFlashVerifyInput` are rewritten. No other "
        "sglang class has the name: on a receiver of unknown type (an untyped parameter) in a file that names "
        "`DFlashVerifyInput` it is a TODO.",
        before=(
            "from sglang.srt.speculative.dflash_info import DFlashVerifyInput\n"
            "\n"
            "\n"
            "def tokens(verify_input: DFlashVerifyInput) -> int:\n"
            "    return verify_input.num_tokens_per_batch"
        ),
        after=(
            "from sglang.srt.speculative.dflash_info import DFlashVerifyInput\n"
            "\n"
            "\n"
            "def tokens(verify_input: DFlashVerifyInput) -> int:\n"
            "    return verify_input.num_tokens_per_req"
        ),
        cues=("num_tokens_per_batch",),
    ),
    Entry(
        code="DFM303",
        old=f"{DFLASH_UTILS}.compute_dflash_accept_len_and_bonus",
        kind="function",
        exists=VersionRange("0.5.11", "0.5.11"),
        replacements=(
            Replacement(VersionRange("0.5.12", "0.5.22"), f"{DFLASH_UTILS}.compute_dflash_correct_drafts_and_bonus"),
            Replacement(VersionRange("0.5.23"), f"{KERNEL_OPS_DFLASH}.compute_dflash_correct_drafts_and_bonus"),
        ),
        fix="safe",
        message="`compute_dflash_accept_len_and_bonus` is now `compute_dflash_correct_drafts_and_bonus`",
        guidance="Renamed in 0.5.12; moved to `sglang.kernels.ops.speculative.dflash` in 0.5.23. "
        "The replacement follows `--target-version`.",
        before="from sglang.srt.speculative.dflash_utils import compute_dflash_accept_len_and_bonus",
        after=_from_import("sglang.kernels.ops.speculative.dflash", "compute_dflash_correct_drafts_and_bonus",
                           "from sglang.srt.speculative.dflash_utils import compute_dflash_accept_len_and_bonus"),
    ),
    Entry(
        code="DFM304",
        old=f"{DFLASH_UTILS}.compute_dflash_sampling_accept_len_and_bonus",
        kind="function",
        exists=VersionRange("0.5.11", "0.5.11"),
        replacements=(
            Replacement(VersionRange("0.5.12"), f"{DFLASH_UTILS}.compute_dflash_sampling_correct_drafts_and_bonus"),
        ),
        fix="safe",
        message="`compute_dflash_sampling_accept_len_and_bonus` is now "
        "`compute_dflash_sampling_correct_drafts_and_bonus`",
        guidance="Renamed in 0.5.12; unlike the greedy variant it stays in `dflash_utils`.",
        before="from sglang.srt.speculative.dflash_utils import compute_dflash_sampling_accept_len_and_bonus",
        after=_from_import("sglang.srt.speculative.dflash_utils", "compute_dflash_sampling_correct_drafts_and_bonus",
                           "from sglang.srt.speculative.dflash_utils import compute_dflash_sampling_accept_len_and_bonus"),
    ),
    Entry(
        code="DFM305",
        old=f"{DFLASH_UTILS}.compute_dflash_correct_drafts_and_bonus",
        kind="function",
        exists=VersionRange("0.5.12", "0.5.22"),
        replacements=(
            Replacement(VersionRange("0.5.23"), f"{KERNEL_OPS_DFLASH}.compute_dflash_correct_drafts_and_bonus"),
        ),
        fix="safe",
        message="`compute_dflash_correct_drafts_and_bonus` moved to `sglang.kernels.ops.speculative.dflash` in 0.5.23",
        guidance="Only fires for `--target-version 0.5.23` or newer.",
        before="from sglang.srt.speculative.dflash_utils import compute_dflash_correct_drafts_and_bonus",
        after=_from_import("sglang.kernels.ops.speculative.dflash", "compute_dflash_correct_drafts_and_bonus",
                           "from sglang.srt.speculative.dflash_utils import compute_dflash_correct_drafts_and_bonus"),
    ),
    Entry(
        code="DFM306",
        old="sglang.srt.managers.scheduler.validate_dflash_request",
        kind="function",
        exists=VersionRange("0.5.11", NEWEST_RELEASE),
        replacements=(Replacement(VersionRange("0.5.13"), f"{DFLASH_UTILS}.validate_dflash_request"),),
        fix="safe",
        message="`validate_dflash_request` moved from `managers.scheduler` to `speculative.dflash_utils`",
        guidance="Defined in `scheduler.py` until 0.5.12; from 0.5.13 it lives in `dflash_utils` and "
        "`scheduler` only re-imports it, which pulls in the whole scheduler. Import it from "
        "its home. From 0.5.14 it also needs `enable_overlap` (DFM307).",
        before="from sglang.srt.managers.scheduler import validate_dflash_request",
        after="from sglang.srt.speculative.dflash_utils import validate_dflash_request",
        fires_from="0.5.13",
    ),
    Entry(
        code="DFM307",
        old=f"{DFLASH_UTILS}.validate_dflash_request",
        kind="call-form",
        exists=V1,
        replacements=(Replacement(V2, f"{DFLASH_UTILS}.validate_dflash_request"),),
        fix="manual",
        message="`validate_dflash_request(req)` needs `enable_overlap` from 0.5.14",
        guidance="The signature is `validate_dflash_request(req, enable_overlap: bool)`. In a method of a class "
        "that assigns `self.enable_overlap` (or subclasses sglang's `Scheduler`) the fix is safe and is "
        "upstream's own call on every release 0.5.14 on: `validate_dflash_request(req, self.enable_overlap)`. "
        "Elsewhere it is a TODO: pass the overlap decision of the scheduler the request goes to "
        "(`Scheduler.enable_overlap`, which 0.5.14's scheduler sets to "
        "`not server_args.disable_overlap_schedule and not use_mlx()`).",
        before=(
            "from sglang.srt.speculative.dflash_utils import validate_dflash_request\n"
            "\n"
            "\n"
            "def check(req):\n"
            "    return validate_dflash_request(req)"
        ),
        after=(
            "from sglang.srt.speculative.dflash_utils import validate_dflash_request\n"
            "\n"
            "\n"
            "def check(req, server_args):\n"
            "    return validate_dflash_request(req, enable_overlap=not server_args.disable_overlap_schedule)"
        ),
    ),
    # ---- changes inside the V2 era: V1-era code breaks again on the way to a newer release ----
    Entry(
        code="DFM308",
        old=f"{VERIFY_INPUT}.get_spec_adjust_token_coefficient",
        also=(f"{V1_DRAFT_INPUT}.get_spec_adjust_token_coefficient", f"{V2_DRAFT_INPUT}.get_spec_adjust_token_coefficient"),
        kind="method",
        exists=VersionRange("0.5.11", "0.5.15"),
        replacements=(Replacement(VersionRange("0.5.16"), None),),
        fix="manual",
        message="`get_spec_adjust_token_coefficient()` was removed in 0.5.16; read `num_tokens_per_req` and "
        "`num_tokens_for_logprob_per_req` instead",
        guidance="Every speculative input (DFLASH's, EAGLE's, NGRAM's) had it until 0.5.15 and none has it from "
        "0.5.16: the scheduler reads the inputs' `num_tokens_per_req` / `num_tokens_for_logprob_per_req` "
        "(1 for `DFlashDraftInputV2`, the block size for `DFlashVerifyInput`). A call on any receiver raises "
        "`AttributeError` there, unless the fork's own class defines the method: in a file that names a DFLASH "
        "input class, every call is reported but those on instances of a class of the file that defines it.",
        before=(
            "from sglang.srt.speculative.dflash_info import DFlashVerifyInput\n"
            "\n"
            "\n"
            "def tokens_per_req(spec_info: DFlashVerifyInput):\n"
            "    per_req, per_logprob = spec_info.get_spec_adjust_token_coefficient()\n"
            "    return per_req"
        ),
        after=(
            "from sglang.srt.speculative.dflash_info import DFlashVerifyInput\n"
            "\n"
            "\n"
            "def tokens_per_req(spec_info: DFlashVerifyInput):\n"
            "    return spec_info.num_tokens_per_req"
        ),
        # a call, not a definition; reported on any receiver in a file naming a DFLASH input
        cues=(".get_spec_adjust_token_coefficient",),
    ),
    Entry(
        code="DFM309",
        old=f"{MODEL_RUNNER}.dflash_use_aux_hidden_state",
        also=(f"{MODEL_RUNNER}.dflash_target_layer_ids", f"{MODEL_RUNNER}.dflash_draft_num_layers"),
        kind="attribute",
        exists=VersionRange("0.5.11", "0.5.15"),
        replacements=(Replacement(VersionRange("0.5.16"), f"{SPEC_AUX_CONFIG}.dflash_use_aux_hidden_state"),),
        fix="safe",
        message="`ModelRunner.dflash_*` moved to `ModelRunner.spec_aux_config.dflash_*` in 0.5.16",
        guidance="0.5.16 gathers the auxiliary-hidden-state settings in a `SpecAuxHiddenStateConfig` at "
        "`model_runner.spec_aux_config` (`dflash_use_aux_hidden_state`, `dflash_target_layer_ids`, "
        "`dflash_draft_num_layers`); the attributes on the runner itself are gone. The fix inserts "
        "`spec_aux_config.` where the receiver is a model runner (typed as one, or spelled `...runner`).",
        before=(
            "def capture_layers(worker):\n"
            "    return worker.model_runner.dflash_target_layer_ids"
        ),
        after=(
            "def capture_layers(worker):\n"
            "    return worker.model_runner.spec_aux_config.dflash_target_layer_ids"
        ),
        distinctive=True,
        # the runner itself (`self.dflash_...` in ModelRunner) is sglang's, not a fork's use
        cues=("runner.dflash_",),
    ),
    Entry(
        code="DFM315",
        old=f"{V1_WORKER_CLASS}.target_worker",
        also=(f"{V1_WORKER_CLASS}.draft_worker",),
        kind="attribute",
        exists=V1,
        replacements=(Replacement(V2, f"{V2_WORKER_CLASS}.target_worker"),),
        fix="manual",
        message="`target_worker`/`draft_worker` are read-only properties of `DFlashWorkerV2`: assigning one "
        "raises AttributeError",
        guidance="V1 stored them as plain attributes, so a fork could swap in a wrapped worker "
        "(`self.draft_worker = Profiled(self.draft_worker)`). `DFlashWorkerV2` inherits them from "
        "`BaseSpecWorker` as properties without a setter (over `_target_worker`/`_draft_worker`). Wrap "
        "the worker where it is built, or override the property in the subclass.",
        before=(
            "from sglang.srt.speculative.dflash_worker import DFlashWorker\n"
            "\n"
            "\n"
            "class ProfiledWorker(DFlashWorker):\n"
            "    def wrap(self, profiled):\n"
            "        self.draft_worker = profiled"
        ),
        after=(
            "from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2\n"
            "\n"
            "\n"
            "class ProfiledWorker(DFlashWorkerV2):\n"
            "    def wrap(self, profiled):\n"
            "        self._draft_worker = profiled"
        ),
    ),
    Entry(
        code="DFM316",
        old=f"{GENERATION_RESULT}.num_correct_drafts_per_req_cpu",
        kind="attribute",
        exists=VersionRange("0.5.12", NEWEST_RELEASE),
        replacements=(Replacement(V2, None),),
        fix="manual",
        message="a DFLASH worker's `forward_batch_generation` result no longer sets `num_correct_drafts_per_req_cpu`",
        guidance="V1 `DFlashWorker.forward_batch_generation` filled it (0.5.12-0.5.13); `DFlashWorkerV2` returns "
        "`accept_lens` (a device tensor) and leaves the field `None`: from 0.5.14 the scheduler's batch-result "
        "processor fills it from `accept_lens` after the step, so code reading it off the worker's result (a "
        "metrics wrapper around `forward_batch_generation`) silently gets `None`. Read `result.accept_lens` "
        "instead. Reported only on the result of a DFLASH worker's `forward_batch_generation` (the scheduler's "
        "own reads of the processed result are valid).",
        before=(
            "from sglang.srt.speculative.dflash_worker import DFlashWorker\n"
            "\n"
            "\n"
            "def accepted(worker: DFlashWorker, batch):\n"
            "    result = worker.forward_batch_generation(batch)\n"
            "    return result.num_correct_drafts_per_req_cpu"
        ),
        after=(
            "from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2\n"
            "\n"
            "\n"
            "def accepted(worker: DFlashWorkerV2, batch):\n"
            "    result = worker.forward_batch_generation(batch)\n"
            "    return result.accept_lens.tolist()"
        ),
        fires_from=FIRST_V2_RELEASE,
        distinctive=True,
        # the scheduler reads the field too: only a file that reaches a DFLASH worker can hold this
        cues=("DFlashWorker", "dflash_worker"),
    ),
    Entry(
        code="DFM317",
        old=f"{DFLASH_UTILS}.build_dflash_verify_target_probs",
        kind="function",
        exists=VersionRange("0.5.16", "0.5.21"),
        replacements=(Replacement(VersionRange("0.5.22"), f"{DFLASH_UTILS}.build_speculative_verify_target_probs"),),
        fix="safe",
        message="`build_dflash_verify_target_probs` is now `build_speculative_verify_target_probs`",
        guidance="Renamed in 0.5.22 (the DSPARK and UNO verifiers share it), same parameters. Only fires for "
        "`--target-version 0.5.22` or newer (found in the 0.5.21 -> 0.5.22 wheel diff).",
        before="from sglang.srt.speculative.dflash_utils import build_dflash_verify_target_probs",
        after="from sglang.srt.speculative.dflash_utils import build_speculative_verify_target_probs",
    ),
    Entry(
        code="DFM318",
        old=f"{DFLASH_UTILS}.table_qk_norm_rope_",
        kind="function",
        exists=VersionRange("0.5.18", "0.5.22"),
        replacements=(Replacement(VersionRange("0.5.23"), f"{TABLE_QK_NORM_ROPE}.table_qk_norm_rope_"),),
        fix="safe",
        message="`table_qk_norm_rope_` moved to `sglang.kernels.ops.attention.table_qk_norm_rope` in 0.5.23",
        guidance="The fused QK-norm and RoPE kernel of the DFLASH draft left `dflash_utils` in 0.5.23, same "
        "parameters. Only fires for `--target-version 0.5.23` or newer (found in the 0.5.22 -> 0.5.23 wheel diff).",
        before="from sglang.srt.speculative.dflash_utils import table_qk_norm_rope_",
        after="from sglang.kernels.ops.attention.table_qk_norm_rope import table_qk_norm_rope_",
        # the name holds no DFLASH word: every way to reach the old spelling names its module
        cues=("dflash_utils",),
    ),
    # --- issue 46: 0.5.22's filter_batch keyword rename (a self-contained block) ---
    Entry(
        code="DFM319",
        old="sglang.srt.managers.schedule_batch.ScheduleBatch.filter_batch",
        kind="call-form",
        exists=VersionRange("0.5.8", "0.5.21"),
        replacements=(Replacement(VersionRange("0.5.22"), "sglang.srt.managers.schedule_batch.ScheduleBatch.filter_batch"),),
        fix="safe",
        message="`filter_batch(chunked_req_to_exclude=...)`: the parameter is `reqs_to_exclude` from 0.5.22 (TypeError)",
        guidance="0.5.22 renamed `ScheduleBatch.filter_batch`'s first parameter `chunked_req_to_exclude` to "
        "`reqs_to_exclude` (same position, same handling of a `Req`, a list or None); a keyword call with the old "
        "name raises `TypeError` on 0.5.22+, a positional call works on every release. The fix writes upstream's "
        "`reqs_to_exclude=` where every release of the target is 0.5.22 or newer, and passes the value "
        "positionally where the target also holds an older release (no spelling of the keyword serves both). "
        "Only fires for `--target-version 0.5.22` or newer (found in the 0.5.21 -> 0.5.22 wheel diff). A call "
        "with `*args`/`**kwargs`, or a fork's own function taking the keyword (unsafe, named), is not rewritten "
        "blindly.",
        before="def drop_finished(batch, chunked_req):\n    batch.filter_batch(chunked_req_to_exclude=chunked_req)",
        after="def drop_finished(batch, chunked_req):\n    batch.filter_batch(reqs_to_exclude=chunked_req)",
        cues=("chunked_req_to_exclude",),
        # ... passed as a keyword (after `(` or `,`): a local variable of that name (sglang's own
        # disaggregation/prefill.py) sends no file to the parser
        patterns=(r"[(,][ \t\r\n]*chunked_req_to_exclude[ \t]*=(?!=)",),
        distinctive=True,
    ),
    # --- end of issue 46's block ---
    *(
        Entry(
            code=code,
            old=f"{module}.{name}",
            kind=kind,
            exists=exists,
            replacements=replacements,
            fix="safe",
            message=f"`{module.rpartition('.')[2]}` no longer re-exports `{name}`; "
            + ("import it from its home" if replacements[-1].new.endswith("." + name)
               else f"it is `{replacements[-1].new.rpartition('.')[2]}` now"),
            guidance=f"`{module.rpartition('.')[2]}` imported `{name}` for the V1 path and 0.5.14 dropped the import, "
            "so importing it from there fails. The fix imports it from the module that defines it (found in the "
            "0.5.13 -> 0.5.14 wheel diff, `migrator/verify/wheel_diff.py`).",
            before=f"from {module} import {name}",
            after=_from_import(*replacements[-1].new.rpartition(".")[::2], f"from {module} import {name}"),
            # Every way to reach the name through the module spells the module (a fork's own
            # re-export is the fork index's); the name alone is also imported from its home.
            cues=(module.rpartition(".")[2],),
        )
        for code, module, name, kind, exists, replacements in (
            ("DFM310", DFLASH_INFO, "compute_dflash_correct_drafts_and_bonus", "function", VersionRange("0.5.12", "0.5.13"),
             (Replacement(VersionRange(FIRST_V2_RELEASE, "0.5.22"), f"{DFLASH_UTILS}.compute_dflash_correct_drafts_and_bonus"),
              Replacement(VersionRange("0.5.23"), f"{KERNEL_OPS_DFLASH}.compute_dflash_correct_drafts_and_bonus"))),
            ("DFM311", DFLASH_INFO, "compute_dflash_sampling_correct_drafts_and_bonus", "function",
             VersionRange("0.5.12", "0.5.13"),
             (Replacement(V2, f"{DFLASH_UTILS}.compute_dflash_sampling_correct_drafts_and_bonus"),)),
            ("DFM312", DFLASH_INFO, "is_dflash_sampling_verify_available", "function", V1,
             (Replacement(V2, f"{DFLASH_UTILS}.is_dflash_sampling_verify_available"),)),
            ("DFM313", DFLASH_WORKER, "resolve_dflash_verify_mask_policy", "function", V1,
             (Replacement(V2, f"{DFLASH_UTILS}.resolve_dflash_verify_mask_policy"),)),
            ("DFM314", DFLASH_WORKER, "DFlashDraftInput", "class", V1, (Replacement(V2, V2_DRAFT_INPUT),)),
        )
    ),
)


# ---- DFM400-DFM499: V1 names spelled in text (the fallback text scanner) ---------------
#: Each text code mirrors one entry of ``CHANGES`` (``model.text_entry``); its fields are in ``model.TextMirror``.
TEXT_MIRRORS: tuple[TextMirror, ...] = (
    TextMirror("DFM401", "DFM101", "module"),
    TextMirror("DFM402", "DFM102", "context"),
    TextMirror("DFM403", "DFM103", "word"),
    TextMirror("DFM404", "DFM104", "word"),
    TextMirror("DFM405", "DFM105", "member"),
    TextMirror("DFM406", "DFM106", "context"),
    TextMirror("DFM407", "DFM107", "context"),
    TextMirror("DFM408", "DFM108", "context"),
    TextMirror("DFM409", "DFM201", "word"),
)

#: A V1 name mentioned in a file that records the past (a changelog, release notes, the log of
#: a past run, a patch against upstream: ``migrator.run.files.is_history``). What it names was
#: true then: never a reference to fix. Off unless selected (``--select DFM490``), and then
#: informational: every finding of such a file, whatever rule found it, is reported as this code.
HISTORY_CODE = "DFM490"
HISTORY_ENTRY = Entry(
    code=HISTORY_CODE,
    old=DFLASH_WORKER,
    kind=HISTORY_KIND,
    exists=V1,
    replacements=(),
    fix="manual",
    message="a history file mentions a V1 name",
    guidance="Changelogs, release notes, logs of past runs (files named after a release) and `.patch` "
    "files describe what was: a V1 name there is not a reference to migrate, so no rule reports it "
    "and no fix or TODO is written into such a file. Select `DFM490` to list these mentions as "
    "information (each message names the code that would have fired).",
    before="",
    after="",
)

# ---- DFM500-DFM549: V1 objects followed through the fork's own modules -----------------
#: These codes name no removed thing of their own (``old`` is the V1 class they are mostly
#: about); the rules find them through ``migrator.python.forkindex``.
FORK_ENTRIES: tuple[Entry, ...] = (
    Entry(
        code="DFM500",
        old=V1_WORKER_CLASS,
        kind=FORK_KIND,
        exists=V1,
        replacements=(Replacement(V2, V2_WORKER_CLASS),),
        fix="safe",
        message="this name is a V1 object re-exported by another module of the fork",
        guidance="`from .compat import DFlashWorker` (also `from mypkg.compat import ...`, `import mypkg.compat "
        "as c` then `c.DFlashWorker`, renamed re-exports, chains and star imports) reaches the V1 class "
        "through the fork's own module; the finding names that module. The fix is made there: the "
        "re-exporting import becomes `from ...dflash_worker_v2 import DFlashWorkerV2 as DFlashWorker`, so this "
        "file keeps working without an edit of its own. Overrides of removed methods in subclasses of the name "
        "are reported as usual (DFM106-DFM108).",
        before=(
            "# file: pkg/__init__.py\n"
            "# file: pkg/compat.py\n"
            "from sglang.srt.speculative.dflash_worker import DFlashWorker\n"
            "# file: pkg/workers.py\n"
            "from .compat import DFlashWorker\n"
            "\n"
            "\n"
            "class MetricsWorker(DFlashWorker):\n"
            "    pass"
        ),
        after=(
            "# file: pkg/__init__.py\n"
            "# file: pkg/compat.py\n"
            "from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2 as DFlashWorker\n"
            "# file: pkg/workers.py\n"
            "from .compat import DFlashWorker\n"
            "\n"
            "\n"
            "class MetricsWorker(DFlashWorker):\n"
            "    pass"
        ),
    ),
    Entry(
        code="DFM501",
        old=DFLASH_WORKER,
        kind=FORK_KIND,
        exists=V1,
        replacements=(Replacement(V2, DFLASH_WORKER_V2),),
        fix="safe",
        message="on this release, without the shim, this `try` always fails and its `except ImportError` branch "
        "silently turns the feature off",
        guidance="A `try` whose body imports V1 names and whose `except ImportError` branch sets fallbacks "
        "(`HAS_DFLASH = False`, `DFlashWorker = None`) runs the fallback on every V2 release: DFLASH is "
        "disabled without an error. The import fixes in the `try` (DFM101-DFM103) make it succeed again; "
        "where a name has no replacement the finding stays a TODO.",
        before=(
            "try:\n"
            "    from sglang.srt.speculative.dflash_worker import DFlashWorker\n"
            "    HAS_DFLASH = True\n"
            "except ImportError:\n"
            "    DFlashWorker = None\n"
            "    HAS_DFLASH = False"
        ),
        after=(
            "try:\n"
            "    from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2 as DFlashWorker\n"
            "    HAS_DFLASH = True\n"
            "except ImportError:\n"
            "    DFlashWorker = None\n"
            "    HAS_DFLASH = False"
        ),
    ),
    Entry(
        code="DFM502",
        old=V1_WORKER_CLASS,
        kind=FORK_KIND,
        exists=V1,
        replacements=(Replacement(V2, V2_WORKER_CLASS),),
        fix="manual",
        message="a registry or container holds a subclass of the V1 `DFlashWorker`",
        guidance="A dict, list, tuple or set that holds a fork class derived from the V1 worker (in any "
        "module of the fork) hands that class to whatever builds workers from it. On V2 the worker is "
        "`DFlashWorkerV2`, which never calls the V1 hooks the subclass overrides: port the subclass "
        "(DFM106-DFM108 mark its overrides) before registering it.",
        before=(
            "# file: pkg/__init__.py\n"
            "# file: pkg/workers.py\n"
            "from sglang.srt.speculative.dflash_worker import DFlashWorker\n"
            "\n"
            "\n"
            "class MetricsDFlashWorker(DFlashWorker):\n"
            "    pass\n"
            "# file: pkg/registry.py\n"
            "from .workers import MetricsDFlashWorker\n"
            "\n"
            "WORKERS = {\"metrics\": MetricsDFlashWorker}"
        ),
        after=(
            "# file: pkg/__init__.py\n"
            "# file: pkg/workers.py\n"
            "from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2\n"
            "\n"
            "\n"
            "class MetricsDFlashWorkerV2(DFlashWorkerV2):\n"
            "    pass\n"
            "# file: pkg/registry.py\n"
            "from .workers import MetricsDFlashWorkerV2\n"
            "\n"
            "WORKERS = {\"metrics\": MetricsDFlashWorkerV2}"
        ),
    ),
)

#: A scanned tree that holds its own ``sglang`` package (a vendored copy, or sglang's own
#: source) whose modules still define what a promoted safe fix assumes the released sglang
#: means (``SGLANG_MEANING_CODES``, ``SGLANG_MEANING_PARAMETER_CODES``): the fix treats those
#: modules as the release they will be merged to. One informational finding per vendored
#: package, on its ``__init__.py``, emitted by the fork pass (``migrator.run.fork``) from the
#: fork index's summaries (``ForkIndex.vendored_definitions``); no rule owns it.
VENDORED_CODE = "DFM503"
VENDORED_ENTRY = Entry(
    code=VENDORED_CODE,
    old=V1_WORKER_CLASS,
    kind=FORK_KIND,
    exists=V1,
    replacements=(),
    fix="manual",
    message="this tree vendors its own `sglang` package whose V1-era definitions the safe fixes assume "
    "are replaced by the released sglang's",
    guidance="A tree that holds `sglang/` itself (a vendored copy, or sglang's own source) is upgraded by "
    "merging upstream's release, which replaces sglang's own internals; the tool does not migrate them. "
    "It treats the vendored `sglang.*` modules as the release they will be merged to: the use-site "
    "rewrites (DFM112, DFM205, DFM206) are applied as upstream applied them, and the vendored "
    "definitions of `is_spec_v2`, `supports_spec_v2` and `filter_batch(v1_spec_info_filtered=...)` do "
    "not demote them (a fork's own definitions outside `sglang.*` do). One informational finding per "
    "vendored package, on its `__init__.py`, names each such definition still present: merge upstream's "
    "release into the vendored tree first (it deletes them), then run the tool on the code that uses it. "
    "Informational: no fix, no TODO, no exit code, never in a baseline. After: the vendored module as "
    "the merged release has it.",
    before=(
        "# file: sglang/__init__.py\n"
        "# file: sglang/srt/__init__.py\n"
        "# file: sglang/srt/managers/__init__.py\n"
        "# file: sglang/srt/managers/schedule_batch.py\n"
        "class ScheduleBatch:\n"
        "    def __init__(self, spec_algorithm):\n"
        "        self.spec_algorithm = spec_algorithm\n"
        "\n"
        "    @property\n"
        "    def is_spec_v2(self):\n"
        "        return not self.spec_algorithm.is_none()"
    ),
    after=(
        "# file: sglang/__init__.py\n"
        "# file: sglang/srt/__init__.py\n"
        "# file: sglang/srt/managers/__init__.py\n"
        "# file: sglang/srt/managers/schedule_batch.py\n"
        "class ScheduleBatch:\n"
        "    def __init__(self, spec_algorithm):\n"
        "        self.spec_algorithm = spec_algorithm"
    ),
)

#: Every entry: the changes, their text mirrors, the history code and the fork codes, in the
#: order ``dflash-migrate rules`` and MIGRATION.md list them.
ENTRIES: tuple[Entry, ...] = (
    *CHANGES,
    *(text_entry(mirror, CHANGES, DFLASH_WORKER) for mirror in TEXT_MIRRORS),
    HISTORY_ENTRY,
    *FORK_ENTRIES,
    VENDORED_ENTRY,
)


#: Entries whose safe fix rewrites a use as upstream did, assuming the member means what
#: sglang's did (issue 46): a fork's own definition of the member outside ``sglang.*`` breaks
#: that premise, and uses of it get the fix as unsafe (``migrator.python.rules.spec_v2_flags``).
SGLANG_MEANING_CODES = ("DFM205", "DFM206")

#: Entries whose safe fix drops a keyword, assuming the callee is sglang's: a fork's own
#: function taking the keyword (outside ``sglang.*``) breaks that premise (``rules.filter_batch``).
SGLANG_MEANING_PARAMETER_CODES = ("DFM112",)


#: What ``SGLANG_ENABLE_SPEC_V2`` does in each release range (for MIGRATION.md and doctor).
ENV_SPEC_V2_MEANING: tuple[EnvMeaning, ...] = (
    EnvMeaning(VersionRange("0.5.8", "0.5.10"), "EnvBool, default False. EAGLE family: True forces overlap on (V2 worker), "
               "False forces it off (V1 worker). No DFLASH in these releases."),
    EnvMeaning(VersionRange("0.5.11", "0.5.12"), "EnvBool, default True. EAGLE family: falsy turns overlap off (V1 EAGLE "
               "workers). DFLASH: no effect; DFLASH always runs V1 `DFlashWorker` with overlap off."),
    EnvMeaning(VersionRange("0.5.13", "0.5.13"), "EnvBool, default True. EAGLE family: falsy sets "
               "`disable_overlap_schedule=True` (V2 worker, synchronous). DFLASH: no effect (always V1, overlap off)."),
    EnvMeaning(VersionRange("0.5.14", "0.5.20"), "Removed from `Envs`. Setting it to any value only logs a warning; "
               "DFLASH runs `DFlashWorkerV2` with overlap on unless `--disable-overlap-schedule`."),
    EnvMeaning(VersionRange("0.5.21"), "Silently ignored. Only `--disable-overlap-schedule` selects the synchronous V2 path."),
)
