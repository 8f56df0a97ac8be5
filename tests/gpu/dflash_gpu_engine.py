#!/usr/bin/env python3
"""One configuration of the GPU matrix, in its own process: start an sglang ``Engine`` (or a
``python -m shims.launch_server`` HTTP server), then answer commands from the orchestrator.

Usage (by ``dflash_gpu_matrix.py``, never by hand)::

    python dflash_gpu_engine.py SPEC_JSON REPLY_FD

``SPEC_JSON`` holds ``label``, ``mode`` (``engine`` or ``server``), ``models``,
``engine_kwargs`` (engine mode) or ``server_argv`` (server mode) and ``preload`` (modules to
import before the engine starts, like a fork's own entry script would). Commands arrive as
JSON lines on stdin, replies leave as JSON lines on ``REPLY_FD`` (sglang logs go to
stdout/stderr, which the orchestrator sends to a log file):

* ``{"op": "generate", "set": "mixed"|"accepting", "max_new": N, "tag": ...}``: one greedy
  batch; reply has wall time, token ids, and per-request acceptance statistics;
* ``{"op": "probe"}``: ``flush_cache`` (which makes the scheduler-side probe write its
  final report), then the probe files of this configuration;
* ``{"op": "quit"}``: shut down and exit.
"""

from __future__ import annotations

import importlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import traceback
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import dflash_gpu_models as models  # noqa: E402

META_KEYS = ("completion_tokens", "prompt_tokens", "finish_reason", "e2e_latency")


def _meta(o: dict) -> dict:
    m = o.get("meta_info") or {}
    out = {k: m.get(k) for k in META_KEYS if k in m}
    out.update({k: v for k, v in m.items() if k.startswith("spec_")})
    if isinstance(out.get("finish_reason"), dict):
        out["finish_reason"] = out["finish_reason"].get("type")
    return out


class EngineBackend:
    def __init__(self, spec: dict):
        from sglang.srt.entrypoints.engine import Engine

        self.engine = Engine(**spec["engine_kwargs"])

    def generate(self, prompts, sp):
        return self.engine.generate(input_ids=prompts, sampling_params=sp)

    def flush(self):
        return self.engine.flush_cache()

    def close(self):
        self.engine.shutdown()


class ServerBackend:
    """``python -m shims.launch_server ARGV`` in its own process group, driven over HTTP."""

    def __init__(self, spec: dict):
        self.port = spec.get("port")
        if self.port is None:
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                self.port = s.getsockname()[1]
        argv = list(spec["server_argv"]) + ["--host", "127.0.0.1", "--port", str(self.port)]
        cmd = [sys.executable, "-m", spec.get("server_module", "shims.launch_server"), *argv]
        print("[driver] starting:", " ".join(cmd), flush=True)
        self.proc = subprocess.Popen(cmd, start_new_session=True, cwd=spec.get("cwd") or None)
        self.base = f"http://127.0.0.1:{self.port}"
        deadline = time.time() + float(spec.get("startup_timeout", 240))
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode} before it was ready")
            try:
                with urllib.request.urlopen(self.base + "/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except Exception:
                pass
            if time.time() > deadline:
                raise RuntimeError("server did not become healthy in time")
            time.sleep(1.0)

    def _post(self, path, payload, timeout=300):
        req = urllib.request.Request(
            self.base + path,
            data=json.dumps(payload).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=timeout) as r:
            body = r.read()
        return json.loads(body) if body else None

    def generate(self, prompts, sp):
        out = self._post("/generate", {"input_ids": prompts, "sampling_params": sp})
        return out if isinstance(out, list) else [out]

    def flush(self):
        with urllib.request.urlopen(self.base + "/flush_cache", timeout=60) as r:
            return r.status

    def close(self):
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=30)
        except Exception:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except Exception:
                pass


def main() -> int:
    spec = json.load(open(sys.argv[1]))
    reply = os.fdopen(int(sys.argv[2]), "w", buffering=1)

    def send(obj):
        reply.write(json.dumps(obj, default=str) + "\n")
        reply.flush()

    label = spec["label"]
    prompt_sets = {"mixed": models.mixed_prompts(), "accepting": models.accepting_prompts()}
    try:
        for mod in spec.get("preload", []):
            importlib.import_module(mod)
        t0 = time.perf_counter()
        backend = ServerBackend(spec) if spec["mode"] == "server" else EngineBackend(spec)
        startup = time.perf_counter() - t0
    except BaseException as exc:
        send({"ok": False, "op": "start", "error": repr(exc), "traceback": traceback.format_exc()})
        return 1
    send({"ok": True, "op": "start", "startup_s": round(startup, 2), "pid": os.getpid()})
    print(f"[driver] {label}: up in {startup:.1f} s", flush=True)

    for line in sys.stdin:
        if not line.strip():
            continue
        cmd = json.loads(line)
        op = cmd["op"]
        try:
            if op == "generate":
                prompts = prompt_sets[cmd["set"]]
                sp = {"temperature": 0.0, "max_new_tokens": int(cmd["max_new"]), "ignore_eos": True}
                t0 = time.perf_counter()
                outs = backend.generate(prompts, sp)
                wall = time.perf_counter() - t0
                ids = [list(o.get("output_ids") or []) for o in outs]
                ntok = sum(len(x) for x in ids)
                res = {
                    "ok": True,
                    "op": op,
                    "set": cmd["set"],
                    "tag": cmd.get("tag"),
                    "wall_s": round(wall, 5),
                    "new_tokens": ntok,
                    "tok_per_s": round(ntok / wall, 1) if wall > 0 else None,
                    "meta": [_meta(o) for o in outs],
                }
                if cmd.get("return_ids", True):
                    res["output_ids"] = ids
                send(res)
            elif op == "probe":
                backend.flush()
                time.sleep(0.5)
                found = {}
                pdir = os.environ.get("DFLASH_GPU_PROBE_DIR")
                # every rank's scheduler writes its own final report; wait (bounded) for the last
                deadline = time.time() + 20
                while pdir and os.path.isdir(pdir) and time.time() < deadline:
                    names = os.listdir(pdir)
                    inits = sum(n.startswith("init-") and n.endswith(".json") for n in names)
                    if sum(n.startswith("final-") and n.endswith(".json") for n in names) >= inits:
                        break
                    time.sleep(0.5)
                for name in sorted(os.listdir(pdir)) if pdir and os.path.isdir(pdir) else []:
                    if name.endswith(".json"):
                        with open(os.path.join(pdir, name)) as f:
                            found[name] = json.load(f)
                send({"ok": True, "op": op, "probe": found})
            elif op == "quit":
                break
            else:
                send({"ok": False, "op": op, "error": "unknown op"})
        except BaseException as exc:
            send({"ok": False, "op": op, "error": repr(exc), "traceback": traceback.format_exc()})
    try:
        backend.close()
    finally:
        send({"ok": True, "op": "quit"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
