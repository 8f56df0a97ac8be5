#!/usr/bin/env bash
# Production launcher for the DFLASH deployment.
set -euo pipefail

python -m sglang.launch_server --disable-overlap-schedule \
  --model-path meta-llama/Llama-3.1-8B-Instruct \
  --speculative-algorithm DFLASH \
  --speculative-draft-model-path z-lab/LLaMA3.1-8B-Instruct-DFlash-UltraChat \
  --port 30000
