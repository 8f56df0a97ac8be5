"""`specbench` command line."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import List, Optional

from specbench.server_config import SpecProfile, build_server_args, describe


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="specbench")
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="run an eval profile in-process")
    run.add_argument("--profile", required=True, help="path to a profile JSON")
    run.add_argument("--draft-window-size", type=int, default=None)
    run.add_argument("--trace-steps", action="store_true")
    run.add_argument(
        "--spec-v1",
        action="store_true",
        help="force the V1 speculative worker (sets SGLANG_ENABLE_SPEC_V2=0)",
    )

    replay = sub.add_parser("replay", help="replay a recorded draft trace")
    replay.add_argument("--trace", required=True)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    args = make_parser().parse_args(argv)
    if args.command == "run":
        if args.spec_v1:
            os.environ.setdefault("SGLANG_ENABLE_SPEC_V2", "0")
        with open(args.profile) as fh:
            profile = SpecProfile(**json.load(fh))
        if args.draft_window_size is not None:
            profile.draft_window_size = args.draft_window_size
        if args.trace_steps:
            from specbench import sched_hooks

            sched_hooks.install()
        print(describe(profile))
        build_server_args(profile)
        return 0
    print("replay is not wired up yet", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
