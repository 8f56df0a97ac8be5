"""The catalog's account of the 0.5.13 -> 0.5.14 wheel diff: every in-scope removal that is
not one of its names (:mod:`migrator.verify.wheel_diff` finds them), with why.

The catalog (:mod:`migrator.catalog`) holds what the tool migrates. The wheel diff also
shows removals the catalog does not name; each is listed here, either handled by a rule
under another spelling (``code``) or not covered (``code`` None) with the reason. A removed
name is spelled here and nowhere else in the tool. MIGRATION.md renders this list
(:mod:`migrator.catalog.docs`); ``tests/test_catalog_scope.py`` fails when the wheel diff shows an
in-scope removal that is neither a catalog name nor listed here, and when an item here is no
longer in the diff.

Data only: nothing imports this on the lint path.
"""

from __future__ import annotations

from typing import NamedTuple

from migrator.base.records import record

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


def note_for(name: str) -> ScopeNote | None:
    return next((note for note in SCOPE_NOTES if note.name == name), None)
