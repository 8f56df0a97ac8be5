"""End-to-end latency against a running kestrel-serve deployment (OpenAI-compatible API)."""
from __future__ import annotations

import argparse
import json
import statistics
import time

import requests

CHAT_ROUTE = "/v1/chat/completions"


def one(base_url: str, prompt: str, ca_bundle: str | None) -> float:
    t0 = time.perf_counter()
    r = requests.post(
        base_url + CHAT_ROUTE,
        json={"model": "default", "messages": [{"role": "user", "content": prompt}], "max_tokens": 256},
        timeout=120,
        verify=ca_bundle or True,
    )
    r.raise_for_status()
    return time.perf_counter() - t0


def server_info(base_url: str) -> dict:
    info = requests.get(base_url + "/get_server_info", timeout=10, verify=False).json()
    return {k: info.get(k) for k in ("speculative_algorithm", "speculative_num_draft_tokens", "disable_overlap_schedule")}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--url", default="https://dflash.kestrel.internal")
    p.add_argument("--ca-bundle", default=None)
    p.add_argument("--n", type=int, default=64)
    a = p.parse_args()
    lat = [one(a.url, "Write a haiku about draft models.", a.ca_bundle) for _ in range(a.n)]
    print(json.dumps({"p50": statistics.median(lat), "server": server_info(a.url)}))


if __name__ == "__main__":
    main()
