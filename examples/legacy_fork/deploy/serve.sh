#!/usr/bin/env bash
# Production launcher for the DFLASH deployment.
set -euo pipefail

export SGLANG_ENABLE_SPEC_V2=0

python -m sglang.launch_server \
  --model-path meta-llama/Llama-3.1-8B-Instruct \
  --speculative-algorithm DFLASH \
  --speculative-draft-model-path z-lab/LLaMA3.1-8B-Instruct-DFlash-UltraChat \
  --port 30000
