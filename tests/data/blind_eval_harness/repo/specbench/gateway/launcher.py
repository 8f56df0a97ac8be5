"""Spawn and supervise the sglang server processes behind the gateway."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Dict, List, Optional

SGLANG_ENV_DEFAULTS: Dict[str, str] = {
    "SGLANG_ENABLE_SPEC_V2": "0",
    "SGLANG_DISABLE_REQUEST_LOGGING": "1",
    "NCCL_DEBUG": "WARN",
}


@dataclass
class BackendSpec:
    model: str
    draft_model: Optional[str]
    port: int
    block_size: int = 16
    draft_window_size: Optional[int] = None
    extra_args: List[str] = field(default_factory=list)
    env: Dict[str, str] = field(default_factory=dict)


def build_command(spec: BackendSpec) -> List[str]:
    cmd = [
        sys.executable,
        "-m",
        "sglang.launch_server",
        "--model-path",
        spec.model,
        "--port",
        str(spec.port),
    ]
    if spec.draft_model:
        cmd += [
            "--speculative-algorithm",
            "DFLASH",
            "--speculative-draft-model-path",
            spec.draft_model,
            "--speculative-dflash-block-size",
            str(spec.block_size),
        ]
        if spec.draft_window_size:
            cmd += ["--speculative-dflash-draft-window-size", str(spec.draft_window_size)]
    return cmd + list(spec.extra_args)


def build_env(spec: BackendSpec) -> Dict[str, str]:
    env = dict(os.environ)
    env.update(SGLANG_ENV_DEFAULTS)
    env.update(spec.env)
    if spec.draft_model:
        # DFLASH has no V2 worker yet; make sure nobody turns the overlap path on.
        env["SGLANG_ENABLE_SPEC_V2"] = "false"
    return env


def launch(spec: BackendSpec) -> subprocess.Popen:
    cmd = build_command(spec)
    print("launching:", shlex.join(cmd), file=sys.stderr)
    return subprocess.Popen(cmd, env=build_env(spec))


def sanitized_env_report() -> Dict[str, str]:
    """Env vars we surface on /debug/env (never secrets)."""
    keys = ["SGLANG_ENABLE_SPEC_V2", "SGLANG_DISABLE_REQUEST_LOGGING", "CUDA_VISIBLE_DEVICES"]
    return {k: os.environ.get(k, "") for k in keys}
