#!/usr/bin/env python3
"""Render docs/gpu/<run>/results.json (from tests/gpu on the H200) as the tables of docs/gpu-validation.md.

Usage: python scripts/gpu/report.py docs/gpu/<run>/results.json > /tmp/tables.md
"""

from __future__ import annotations

import json
import sys


def yn(x):
    return {True: "yes", False: "**no**", None: "–"}.get(x, str(x))


def short(cls):
    if not cls:
        return "–"
    return cls.rsplit(".", 1)[-1]


def main(path: str) -> None:
    r = json.load(open(path))
    env = r["environment"]
    print(f"- GPU: {env.get('gpu')}")
    print(f"- sglang {env.get('sglang')}, sgl_kernel {env.get('sgl_kernel')}, flashinfer {env.get('flashinfer')}, "
          f"torch {env.get('torch')}, triton {env.get('triton')}, transformers {env.get('transformers')}, "
          f"Python {env.get('python')}")
    print(f"- run date (UTC): {env.get('date_utc')}; matrix wall time {r.get('total_wall_s')} s "
          f"(wave 1: {r.get('wave1_wall_s')} s, wave 2: {r.get('wave2_wall_s')} s)")
    print(f"- tiny models sha256[:16]: {r.get('model_digests')}")
    print()
    print("| configuration | tokens = reference | = designed chain | scheduler `enable_overlap` | event loop "
          "| `disable_overlap_schedule` | worker class | subclass of `DFlashWorkerV2` | shim loaded in scheduler "
          "| accept length (full / one-draft prompts) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for label, v in r["verdicts"].items():
        s = v.get("scheduler") or {}
        acc = v.get("acceptance")
        acc_s = "–"
        if acc:
            full = sorted(set(acc["fixed_point_prompts_accept_length"]))
            part = sorted(set(acc["other_prompts_accept_length"]))
            acc_s = f"{acc['overall_accept_length']} ({'/'.join(map(str, full))} / {'/'.join(map(str, part))})"
        name = f"`{label}`" + (" (known gap)" if v.get("known_gap") and not v.get("ok") else "")
        if "error" in v:
            name += " **error**"
        print(f"| {name} | {yn(v.get('matches_reference'))} | {yn(v.get('matches_pi_chain'))} "
              f"| {yn(s.get('enable_overlap'))} | {s.get('event_loop', '–')} | {yn(s.get('disable_overlap_schedule'))} "
              f"| {short(s.get('draft_worker'))} | {yn(s.get('is_DFlashWorkerV2')) if s.get('draft_worker') else '–'} "
              f"| {yn(s.get('shims_loaded'))} | {acc_s} |")
    print()
    print("Per-configuration description, checks and scheduler facts:")
    print()
    for label, v in r["verdicts"].items():
        s = v.get("scheduler") or {}
        print(f"- `{label}`: {v.get('description')}. Checks: "
              + ", ".join(f"{k}={yn(x)}" for k, x in (v.get("checks") or {}).items())
              + (f". Scheduler env: {s.get('env')}" if s else "")
              + (f". Fork worker forward calls: {s.get('draft_worker_forward_calls')}"
                 if s.get("draft_worker_forward_calls") is not None else "")
              + (f". **Error**: {v['error'][:300]}" if "error" in v else "")
              + (f". Known gap: {v['known_gap']}" if v.get("known_gap") else ""))
    print()
    print("Shim code in the scheduler process (PEP 669 `sys.monitoring`, counted per function):")
    print()
    print("| configuration | run_batch calls | DFlashWorkerV2.forward_batch_generation calls (control) "
          "| shim calls before first step | shim calls while serving |")
    print("|---|---|---|---|---|")
    for label, v in r["verdicts"].items():
        m = v.get("shim_monitor")
        if not m or not m.get("enabled"):
            continue
        before = {k: n for k, n in m["shim_calls_before_first_step"].items() if k.startswith("shims")}
        during = {k: n for k, n in m["shim_calls_during_serving"].items() if k.startswith("shims")}
        print(f"| `{label}` | {m.get('run_batch_calls_seen')} "
              f"| {m.get('control_DFlashWorkerV2_forward_batch_generation_calls')} "
              f"| {sum(before.values())} | {sum(during.values())} {json.dumps(during) if during else ''} |")
    ab = r.get("ab") or {}
    if ab.get("stats"):
        print()
        print(f"Throughput A/B ({ab.get('workload')}; {ab.get('reps')} interleaved repetitions per side, "
              f"order A,B,B,A,A,B,...):")
        print()
        print("| side | n | median tok/s | min | max | spread (max-min)/median | stdev/median |")
        print("|---|---|---|---|---|---|---|")
        for label, st in ab["stats"].items():
            print(f"| `{label}` | {st['n']} | {st['median']} | {st['min']} | {st['max']} | {st['spread_pct']} % "
                  f"| {st['stdev_pct']} % |")
        print()
        print(f"Median ratio with/without shim: {ab.get('median_ratio_a_over_b')}. Raw series: "
              f"{json.dumps(ab.get('tok_per_s'))}. Heavy outputs identical A vs B: {yn(ab.get('heavy_outputs_equal'))}; "
              f"equal to plain decoding: {json.dumps(ab.get('heavy_outputs_equal_plain_reference'))}.")
        if ab.get("heavy_pi_chain"):
            print(f"Designed-chain check of the heavy set: {json.dumps(ab['heavy_pi_chain'])}")
    if ab.get("error"):
        print(f"\nA/B error: {ab['error'][:500]}")
    doc = r.get("doctor") or {}
    if doc.get("runs"):
        print()
        for run in doc["runs"]:
            print(f"`{run.get('cmd')}` with {run.get('env')} (exit {run.get('rc')}):")
            print()
            print("```")
            print((run.get("stdout") or "").rstrip() or "(no stdout)")
            if run.get("stderr"):
                print("--- stderr ---")
                print(run["stderr"].rstrip()[-1500:])
            print("```")
            print()
    if doc.get("fallback_shims_status"):
        fb = doc["fallback_shims_status"]
        print(f"`doctor` is not available in this tree; `shims.install(); shims.status()` instead (exit {fb['rc']}):")
        print()
        print("```")
        print((fb.get("stdout") or "").rstrip() or (fb.get("stderr") or "").rstrip()[-1500:])
        print("```")


if __name__ == "__main__":
    main(sys.argv[1])
