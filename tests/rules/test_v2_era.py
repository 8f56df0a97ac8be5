"""Valid/invalid cases for migrator/python/rules/v2_era.py (and DFM111 on ``DFlashWorkerV2`` in
worker_subclass): changes inside the V2 era, reported when the target reaches them."""

from __future__ import annotations

from codemod_helpers import migrate, todo_lines

V1_IMPORT = "from sglang.srt.speculative.dflash_worker import DFlashWorker\n"
V2_IMPORT = "from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2\n"


def lines(source: str, code: str, target: str) -> list[int]:
    _, findings = migrate(source, target=target, mode="lint")
    return [f.line for f in findings if f.code == code]


def test_spec_adjust_coefficient_gone_after_0_5_15() -> None:
    source = """from sglang.srt.speculative.dflash_info import DFlashVerifyInput


class Own:
    def get_spec_adjust_token_coefficient(self):
        return (1, 1)

    def use(self, spec_info: DFlashVerifyInput, other):
        return self.get_spec_adjust_token_coefficient(), spec_info.get_spec_adjust_token_coefficient(), \\
            other.get_spec_adjust_token_coefficient()
"""
    assert lines(source, "DFM308", "0.5.15") == []
    assert lines(source, "DFM308", "0.5.16") == [9, 10]


def test_model_runner_dflash_attributes_move_to_spec_aux_config() -> None:
    source = """def layers(worker, config):
    a = worker.model_runner.dflash_target_layer_ids
    worker.draft_model_runner.dflash_use_aux_hidden_state = True
    b = worker.model_runner.spec_aux_config.dflash_draft_num_layers
    return a, b, config.dflash_target_layer_ids
"""
    assert migrate(source, target="0.5.15") == (source, [])
    new, findings = migrate(source, target="0.5.16")
    assert [f.line for f in findings] == [2, 3]
    assert "worker.model_runner.spec_aux_config.dflash_target_layer_ids" in new
    assert "worker.draft_model_runner.spec_aux_config.dflash_use_aux_hidden_state = True" in new
    assert "config.dflash_target_layer_ids" in new


def test_assigning_worker_properties() -> None:
    source = V1_IMPORT + V2_IMPORT + """

class Profiled(DFlashWorker):
    def wrap(self, profiled):
        self.draft_worker = profiled
        self.target_worker.model_runner = profiled
        return self.draft_worker


def swap(worker: DFlashWorkerV2, other, new):
    worker.target_worker = new
    other.target_worker = new
"""
    assert lines(source, "DFM315", "0.5.14") == [7, 13]
    new, _ = migrate(source, target="0.5.14")
    assert sum("DFM315" in line for line in todo_lines(new)) == 2


def test_num_correct_drafts_only_on_a_dflash_worker_result() -> None:
    source = V2_IMPORT + """from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2


class Metered(DFlashWorkerV2):
    def forward_batch_generation(self, batch, **kw):
        result = super().forward_batch_generation(batch, **kw)
        self.count(result.num_correct_drafts_per_req_cpu)
        return result


def eagle(worker: EAGLEWorkerV2, dflash: DFlashWorkerV2, batch, result):
    out = worker.forward_batch_generation(batch)
    return (out.num_correct_drafts_per_req_cpu, result.num_correct_drafts_per_req_cpu,
            dflash.forward_batch_generation(batch).num_correct_drafts_per_req_cpu)
"""
    assert lines(source, "DFM316", "0.5.14") == [8, 15]


def test_v2_worker_with_v1_rank_arguments_from_0_5_16() -> None:
    source = V2_IMPORT + """

def build(server_args, gpu_id, ps, nccl_port, target_worker):
    old = DFlashWorkerV2(server_args, gpu_id, tp_rank=0, dp_rank=None, moe_ep_rank=0, attn_cp_rank=0,
                         moe_dp_rank=0, nccl_port=nccl_port, target_worker=target_worker)
    new = DFlashWorkerV2(server_args, gpu_id, ps, nccl_port, target_worker)
    return old, new
"""
    assert lines(source, "DFM111", "0.5.15") == []
    assert lines(source, "DFM111", "0.5.16") == [5]


def test_the_v1_worker_s_own_definition_is_not_an_assignment_to_report() -> None:
    source = """class DFlashWorker:
    def __init__(self, target_worker):
        self.target_worker = target_worker


class Fast(DFlashWorker):
    def swap(self, new):
        self.target_worker = new
"""
    _, findings = migrate(source, target="0.5.17", mode="lint", module_name="sglang.srt.speculative.dflash_worker")
    assert [(f.line, f.code) for f in findings if f.code == "DFM315"] == [(8, "DFM315")]
