#!/usr/bin/env python3
"""What the shim's ``.pth`` hook costs every Python start, as users get it (issue 15).

Builds this tree's wheel, installs it into a fresh virtual environment (no sglang), and
times ``python -c pass`` there with ``DFLASH_MIGRATE_SHIM`` unset, ``=0`` and ``=1``,
interleaved (one run of each per round, the order rotating), so that machine load hits all
three alike. Each run is measured twice: wall time, and the CPU time (user + system) the
child used (``os.wait4``), which a loaded machine disturbs far less. Reports medians and
ranges of both and the differences against "unset" measured in the same run; the target is
``=0`` within 5 ms of unset, judged on CPU time (wall time shown beside it).

    python benchmarks/shim_startup.py --rounds 40 --json benchmarks/results/shim-startup-<date>.json
    python benchmarks/shim_startup.py --baseline-ref e027508   # also the wheel of an older revision,
                                                              # interleaved in the same rounds
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _sglang_env():
    spec = importlib.util.spec_from_file_location("sglang_env", REPO / "tests" / "sglang_env.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def _once(python: Path, value: str | None) -> tuple[float, float]:
    """(wall ms, child CPU ms) of one ``python -c pass``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DFLASH_MIGRATE_SHIM", "PYTHONPATH"))}
    if value is not None:
        env["DFLASH_MIGRATE_SHIM"] = value
    start = time.perf_counter()
    proc = subprocess.Popen([str(python), "-c", "pass"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = (time.perf_counter() - start) * 1000
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"python -c pass failed with DFLASH_MIGRATE_SHIM={value!r}")
    return wall, (usage.ru_utime + usage.ru_stime) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--baseline-ref", help="git revision whose wheel is measured beside this tree's")
    args = parser.parse_args()
    env_helpers = _sglang_env()
    with tempfile.TemporaryDirectory() as tmp:
        python = env_helpers.wheel_venv(Path(tmp) / "venv", env_helpers.project_wheel(Path(tmp) / "dist"))
        cases: dict[str, tuple[Path, str | None]] = {"unset": (python, None), "=0": (python, "0"), "=1": (python, "1")}
        if args.baseline_ref:
            source = Path(tmp) / "baseline-src"
            source.mkdir()
            archive = subprocess.run(["git", "-C", str(REPO), "archive", args.baseline_ref], capture_output=True, check=True)
            subprocess.run(["tar", "-x", "-C", str(source)], input=archive.stdout, check=True)
            wheel = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(Path(tmp) / "bdist"),
                                    str(source)], capture_output=True, text=True)
            if wheel.returncode != 0:
                raise SystemExit(f"building the {args.baseline_ref} wheel failed:\n{wheel.stderr[-2000:]}")
            old = env_helpers.wheel_venv(Path(tmp) / "baseline-venv", next((Path(tmp) / "bdist").glob("*.whl")))
            cases.update({f"{args.baseline_ref} unset": (old, None), f"{args.baseline_ref} =0": (old, "0"),
                          f"{args.baseline_ref} =1": (old, "1")})
        for interpreter, value in cases.values():  # warm the page cache and the pyc files
            _once(interpreter, value)
        wall: dict[str, list[float]] = {name: [] for name in cases}
        cpu: dict[str, list[float]] = {name: [] for name in cases}
        names = list(cases)
        for i in range(args.rounds):
            shift = i % len(names)
            for name in names[shift:] + names[:shift]:
                w, c = _once(*cases[name])
                wall[name].append(w)
                cpu[name].append(c)

    def summary(series: dict[str, list[float]]) -> dict[str, dict]:
        stats = {name: {"median_ms": round(statistics.median(xs), 2), "min_ms": round(min(xs), 2),
                        "max_ms": round(max(xs), 2), "n": len(xs)} for name, xs in series.items()}
        for name, row in stats.items():
            base = f"{args.baseline_ref} unset" if args.baseline_ref and name.startswith(args.baseline_ref) else "unset"
            row["over_unset_ms"] = round(row["median_ms"] - stats[base]["median_ms"], 2)
        return stats

    stats = {"cpu": summary(cpu), "wall": summary(wall)}
    result = {"date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "python": platform.python_version(),
              "baseline_ref": args.baseline_ref, "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}",
              "command": "python -c pass (fresh venv with the wheel, no sglang)", "rounds": args.rounds,
              "stats": stats, "target": "=0 within 5 ms of unset (CPU time medians)",
              "target_met": stats["cpu"]["=0"]["over_unset_ms"] < 5.0, "raw_ms": {"cpu": cpu, "wall": wall}}
    for kind in ("cpu", "wall"):
        print(f"{kind + ' time':<12}{'DFLASH_MIGRATE_SHIM':<24}{'median ms':>10}{'min':>8}{'max':>8}{'over unset':>12}")
        for name, row in stats[kind].items():
            print(f"{'':<12}{name:<24}{row['median_ms']:>10}{row['min_ms']:>8}{row['max_ms']:>8}{row['over_unset_ms']:>12}")
    print(f"target (=0 within 5 ms of unset, CPU time): {'met' if result['target_met'] else 'NOT met'}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
