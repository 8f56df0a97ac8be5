"""Tiny hand-built target and DFlash draft models for the GPU tests (no hub downloads).

Needs only torch and safetensors. ``write_models(outdir)`` writes::

    outdir/target/{config.json, generation_config.json, model.safetensors}   Qwen3ForCausalLM
    outdir/draft/{config.json, generation_config.json, model.safetensors}    DFlashDraftModel
    outdir/pi.json                                                           greedy successor table

How the weights are chosen, so that greedy decoding is exact and predictable on any
attention kernel while the draft is accepted on some prompts and rejected on others:

* vocabulary 2048, hidden 256, 4 layers, 4 query / 2 KV heads of 64, bf16.
* Every token embedding is a random unit vector (dims 1..255) plus a flag in dim 0:
  +0.5 for a real token, -0.5 for the mask token 2047.
* ``pi`` is a permutation of the real tokens in which 1000..1099 are fixed points and
  every other token moves. ``lm_head`` row ``pi(s)`` is ``ALPHA * e_s`` (flag zeroed), so
  after token ``t`` the target's greedy choice is ``pi(t)`` with a margin of ~20 logits.
  Attention and MLP weights are random but small, so they exercise the KV cache and the
  kernels without moving the argmax.
* The DFlash draft (one non-causal layer) makes every mask position of a block attend to
  block position 0 (the bonus token) and copy its embedding; the borrowed target
  ``lm_head`` then proposes ``pi(bonus)`` at each position. Context keys are exactly 0,
  so they receive no attention. A prompt ending in a fixed point therefore has all
  ``block_size - 1`` drafts accepted per step (accept length 8); any other prompt gets
  exactly one accepted draft per step (accept length 2).
* ``mask_token_id`` is explicit in the draft config, which is what lets the engine run
  with ``skip_tokenizer_init=True``.

The construction is deterministic (seeded); ``MODEL_DIGESTS`` are the expected sha256
prefixes of the two safetensors files and ``write_models`` checks them.
"""

from __future__ import annotations

import hashlib
import json
import os
import random

VOCAB = 2048
HIDDEN = 256
INTERMEDIATE = 512
LAYERS = 4
HEADS = 4
KV_HEADS = 2
HEAD_DIM = 64
MASK_ID = VOCAB - 1
FIXED_POINTS = range(1000, 1100)
ALPHA = 32.0
TARGET_WEIGHT_STD = 0.02
BLOCK_SIZE = 8
DRAFT_LAYERS = 1
DRAFT_KV_HEADS = 4
TARGET_LAYER_IDS = [1, 2]
COPY_GAIN = 4.0
DRAFT_ROPE_THETA = 1e9
SEED = 1234

#: sha256[:16] of target and draft model.safetensors as built by this module.
MODEL_DIGESTS: dict[str, str] | None = {"target": "d4f234aad0275140", "draft": "38aa09cefd828517"}


def _build(seed: int = SEED):
    import torch

    gen = torch.Generator().manual_seed(seed)

    def normal(*shape, std=1.0):
        return torch.randn(*shape, generator=gen, dtype=torch.float32) * std

    emb = normal(VOCAB, HIDDEN)
    emb[:, 0] = 0.0
    emb = emb / emb.norm(dim=1, keepdim=True)
    emb[:, 0] = 0.5
    emb[MASK_ID, 0] = -0.5

    fixed = torch.tensor(list(FIXED_POINTS))
    fixed_set = set(FIXED_POINTS)
    moving = torch.tensor([t for t in range(VOCAB - 1) if t not in fixed_set])
    order = moving[torch.randperm(len(moving), generator=gen)]
    pi = torch.arange(VOCAB)
    pi[order] = torch.roll(order, -1)  # one long cycle: no moving token maps to itself
    pi[fixed] = fixed

    flagless = emb.clone()
    flagless[:, 0] = 0.0
    lm_head = torch.zeros(VOCAB, HIDDEN)
    real = torch.arange(VOCAB - 1)
    lm_head[pi[real]] = ALPHA * flagless[real]  # mask row stays 0: never generated

    t = {
        "model.embed_tokens.weight": emb,
        "lm_head.weight": lm_head,
        "model.norm.weight": torch.ones(HIDDEN),
    }
    s = TARGET_WEIGHT_STD
    for i in range(LAYERS):
        p = f"model.layers.{i}."
        t[p + "input_layernorm.weight"] = torch.ones(HIDDEN)
        t[p + "post_attention_layernorm.weight"] = torch.ones(HIDDEN)
        t[p + "self_attn.q_proj.weight"] = normal(HEADS * HEAD_DIM, HIDDEN, std=s * 4)
        t[p + "self_attn.k_proj.weight"] = normal(KV_HEADS * HEAD_DIM, HIDDEN, std=s * 4)
        t[p + "self_attn.v_proj.weight"] = normal(KV_HEADS * HEAD_DIM, HIDDEN, std=s)
        t[p + "self_attn.o_proj.weight"] = normal(HIDDEN, HEADS * HEAD_DIM, std=s)
        t[p + "self_attn.q_norm.weight"] = torch.ones(HEAD_DIM)
        t[p + "self_attn.k_norm.weight"] = torch.ones(HEAD_DIM)
        t[p + "mlp.gate_proj.weight"] = normal(INTERMEDIATE, HIDDEN, std=s)
        t[p + "mlp.up_proj.weight"] = normal(INTERMEDIATE, HIDDEN, std=s)
        t[p + "mlp.down_proj.weight"] = normal(HIDDEN, INTERMEDIATE, std=s)
    target = {k: v.to(torch.bfloat16).contiguous() for k, v in t.items()}

    # Draft: q/k read only the flag (dim 0) into the lowest-frequency RoPE pair, so a mask
    # query (+u) matches the real token of the block (+u) and nothing else; V and O are
    # identities, so the mask position receives the bonus token's embedding.
    rope_pair = [HEAD_DIM // 2 - 1, HEAD_DIM - 1]
    d = {}
    for i in range(DRAFT_LAYERS):
        p = f"layers.{i}."
        q = torch.zeros(HEADS * HEAD_DIM, HIDDEN)
        k = torch.zeros(DRAFT_KV_HEADS * HEAD_DIM, HIDDEN)
        for h in range(HEADS):
            for dim in rope_pair:
                q[h * HEAD_DIM + dim, 0] = -1.0
        for h in range(DRAFT_KV_HEADS):
            for dim in rope_pair:
                k[h * HEAD_DIM + dim, 0] = 1.0
        d[p + "self_attn.q_proj.weight"] = q
        d[p + "self_attn.k_proj.weight"] = k
        d[p + "self_attn.v_proj.weight"] = torch.eye(HIDDEN)
        d[p + "self_attn.o_proj.weight"] = torch.eye(HIDDEN)
        d[p + "self_attn.q_norm.weight"] = torch.full((HEAD_DIM,), COPY_GAIN)
        d[p + "self_attn.k_norm.weight"] = torch.full((HEAD_DIM,), COPY_GAIN)
        d[p + "input_layernorm.weight"] = torch.ones(HIDDEN)
        d[p + "post_attention_layernorm.weight"] = torch.ones(HIDDEN)
        d[p + "mlp.gate_proj.weight"] = normal(INTERMEDIATE, HIDDEN, std=0.02)
        d[p + "mlp.up_proj.weight"] = normal(INTERMEDIATE, HIDDEN, std=0.02)
        d[p + "mlp.down_proj.weight"] = torch.zeros(HIDDEN, INTERMEDIATE)
    d["norm.weight"] = torch.ones(HIDDEN)
    d["fc.weight"] = normal(HIDDEN, len(TARGET_LAYER_IDS) * HIDDEN, std=0.05)
    hidden_norm = torch.ones(HIDDEN)
    hidden_norm[0] = 0.0  # context features lose the flag -> their keys are exactly 0
    d["hidden_norm.weight"] = hidden_norm
    draft = {k: v.to(torch.bfloat16).contiguous() for k, v in d.items()}
    return target, draft, [int(x) for x in pi.tolist()]


def target_config() -> dict:
    return {
        "architectures": ["Qwen3ForCausalLM"],
        "model_type": "qwen3",
        "vocab_size": VOCAB,
        "hidden_size": HIDDEN,
        "intermediate_size": INTERMEDIATE,
        "num_hidden_layers": LAYERS,
        "num_attention_heads": HEADS,
        "num_key_value_heads": KV_HEADS,
        "head_dim": HEAD_DIM,
        "hidden_act": "silu",
        "max_position_embeddings": 4096,
        "rms_norm_eps": 1e-6,
        "rope_theta": 1000000.0,
        "rope_scaling": None,
        "rope_parameters": {"rope_type": "default", "rope_theta": 1000000.0},
        "attention_bias": False,
        "attention_dropout": 0.0,
        "tie_word_embeddings": False,
        "use_sliding_window": False,
        "sliding_window": None,
        "max_window_layers": LAYERS,
        "bos_token_id": MASK_ID,
        "eos_token_id": MASK_ID,  # never generated: its lm_head row is 0
        "torch_dtype": "bfloat16",
        "dtype": "bfloat16",
        "initializer_range": 0.02,
        "use_cache": True,
    }


def draft_config() -> dict:
    cfg = target_config()
    cfg.update(
        {
            "architectures": ["DFlashDraftModel"],
            "num_hidden_layers": DRAFT_LAYERS,
            "num_key_value_heads": DRAFT_KV_HEADS,
            "max_window_layers": DRAFT_LAYERS,
            "rope_theta": DRAFT_ROPE_THETA,
            "rope_parameters": {"rope_type": "default", "rope_theta": DRAFT_ROPE_THETA},
            "block_size": BLOCK_SIZE,
            "num_target_layers": LAYERS,
            "dflash_config": {"mask_token_id": MASK_ID, "target_layer_ids": TARGET_LAYER_IDS},
        }
    )
    return cfg


def write_models(outdir: str) -> dict:
    """Write both models under ``outdir``; returns ``{"target": sha16, "draft": sha16, ...}``."""
    from safetensors.torch import save_file

    target, draft, pi = _build()
    digests = {}
    for name, tensors, cfg in (("target", target, target_config()), ("draft", draft, draft_config())):
        mdir = os.path.join(outdir, name)
        os.makedirs(mdir, exist_ok=True)
        path = os.path.join(mdir, "model.safetensors")
        save_file(tensors, path, metadata={"format": "pt"})
        with open(os.path.join(mdir, "config.json"), "w") as f:
            json.dump(cfg, f, indent=1)
        with open(os.path.join(mdir, "generation_config.json"), "w") as f:
            json.dump({"eos_token_id": MASK_ID, "bos_token_id": MASK_ID}, f)
        with open(path, "rb") as f:
            digests[name] = hashlib.sha256(f.read()).hexdigest()[:16]
    with open(os.path.join(outdir, "pi.json"), "w") as f:
        json.dump(pi, f)
    if MODEL_DIGESTS is not None and digests != MODEL_DIGESTS:
        raise RuntimeError(f"tiny models differ from the reviewed build: {digests} != {MODEL_DIGESTS}")
    return {**digests, "dir": outdir}


def load_pi(outdir: str) -> list[int]:
    with open(os.path.join(outdir, "pi.json")) as f:
        return json.load(f)


def pi_chain(pi: list[int], last: int, n: int) -> list[int]:
    """The exact greedy continuation of a prompt ending in ``last``."""
    out, tok = [], last
    for _ in range(n):
        tok = pi[tok]
        out.append(tok)
    return out


# ---- prompts -------------------------------------------------------------------------


def mixed_prompts(n: int = 8, seed: int = 7) -> list[list[int]]:
    """``n`` prompts of 6-48 tokens; even ones end in a fixed point (every draft accepted),
    odd ones do not (one draft accepted per step): both accept paths in one batch."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        ids = [rng.randrange(0, MASK_ID) for _ in range(rng.randint(6, 48))]
        if i % 2 == 0:
            ids[-1] = rng.choice(list(FIXED_POINTS))
        else:
            while ids[-1] in FIXED_POINTS:
                ids[-1] = rng.randrange(0, MASK_ID)
        out.append(ids)
    return out


def accepting_prompts(n: int = 64, seed: int = 11) -> list[list[int]]:
    """``n`` prompts that all end in a fixed point: the throughput workload (accept length 8)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        ids = [rng.randrange(0, MASK_ID) for _ in range(rng.randint(8, 32))]
        ids[-1] = rng.choice(list(FIXED_POINTS))
        out.append(ids)
    return out


def expected_accept_length(prompt: list[int]) -> float:
    """Accept length (accepted drafts + bonus per verify step) the design predicts."""
    return float(BLOCK_SIZE) if prompt[-1] in FIXED_POINTS else 2.0


if __name__ == "__main__":
    import sys

    print(json.dumps(write_models(sys.argv[1] if len(sys.argv) > 1 else "dflash_models")))
