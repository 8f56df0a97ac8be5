"""FastAPI gateway: routes /v1/* to sglang backends, adds spec-decoding metrics."""

from __future__ import annotations

import os
from typing import Any, Dict

import httpx
from fastapi import FastAPI, HTTPException

from specbench.gateway.launcher import sanitized_env_report
from specbench.metrics import SpecMetrics

UPSTREAMS = os.environ.get("SPECBENCH_UPSTREAMS", "http://127.0.0.1:30000").split(",")
ENABLE_SPEC_V2_REPORT = os.environ.get("SPECBENCH_ENABLE_SPEC_V2_REPORT", "1") == "1"
VERIFY_TLS = os.environ.get("SPECBENCH_VERIFY_TLS", "1") == "1"

app = FastAPI(title="specbench-gateway")
metrics = SpecMetrics()


def _client() -> httpx.AsyncClient:
    return httpx.AsyncClient(timeout=600, verify=VERIFY_TLS)


@app.post("/v1/chat/completions")
async def chat(body: Dict[str, Any]) -> Dict[str, Any]:
    upstream = UPSTREAMS[hash(body.get("user", "")) % len(UPSTREAMS)]
    async with _client() as client:
        resp = await client.post(f"{upstream}/v1/chat/completions", json=body)
    if resp.status_code != 200:
        raise HTTPException(resp.status_code, resp.text)
    data = resp.json()
    metrics.observe(data.get("meta_info") or {})
    return data


@app.get("/debug/spec")
async def spec_report() -> Dict[str, Any]:
    if not ENABLE_SPEC_V2_REPORT:
        raise HTTPException(404, "disabled")
    async with _client() as client:
        info = (await client.get(f"{UPSTREAMS[0]}/get_server_info")).json()
    return {
        "speculative_algorithm": info.get("speculative_algorithm"),
        "block_size": info.get("speculative_num_draft_tokens"),
        "draft_window_size": info.get("speculative_draft_window_size"),
        "overlap": not info.get("disable_overlap_schedule", True),
        "acceptance": metrics.summary(),
        "env": sanitized_env_report(),
    }
