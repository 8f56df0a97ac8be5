"""The shim against real sglang releases from PyPI (installed ``--no-deps`` per release, CPU only).

The environments are built by ``tests/sglang_env.py`` under ``migrator.releases.wheels.cache_dir()``
(first run: several minutes; later runs reuse them). Bypasses, both outside SGLang's code
and explained in ``tests/shim_sglang_probe.py``: CUDA is reported available
(``_handle_dflash`` rejects non-CUDA devices from 0.5.16 and the V2 worker's imports
take ``is_cuda()`` branches), and torchvision/torchaudio/sgl_kernel are inert stand-ins
(their wheels cannot load beside the CPU torch build; nothing checked here calls them).
"""

from __future__ import annotations

import json

import pytest
import sglang_env

from migrator import catalog

pytestmark = pytest.mark.slow

V2_RELEASES = ("0.5.17", "0.5.23")


@pytest.fixture(scope="module")
def tiny_models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Config-only target and DFLASH draft (ServerArgs reads configs, never weights)."""
    root = tmp_path_factory.mktemp("models")
    target = root / "target"
    draft = root / "draft"
    target.mkdir()
    draft.mkdir()
    (target / "config.json").write_text(json.dumps({
        "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
        "num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 4, "vocab_size": 256,
        "max_position_embeddings": 512, "rms_norm_eps": 1e-6, "torch_dtype": "bfloat16"}))
    (draft / "config.json").write_text(json.dumps({
        "architectures": ["DFlashDraftModel"], "model_type": "qwen3", "hidden_size": 64, "num_hidden_layers": 1,
        "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 128,
        "hidden_act": "silu", "rms_norm_eps": 1e-6, "max_position_embeddings": 512, "vocab_size": 256,
        "torch_dtype": "bfloat16", "block_size": 4, "num_target_layers": 4,
        "dflash_config": {"block_size": 4, "target_layer_ids": [1], "num_target_layers": 4, "mask_token_id": 255}}))
    return {"target": str(target), "draft": str(draft)}


def _kwargs(models: dict[str, str], **extra: object) -> dict[str, object]:
    return {"model_path": models["target"], "speculative_algorithm": "DFLASH",
            "speculative_draft_model_path": models["draft"], **extra}


@pytest.mark.parametrize("version", V2_RELEASES)
def test_old_names_are_the_real_v2_classes(version: str) -> None:
    result = sglang_env.probe(version, "aliases")
    assert result["status"] == "active"
    assert result["worker_is_v2"] and result["worker_again_same"]
    assert result["worker_qualname"] == catalog.V2_WORKER_CLASS
    assert result["draft_is_v2"] and result["draft_qualname"] == catalog.V2_DRAFT_INPUT
    codes = [w["message"].split(":")[0] for w in result["warnings"]]
    assert codes == ["DFM101", "DFM102", "DFM103"], codes  # each once, although DFlashWorker was read twice
    for warning in result["warnings"]:
        assert catalog.DOC in warning["message"]
    assert catalog.V2_WORKER_CLASS.rpartition(".")[2] in result["warnings"][1]["message"]
    errors = result["errors"]
    assert errors["DFM104"]["shim"] and errors["DFM104"]["type"] == "RemovedNameError"
    assert errors["DFM104"]["message"].startswith("DFM104: ")
    assert errors["DFM105_hasattr"] is False and errors["DFM105"]["shim"]
    # Outside strict mode prepare_for_verify is untouched (SGLang calls it every decode step):
    # both call forms reach SGLang's own code; the V1 form is the codemod's/lint's DFM110.
    assert errors["DFM110"] is None or not errors["DFM110"]["shim"]
    assert errors["DFM110_v2_form"] is None or not errors["DFM110_v2_form"]["shim"]
    assert result["after_uninstall_verify_member"] is False and result["after_uninstall_has_module"] is False


@pytest.mark.parametrize("version", V2_RELEASES)
def test_strict_mode_rejects_the_v1_prepare_for_verify_form(version: str) -> None:
    result = sglang_env.probe(version, "strict-prepare", env={"DFLASH_MIGRATE_SHIM_STRICT": "1"})
    assert result["wrapped"] is True
    assert result["v1_form"]["shim"] and result["v1_form"]["type"] == "RemovedCallFormError"
    assert result["v2_form"] is None or not result["v2_form"]["shim"]  # SGLang's own code ran


def test_v1_release_is_left_alone() -> None:
    result = sglang_env.probe("0.5.13", "v1", fake_cuda=False)  # flashinfer.comm needs libcudart under fake CUDA
    assert result["status"].startswith("inactive") and result["active"] is False
    assert "ShimFinder" not in result["finders"]
    assert result["worker_origin"].endswith("dflash_worker.py")  # the real V1 module
    assert result["draft_module"] == catalog.DFLASH_INFO and result["info_getattr_patched"] is False
    assert result["warnings"] == []


def test_v1_release_keeps_its_own_env_meaning(tiny_models: dict[str, str]) -> None:
    result = sglang_env.probe("0.5.13", "server-args", {"kwargs": _kwargs(tiny_models)}, env={catalog.ENV_SPEC_V2: "1"})
    assert "error" not in result, result
    assert result["resolved"] is True  # 0.5.13 forces V1 DFLASH to non-overlap by itself
    assert result["warnings"] == []  # and the shim says nothing about the variable


#: every release with the V2 worker the tests build a CPU environment for
ALL_V2_RELEASES = tuple(r for r in catalog.RELEASES if catalog.parse_version(r) >= catalog.parse_version(
    catalog.FIRST_V2_RELEASE))
#: from 0.5.20 ServerArgs is a msgspec Struct: a bare ServerArgs(...) cannot tell an explicit
#: False from the default (docs/shim.md); Engine(...) and the command line can
BARE_EXPLICIT_FROM = "0.5.20"


def _cases(models: dict[str, str]) -> list[dict]:
    env0 = {catalog.ENV_SPEC_V2: "0"}
    argv = ["--model-path", models["target"], "--speculative-algorithm", "DFLASH",
            "--speculative-draft-model-path", models["draft"]]
    cases: list[dict] = [{"name": "unset", "kwargs": _kwargs(models)}]
    for value in ("0", "False", "no", "1"):
        cases.append({"name": f"env={value}", "env": {catalog.ENV_SPEC_V2: value}, "kwargs": _kwargs(models)})
    cases += [
        {"name": "explicit-false", "env": env0, "kwargs": _kwargs(models, disable_overlap_schedule=False)},
        {"name": "explicit-true", "env": env0, "kwargs": _kwargs(models, disable_overlap_schedule=True)},
        {"name": "engine", "env": env0, "engine": _kwargs(models)},
        {"name": "engine-explicit-false", "env": env0, "engine": _kwargs(models, disable_overlap_schedule=False)},
        {"name": "cli", "env": env0, "argv": argv},
        {"name": "cli-flag", "env": env0, "argv": [*argv, catalog.DISABLE_OVERLAP_FLAG]},
    ]
    return cases


@pytest.mark.parametrize("version", ALL_V2_RELEASES)
def test_env_and_explicit_values_on_every_release(version: str, tiny_models: dict[str, str]) -> None:
    """One probe process per release runs every case (one shared environment per release)."""
    result = sglang_env.probe(version, "server-args-matrix", {"cases": _cases(tiny_models)})
    assert result["status"] == "active"
    errors = {name: case["error"] for name, case in result.items() if name != "status" and "error" in case}
    assert not errors, errors
    bare_explicit_known = catalog.parse_version(version) < catalog.parse_version(BARE_EXPLICIT_FROM)
    expected = {"unset": False, "env=0": True, "env=False": True, "env=no": True, "env=1": False,
                "explicit-true": True, "engine": True, "engine-explicit-false": False, "cli": True, "cli-flag": True,
                "explicit-false": not bare_explicit_known}
    got = {name: result[name]["resolved"] for name in expected}
    assert got == expected, got
    assert result["unset"]["warnings"] == []
    assert all(len(result[f"env={v}"]["warnings"]) == 1 for v in ("0", "False", "no", "1"))
    assert "explicitly" in result["engine-explicit-false"]["warnings"][0]["message"]
    if bare_explicit_known:
        assert "explicitly" in result["explicit-false"]["warnings"][0]["message"]


def test_strict_mode_fails_the_launch(tiny_models: dict[str, str]) -> None:
    result = sglang_env.probe("0.5.23", "server-args", {"kwargs": _kwargs(tiny_models)},
                              env={catalog.ENV_SPEC_V2: "0", "DFLASH_MIGRATE_SHIM_STRICT": "1"})
    assert result["error"]["type"] == "DFlashMigrationWarning"
    assert "DFM201" in result["error"]["message"]


def test_without_shim_sglang_ignores_the_variable(tiny_models: dict[str, str]) -> None:
    """The behaviour change the shim exists for, shown on the real 0.5.23 code."""
    result = sglang_env.probe("0.5.23", "server-args", {"kwargs": _kwargs(tiny_models), "install": False},
                              env={catalog.ENV_SPEC_V2: "0"})
    assert "error" not in result, result
    assert result["resolved"] is False


def test_shim_launch_server_hands_over_to_sglangs_launcher() -> None:
    proc = sglang_env.run_in_release("0.5.23", ["-m", "shims.launch_server", "--help"])
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "--speculative-algorithm" in proc.stdout and "--disable-overlap-schedule" in proc.stdout
