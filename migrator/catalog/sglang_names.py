"""The sglang names the entries and the rules spell: the V1 and V2 modules and classes,
the settings, the release ranges of the two workers.
"""

from __future__ import annotations

from migrator.catalog.versions import FIRST_V2_RELEASE, VersionRange

SPECULATIVE = "sglang.srt.speculative"
DFLASH_WORKER = f"{SPECULATIVE}.dflash_worker"
DFLASH_WORKER_V2 = f"{SPECULATIVE}.dflash_worker_v2"
DFLASH_INFO = f"{SPECULATIVE}.dflash_info"
DFLASH_INFO_V2 = f"{SPECULATIVE}.dflash_info_v2"
DFLASH_UTILS = f"{SPECULATIVE}.dflash_utils"
KERNEL_OPS_DFLASH = "sglang.kernels.ops.speculative.dflash"
TABLE_QK_NORM_ROPE = "sglang.kernels.ops.attention.table_qk_norm_rope"
V1_WORKER_CLASS = f"{DFLASH_WORKER}.DFlashWorker"
V2_WORKER_CLASS = f"{DFLASH_WORKER_V2}.DFlashWorkerV2"
V1_DRAFT_INPUT = f"{DFLASH_INFO}.DFlashDraftInput"
V2_DRAFT_INPUT = f"{DFLASH_INFO_V2}.DFlashDraftInputV2"
VERIFY_INPUT = f"{DFLASH_INFO}.DFlashVerifyInput"
SPEC_ALGORITHM = f"{SPECULATIVE}.spec_info.SpeculativeAlgorithm"
MODEL_RUNNER = "sglang.srt.model_executor.model_runner.ModelRunner"
SPEC_AUX_CONFIG = "sglang.srt.model_executor.model_runner_components.spec_aux_hidden_state.SpecAuxHiddenStateConfig"
GENERATION_RESULT = "sglang.srt.managers.utils.GenerationBatchResult"
SERVER_ARGS = "sglang.srt.server_args.ServerArgs"
ENGINE_CALLABLES = ("sglang.Engine", "sglang.srt.entrypoints.engine.Engine", SERVER_ARGS)
LAUNCH_SERVER_MODULE = "sglang.launch_server"
ENV_SPEC_V2 = "SGLANG_ENABLE_SPEC_V2"
DISABLE_OVERLAP_ARG = "disable_overlap_schedule"
DISABLE_OVERLAP_FLAG = "--disable-overlap-schedule"
#: The keywords of V1 ``DFlashVerifyInput.verify(*, batch, logits_output, page_size)``: the
#: call form that names it on a receiver of unknown type.
V1_VERIFY_KEYWORDS = ("batch", "logits_output", "page_size")
#: The calls that reach a member by its name (``rules.reflection_names``).
REFLECTION_CALLS = ("delattr", "getattr", "hasattr", "setattr")
V1 = VersionRange("0.5.11", "0.5.13")
V2 = VersionRange(FIRST_V2_RELEASE)
