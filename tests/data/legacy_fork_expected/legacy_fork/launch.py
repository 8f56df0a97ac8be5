"""Launch the fork's DFLASH deployment (offline engine and HTTP server)."""

from __future__ import annotations

import os
import subprocess
import sys

import sglang

# DFLASH ran synchronously on 0.5.13; keep it that way.
# dflash-migrate: removed `os.environ["SGLANG_ENABLE_SPEC_V2"] = "0"` (DFM201)
os.environ.setdefault("SGLANG_ENABLE_SPEC_V2_METRICS", "1")  # our own flag, not SGLang's

MODEL = "meta-llama/Llama-3.1-8B-Instruct"
DRAFT = "z-lab/LLaMA3.1-8B-Instruct-DFlash-UltraChat"


def offline_engine() -> "sglang.Engine":
    return sglang.Engine(
        model_path=MODEL,
        speculative_algorithm="DFLASH",
        speculative_draft_model_path=DRAFT,
        disable_overlap_schedule=True,
    )


def serve(port: int = 30000) -> subprocess.Popen:
    command = [
        sys.executable, "-m", "sglang.launch_server",
        "--model-path", MODEL,
        "--speculative-algorithm", "DFLASH",
        "--speculative-draft-model-path", DRAFT,
        "--speculative-draft-window-size", "512",
        "--port", str(port), "--disable-overlap-schedule",
    ]
    return subprocess.Popen(command, env={**os.environ})
