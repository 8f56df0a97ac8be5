"""Two installed ``dflash-migrate`` commands, alternated on one tree: the per-round difference
of their ``lint`` wall times, its median and interquartile range (issue 29's test of whether a
shortcut earns more than the noise: the gain must be larger than its IQR).

    python benchmarks/paired_lint.py WITH_CMD WITHOUT_CMD TREE [ROUNDS]

Each round runs both, in alternating order; two warm-up rounds are dropped.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time


def _wall(command: str, tree: str) -> float:
    start = time.perf_counter()
    subprocess.run([command, "lint", tree, "--format", "concise"], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, cwd="/", check=False)
    return time.perf_counter() - start


def main(argv: list[str]) -> int:
    with_cmd, without_cmd, tree = argv[:3]
    rounds = int(argv[3]) if len(argv) > 3 else 21
    for _ in range(2):
        _wall(with_cmd, tree), _wall(without_cmd, tree)
    with_times, without_times, gains = [], [], []
    for index in range(rounds):
        if index % 2:
            without, with_ = _wall(without_cmd, tree), _wall(with_cmd, tree)
        else:
            with_, without = _wall(with_cmd, tree), _wall(without_cmd, tree)
        with_times.append(with_)
        without_times.append(without)
        gains.append(without - with_)
    first, _, third = statistics.quantiles(gains, n=4)
    print(f"with: median {statistics.median(with_times) * 1000:.0f} ms; without: median "
          f"{statistics.median(without_times) * 1000:.0f} ms; gain per round: median "
          f"{statistics.median(gains) * 1000:.1f} ms, IQR {(third - first) * 1000:.1f} ms "
          f"(Q1 {first * 1000:.1f}, Q3 {third * 1000:.1f}), {rounds} rounds")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
