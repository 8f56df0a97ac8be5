"""The catalog's account of the 0.5.13 -> 0.5.14 wheel diff: every in-scope removal that is
not one of its names (:mod:`migrator.verify.wheel_diff` finds them), with why.

The catalog (:mod:`migrator.catalog`) holds what the tool migrates. The wheel diff also
shows removals the catalog does not name; each is listed here, either handled by a rule
under another spelling (``code``) or not covered (``code`` None) with the reason. A removed
name is spelled here and nowhere else in the tool. MIGRATION.md renders this list
(:mod:`migrator.catalog.docs`); ``tests/test_catalog_scope.py`` fails when the wheel diff shows an
in-scope removal that is neither a catalog name nor listed here, and when an item here is no
longer in the diff.

``RELEASE_NOTES`` does the same for every consecutive pair of releases from 0.5.11 on, on the
narrower DFLASH surface of :func:`migrator.verify.wheel_diff.surface` (``tests/test_release_diffs.py``).

Data only: nothing imports this on the lint path.
"""

from __future__ import annotations

from migrator.base.records import NamedTuple, record

#: The releases the list accounts for.
DIFF_FROM, DIFF_TO = "0.5.13", "0.5.14"

_SPEC = "sglang.srt.speculative"
_OTHER_ALGORITHM = ("another algorithm's verify path (the same V1 -> V2 unification for {algo}); this tool migrates "
                    "DFLASH. `dflash-migrate verify` reports any use of it.")


@record
class ScopeNote(NamedTuple):
    """``name`` (dotted; a parameter is ``func(param)``) from the wheel diff: handled by rule
    ``code`` under another spelling, or (``code`` None) not covered, because ``reason``."""

    name: str
    code: str | None
    reason: str


SCOPE_NOTES: tuple[ScopeNote, ...] = (
    ScopeNote("sglang.srt.environ.Envs.SGLANG_ENABLE_SPEC_V2", "DFM202",
              "The `Envs` class attribute is what `envs.SGLANG_ENABLE_SPEC_V2` reads (DFM202); setting the variable "
              "is DFM201."),
    ScopeNote(f"{_SPEC}.adaptive_spec_params.validate_adaptive_initial_steps", None,
              "Adaptive speculative parameters (EAGLE family), not the DFLASH V1 path: 0.5.14 validates the steps in "
              "`speculative_hook._init_adaptive_speculative_params`. It is in scope only because its caller "
              "`handle_speculative_decoding` also reads `SGLANG_ENABLE_SPEC_V2`. `verify` reports a use."),
    ScopeNote(f"{_SPEC}.dflash_info.DFlashDraftInput.bonus_tokens", None,
              "Only for target 0.5.14: V1's `bonus_tokens` (named so from 0.5.12) is `verified_id` on "
              "`DFlashDraftInputV2` in 0.5.14 and `bonus_tokens` again from 0.5.15 (DFM301). A rename back and forth "
              "for one release is not worth a rule; target 0.5.15+ or run `verify --target-version 0.5.14`."),
    ScopeNote(f"{_SPEC}.eagle_info.EagleVerifyInput.verify", None, _OTHER_ALGORITHM.format(algo="EAGLE")),
    ScopeNote(f"{_SPEC}.eagle_info.EagleVerifyOutput", None, _OTHER_ALGORITHM.format(algo="EAGLE")),
    ScopeNote(f"{_SPEC}.eagle_worker_v2.EAGLEWorkerV2._mamba_verify_update", None,
              _OTHER_ALGORITHM.format(algo="EAGLE")),
    ScopeNote(f"{_SPEC}.frozen_kv_mtp_info.FrozenKVMTPVerifyInput.verify", None,
              _OTHER_ALGORITHM.format(algo="FROZEN_KV_MTP")),
    ScopeNote(f"{_SPEC}.frozen_kv_mtp_info.FrozenKVMTPVerifyOutput", None,
              _OTHER_ALGORITHM.format(algo="FROZEN_KV_MTP")),
    ScopeNote(f"{_SPEC}.frozen_kv_mtp_worker", None,
              "FROZEN_KV_MTP's own V1 worker module (replaced by `frozen_kv_mtp_worker_v2.FrozenKVMTPWorkerV2`); "
              "this tool migrates DFLASH. `verify` reports an import of it."),
    ScopeNote(f"{_SPEC}.spec_info.SpecInputType.FROZEN_KV_MTP_DRAFT_EXTEND", None,
              _OTHER_ALGORITHM.format(algo="FROZEN_KV_MTP")),
    *(ScopeNote(f"{_SPEC}.ngram_info.NgramVerifyInput.{member}", None, _OTHER_ALGORITHM.format(algo="NGRAM"))
      for member in ("accept_indices", "num_accept_tokens", "num_correct_drafts", "verify")),
    ScopeNote(f"{_SPEC}.ngram_worker.add_output_logprobs_for_spec_v1", None,
              "The spec-v1 logprob helper (`sglang.srt.layers.utils.logprob`) is gone in 0.5.14 with NGRAM's V1 "
              "path; " + _OTHER_ALGORITHM.format(algo="NGRAM")),
)


# ---- every consecutive pair of releases, on the DFLASH surface (issue 44) ------------------
#
# ``migrator.verify.wheel_diff.surface`` reads the DFLASH surface of each release and
# ``surface_changes`` what the next release removes or changes on it. Every change is a
# catalog name, the replacement a catalog entry names, or one of these notes (the release
# where it changed, and why it is not an entry). ``tests/test_release_diffs.py`` checks both
# ways on the wheels.


@record
class ReleaseNote(NamedTuple):
    """``name`` (dotted; a parameter is ``callable(param)``; a flag ``--x``; an environment
    variable its name) changed in ``release`` and is not a catalog entry, because ``reason``."""

    name: str
    release: str
    reason: str


_V1_ERA = ("changed between two V1 releases; the V1 classes are gone from 0.5.14 (DFM101-DFM104), so a fork moving "
           "to V2 rewrites this use by hand under their TODO, and `verify --target-version` reports it")
_REEXPORT = ("a re-export through `dflash_info` of the function DFM303/DFM304 rename in `dflash_utils`, dropped in "
             "0.5.12; the catalog migrates the home spelling, `verify` reports an import through `dflash_info`")
_V2_STATE = ("state the V2 worker or draft input keeps for itself (set in its own methods, read by sglang's own "
             "scheduler and worker), not a name a fork passes or gets back; the tool has no rewrite for it and "
             "`verify --target-version` reports a fork that reads it")
_RANKS = ("the rank attributes go with the constructor's rank keywords (DFM111 rewrites the construction: ranks come "
          "from `ps` in 0.5.16-0.5.20 and from `runtime_context.get_parallel()` from 0.5.21); a read of the "
          "attribute is left to `verify --target-version`")
_KERNEL_MODULE = ("a Triton kernel module holding only private functions (merged into `triton_ops.dflash` in 0.5.15, "
                  "moved to `sglang.kernels.ops.speculative.dflash` in 0.5.16): nothing public to import")
_REFILL = ("the prefill-refill knob of 0.5.14 (`Envs.SGLANG_DFLASH_PREFILL_REFILL_TARGET` and the helpers that read "
           "it), a tuning choice with no successor to write; `verify` reports the helpers and the `Envs` member")
_OTHER_MODULE = ("an import of a DFLASH name inside another algorithm's module (DSPARK, UNO), not a spelling a fork "
                 "imports from")
_SCHEDULER_HOOK = ("a hook sglang's own scheduler, attention backends or cuda-graph runner call on the speculative "
                   "classes, not a call a fork makes; an override in a fork follows the new signature by hand, and "
                   "`verify` reports a removed one (DFM901)")

RELEASE_NOTES: tuple[ReleaseNote, ...] = (
    ReleaseNote(f"{_SPEC}.dflash_info.DFlashVerifyInput.last_loc", "0.5.12", _V1_ERA),
    ReleaseNote(f"{_SPEC}.dflash_info.compute_dflash_accept_len_and_bonus", "0.5.12", _REEXPORT),
    ReleaseNote(f"{_SPEC}.dflash_info.compute_dflash_sampling_accept_len_and_bonus", "0.5.12", _REEXPORT),
    *(ReleaseNote(f"{_SPEC}.dflash_info.{cls}.get_spec_adjusted_global_num_tokens({param})", "0.5.13", _V1_ERA)
      for cls in ("DFlashDraftInput", "DFlashVerifyInput") for param in ("forward_batch", "batch")),
    ReleaseNote("sglang.srt.environ.Envs.SGLANG_DFLASH_PREFILL_REFILL_TARGET", "0.5.15", _REFILL),
    ReleaseNote(f"{_SPEC}.dflash_utils.resolve_dflash_prefill_refill_target", "0.5.15", _REFILL),
    ReleaseNote(f"{_SPEC}.dflash_utils.should_delay_dflash_prefill_for_batching", "0.5.15", _REFILL),
    ReleaseNote("SGLANG_DFLASH_PREFILL_REFILL_TARGET", "0.5.21",
                "the variable of the 0.5.14 prefill-refill knob (its `Envs` entry went in 0.5.15); the last mention of "
                "the name left the wheel in 0.5.21; setting it does nothing and harms nothing"),
    *(ReleaseNote(f"{_SPEC}.dflash_info_v2.DFlashDraftInputV2.{member}", "0.5.15", _V2_STATE)
      for member in ("cur_allocated_seq_lens_cpu", "direct_carry_valid", "planning_seq_lens_cpu",
                     "planning_seq_lens_sum", "verify_done")),
    ReleaseNote(f"{_SPEC}.triton_ops.dflash_accept_bonus", "0.5.15", _KERNEL_MODULE),
    ReleaseNote(f"{_SPEC}.triton_ops.dflash_prepare_block", "0.5.15", _KERNEL_MODULE),
    ReleaseNote(f"{_SPEC}.triton_ops.dflash", "0.5.16", _KERNEL_MODULE),
    ReleaseNote(f"{_SPEC}.dflash_info.DFlashVerifyInput.get_spec_adjusted_global_num_tokens", "0.5.16",
                _SCHEDULER_HOOK),
    ReleaseNote(f"{_SPEC}.dflash_info_v2.DFlashDraftInputV2.get_spec_adjusted_global_num_tokens", "0.5.16",
                _SCHEDULER_HOOK),
    *(ReleaseNote(f"{_SPEC}.dflash_worker_v2.DFlashWorkerV2.{rank}", "0.5.16", _RANKS)
      for rank in ("attn_cp_rank", "dp_rank", "moe_dp_rank", "moe_ep_rank", "tp_rank")),
    ReleaseNote(f"{_SPEC}.dflash_worker_v2.DFlashWorkerV2.ps", "0.5.21", _RANKS),
    ReleaseNote(f"{_SPEC}.dflash_info_v2.DFlashDraftInputV2.filter_batch(has_been_filtered)", "0.5.17",
                _SCHEDULER_HOOK),
    *(ReleaseNote(f"{_SPEC}.dspark_components.kernels.dspark_accept.{name}", "0.5.17", _OTHER_MODULE)
      for name in ("DFlashDraftInputV2", "build_dflash_verify_target_probs", "compute_dflash_correct_drafts_and_bonus")),
    ReleaseNote("sglang.kernels.ops.speculative.dspark.dspark_accept.build_dflash_verify_target_probs", "0.5.22",
                _OTHER_MODULE),
    ReleaseNote(f"{_SPEC}.uno_utils.build_dflash_verify_target_probs", "0.5.22", _OTHER_MODULE),
    ReleaseNote(f"{_SPEC}.dflash_worker_v2.DFlashWorkerV2.war_fastpath_runner", "0.5.18", _V2_STATE),
    *(ReleaseNote(f"{_SPEC}.dflash_info_v2.DFlashDraftInputV2.{member}", "0.5.19", _V2_STATE)
      for member in ("reserved_seq_lens_cpu", "reserved_seq_lens_sum")),
    ReleaseNote(f"{_SPEC}.dflash_worker_v2.DFlashWorkerV2.draft_tp_context", "0.5.22", _V2_STATE),
    ReleaseNote(f"{_SPEC}.dflash_worker_v2.DFlashWorkerV2.draft_owns_attention", "0.5.23", _V2_STATE),
    ReleaseNote(f"{_SPEC}.spec_info.SpeculativeAlgorithm.build_disagg_draft_input(server_args)", "0.5.18",
                _SCHEDULER_HOOK),
    ReleaseNote(f"{_SPEC}.spec_info.SpeculativeAlgorithm.get_num_tokens_per_bs_for_target_verify", "0.5.21",
                _SCHEDULER_HOOK),
    ReleaseNote(f"{_SPEC}.dflash_disaggregation.build_dflash_family_disagg_draft_input", "0.5.20",
                "defined in 0.5.19 and called nowhere in that wheel; gone in 0.5.20"),
    *(ReleaseNote(f"{_SPEC}.dflash_worker_v2.DFlashWorkerV2.{method}", "0.5.21",
                  "inherited from `BaseSpecWorker`, which has no weight-update methods from 0.5.21; `verify "
                  "--target-version` reports a fork that calls them on the worker")
      for method in ("update_weights_from_disk", "update_weights_from_ipc")),
    *(ReleaseNote(f"{_SPEC}.dflash_info.DFlashVerifyInput.generate_attn_arg_prefill({param})", "0.5.22",
                  _SCHEDULER_HOOK)
      for param in ("req_pool_indices", "paged_kernel_lens", "paged_kernel_lens_sum", "req_to_token", "kv_start_idx",
                    "kv_indices_buf", "translator", "plan")),
)
