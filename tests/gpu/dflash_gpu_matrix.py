"""The GPU matrix: every configuration in its own process, run in one go, results as JSON.

``run_matrix(workdir, ...)`` builds the tiny models, prepares the plugin/probe folders and
the legacy-fork trees, starts one ``dflash_gpu_engine.py`` process per configuration
(several at once in wave 1), sends each the same greedy prompts, collects what the
scheduler-side probe saw, and then runs the interleaved shim/no-shim throughput A/B in
wave 2. It returns (and writes to ``<workdir>/results.json``) one dict with everything;
``tests/gpu/test_dflash_gpu.py`` asserts on it and ``docs/gpu-validation.md`` reports it.

Run by hand on the GPU machine::

    python tests/gpu/dflash_gpu_matrix.py --workdir /tmp/dflash-gpu --only plain,dflash_overlap
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import dflash_gpu_models as models  # noqa: E402
import dflash_gpu_probe as probe  # noqa: E402

MIXED_NEW = 32  # tokens per mixed prompt (8 prompts, both accept paths)
HEAVY_NEW = 256  # tokens per accepting prompt (64 prompts) in the throughput A/B
SCRUB_ENV = ("SGLANG_ENABLE_SPEC_V2", "DFLASH_MIGRATE_SHIM", "DFLASH_GPU_PROBE_MONITOR")


@dataclass
class Config:
    label: str
    description: str
    wave: int = 1
    spec: bool = True  # DFLASH or plain decoding
    mode: str = "engine"  # or "server" (python -m shims.launch_server)
    server_module: str = "shims.launch_server"
    env: dict = field(default_factory=dict)
    extra_kwargs: dict = field(default_factory=dict)
    cuda_graph: bool = False
    monitor: bool = False
    pythonpath: list = field(default_factory=list)
    preload: list = field(default_factory=list)
    plugins: dict = field(default_factory=dict)  # entry-point name -> "module:function"
    expect_overlap: bool | None = None
    expect_worker: str | None = None  # qualified class name, or None for plain
    expect_shim_loaded: bool | None = None
    fork: str | None = None  # "migrated"/"unmigrated" (examples/legacy_fork) or "acme" (tests/data/forks/acme_spec)
    fork_entry: str = "register"  # legacy_fork.sglang_plugin function declared as the sglang plugin
    heavy_reference: bool = False  # also run the 64 x 256 throughput set once (reference outputs)
    known_gap: str | None = None  # expected-to-differ explanation, reported by the tests as xfail
    tp_size: int = 1  # one scheduler process per rank; > 1 is checked rank by rank (tp_configs)
    reference: str = "plain"  # the configuration whose greedy tokens this one must equal


class PortPool:
    """Explicit, distinct ports for every engine of a run (sglang's ``port`` and ``nccl_port``).

    Engines started together used to pick their ``nccl_port`` with ``get_free_port()`` each,
    and two could pick the same one (torch's TCP store then fails with EADDRINUSE). Each
    engine now gets a pair no other engine of this run has, checked free by binding it.
    """

    def __init__(self, first: int = 41000, last: int = 60000) -> None:
        self._next = first
        self._last = last
        self._lock = threading.Lock()

    @staticmethod
    def is_free(port: int) -> bool:
        import socket

        for host in ("127.0.0.1", "0.0.0.0"):
            with socket.socket() as sock:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                try:
                    sock.bind((host, port))
                except OSError:
                    return False
        return True

    def take(self) -> dict:
        with self._lock:
            while self._next + 1 < self._last:
                port, nccl = self._next, self._next + 1
                self._next += 10
                if self.is_free(port) and self.is_free(nccl):
                    return {"port": port, "nccl_port": nccl}
        raise RuntimeError("no free port pair left")


PORTS = PortPool()


def address_in_use(text: str) -> bool:
    return "EADDRINUSE" in text or "Address already in use" in text or "address already in use" in text


def engine_kwargs(cfg: Config, model_dir: str, ports: dict | None = None) -> dict:
    kw = dict(
        model_path=os.path.join(model_dir, "target"),
        skip_tokenizer_init=True,
        attention_backend="triton",
        sampling_backend="pytorch",
        grammar_backend="none",
        # Several engines share the GPU in wave 1: a high static fraction keeps sglang's
        # free-memory check positive while others load, max_total_tokens keeps each pool small.
        mem_fraction_static=0.9,
        max_total_tokens=65536,
        max_running_requests=64,
        random_seed=0,
        dtype="bfloat16",
        log_level="info",
        mm_feature_transport="cpu",
    )
    if cfg.cuda_graph:
        kw["disable_prefill_cuda_graph"] = True
        kw["cuda_graph_max_bs_decode"] = 64
    else:
        kw["disable_cuda_graph"] = True
    if cfg.tp_size != 1:
        kw["tp_size"] = cfg.tp_size
    if cfg.spec:
        kw["speculative_algorithm"] = "DFLASH"
        kw["speculative_draft_model_path"] = os.path.join(model_dir, "draft")
    kw.update(ports or {})
    kw.update(cfg.extra_kwargs)
    return kw


def kwargs_to_argv(kw: dict) -> list[str]:
    """``Engine`` keywords -> ``launch_server`` flags (``True`` -> bare flag)."""
    argv = []
    for key, value in kw.items():
        flag = "--" + key.replace("_", "-")
        if value is True:
            argv.append(flag)
        elif value is False or value is None:
            continue
        else:
            argv += [flag, str(value)]
    return argv


V2 = "sglang.srt.speculative.dflash_worker_v2.DFlashWorkerV2"


FORK_WORKER = "legacy_fork.workers.counting_worker.CountingDFlashWorker"
ACME_WORKER = "acme_spec.workers.MetricsDFlashWorker"
ACME_LABEL = "fork_acme_dead_override"
ACME_DIR = os.path.join(ROOT, "tests", "data", "forks", "acme_spec")


def default_configs() -> list[Config]:
    shim_env = {"SGLANG_ENABLE_SPEC_V2": "0", "DFLASH_MIGRATE_SHIM": "1"}
    launch_server_available = os.path.exists(os.path.join(ROOT, "shims", "launch_server.py"))
    configs = [
        Config("plain", "plain decoding, no speculation (reference)", spec=False, heavy_reference=True,
               expect_shim_loaded=False),
        Config("dflash_overlap", "DFLASH V2, default overlap scheduling", expect_overlap=True, expect_worker=V2,
               expect_shim_loaded=False),
        Config("env0_no_shim", "SGLANG_ENABLE_SPEC_V2=0 without the shim (0.5.17 only logs it)",
               env={"SGLANG_ENABLE_SPEC_V2": "0"}, expect_overlap=True, expect_worker=V2, expect_shim_loaded=False),
        Config("env0_shim_pth", "SGLANG_ENABLE_SPEC_V2=0 + DFLASH_MIGRATE_SHIM=1 (.pth hook), sglang.Engine",
               env=dict(shim_env), monitor=True, expect_overlap=False, expect_worker=V2, expect_shim_loaded=True),
        Config("env0_shim_pth_server",
               "SGLANG_ENABLE_SPEC_V2=0 + DFLASH_MIGRATE_SHIM=1 (.pth hook), `python -m sglang.launch_server` (HTTP)",
               mode="server", server_module="sglang.launch_server", env=dict(shim_env), monitor=True,
               expect_overlap=False, expect_worker=V2, expect_shim_loaded=True),
        # the fork's CountingDFlashWorker, registered as COUNTING_DFLASH with SpeculativeAlgorithm.register
        Config("fork_migrated", "examples/legacy_fork migrated by dflash-migrate; worker via "
               "SpeculativeAlgorithm.register('COUNTING_DFLASH'); disable_overlap_schedule=True as the migrated "
               "launch.py passes it", fork="migrated", extra_kwargs={"disable_overlap_schedule": True,
               "speculative_algorithm": "COUNTING_DFLASH"}, monitor=True, expect_overlap=False,
               expect_worker=FORK_WORKER, expect_shim_loaded=False),
        Config("fork_unmigrated_shim", "examples/legacy_fork unmigrated + DFLASH_MIGRATE_SHIM=1 and "
               "SGLANG_ENABLE_SPEC_V2=0 (as its launch.py sets); worker via SpeculativeAlgorithm.register("
               "'COUNTING_DFLASH')", fork="unmigrated", env=dict(shim_env),
               extra_kwargs={"speculative_algorithm": "COUNTING_DFLASH"}, monitor=True, expect_overlap=False,
               expect_worker=FORK_WORKER, expect_shim_loaded=True),
        # the same worker under the built-in name DFLASH, swapped in with sglang's HookRegistry
        Config("fork_migrated_hook", "examples/legacy_fork migrated; worker swapped in for DFLASH through "
               "HookRegistry (SpeculativeAlgorithm.create_worker); disable_overlap_schedule=True",
               fork="migrated", fork_entry="register_as_dflash",
               extra_kwargs={"disable_overlap_schedule": True}, monitor=True, expect_overlap=False,
               expect_worker=FORK_WORKER, expect_shim_loaded=False),
        Config("fork_unmigrated_shim_hook", "examples/legacy_fork unmigrated + DFLASH_MIGRATE_SHIM=1 and "
               "SGLANG_ENABLE_SPEC_V2=0; worker swapped in for DFLASH through HookRegistry",
               fork="unmigrated", fork_entry="register_as_dflash", env=dict(shim_env), monitor=True,
               expect_overlap=False, expect_worker=FORK_WORKER, expect_shim_loaded=True),
        # issue 20: a fork-style subclass with dead V1 overrides and a live forward_batch_generation
        Config(ACME_LABEL, "tests/data/forks/acme_spec unmigrated + DFLASH_MIGRATE_SHIM=1, SGLANG_ENABLE_SPEC_V2=0 "
               "and DFLASH_MIGRATE_SHIM_DEFER_REMOVED=1 (its kv.py imports _compute_paged_keep_slots); "
               "MetricsDFlashWorker (dead _prepare_for_speculative_decoding/_append_target_hidden_to_draft_kv "
               "overrides, live forward_batch_generation calling super()) swapped in for DFLASH through HookRegistry",
               fork="acme", env={**shim_env, "DFLASH_MIGRATE_SHIM_DEFER_REMOVED": "1"}, monitor=True,
               expect_overlap=False, expect_worker=ACME_WORKER, expect_shim_loaded=True),
        # wave 2: interleaved throughput A/B, identical effective settings (sync DFLASH + decode CUDA graphs)
        Config("ab_shim", "A/B 'with shim': SGLANG_ENABLE_SPEC_V2=0 + DFLASH_MIGRATE_SHIM=1, decode CUDA graphs",
               wave=2, env=dict(shim_env), cuda_graph=True, monitor=True, expect_overlap=False, expect_worker=V2,
               expect_shim_loaded=True),
        Config("ab_no_shim", "A/B 'without shim': disable_overlap_schedule=True by hand, decode CUDA graphs",
               wave=2, extra_kwargs={"disable_overlap_schedule": True}, cuda_graph=True, monitor=True,
               expect_overlap=False, expect_worker=V2, expect_shim_loaded=False),
    ]
    if launch_server_available:
        configs.insert(5, Config(
            "env0_shim_launch_server", "SGLANG_ENABLE_SPEC_V2=0 through `python -m shims.launch_server` (HTTP)",
            mode="server", env={"SGLANG_ENABLE_SPEC_V2": "0"}, monitor=True, expect_overlap=False,
            expect_worker=V2))
    return configs


def smoke_configs() -> list[Config]:
    """A first device run that needs no project code: reference, DFLASH, the env var without a
    shim, the HTTP server path through sglang's own launch_server, and an A/B of overlap vs
    sync with decode CUDA graphs (exercises the interleaving and the monitor)."""
    return [
        Config("plain", "plain decoding, no speculation (reference)", spec=False),
        Config("dflash_overlap", "DFLASH V2, default overlap scheduling", expect_overlap=True, expect_worker=V2),
        Config("env0_no_shim", "SGLANG_ENABLE_SPEC_V2=0 without the shim (0.5.17 ignores it)",
               env={"SGLANG_ENABLE_SPEC_V2": "0"}, expect_overlap=True, expect_worker=V2, monitor=True),
        Config("env0_sglang_launch_server", "SGLANG_ENABLE_SPEC_V2=0 through `python -m sglang.launch_server`",
               mode="server", server_module="sglang.launch_server", env={"SGLANG_ENABLE_SPEC_V2": "0"},
               expect_overlap=True, expect_worker=V2),
        Config("ab_overlap", "A/B smoke: DFLASH overlap + decode CUDA graphs", wave=2, cuda_graph=True, monitor=True,
               expect_overlap=True, expect_worker=V2),
        Config("ab_sync", "A/B smoke: DFLASH disable_overlap_schedule + decode CUDA graphs", wave=2,
               extra_kwargs={"disable_overlap_schedule": True}, cuda_graph=True, monitor=True,
               expect_overlap=False, expect_worker=V2),
    ]


TP_PREFIX = "tp"


def tp_label(tp_size: int, case: str) -> str:
    return f"{TP_PREFIX}{tp_size}_{case}"


#: the cases of issue 33, each run at every tensor-parallel size of the machine (tp_sizes())
TP_CASES = ("plain", "dflash_overlap", "env0_shim_pth", "fork_acme_dead_override", "fork_migrated")


def tp_configs(tp_size: int) -> list[Config]:
    """Issue 33's cases at ``tp_size``: one scheduler process per rank, each importing the fork,
    the shim's ``.pth`` hook and its own ``ServerArgs`` copy; every rank is probed.

    Tokens must equal plain decoding at the same size (``reference``) and, through
    ``evaluate``, the single-GPU ``plain`` reference too."""
    shim_env = {"SGLANG_ENABLE_SPEC_V2": "0", "DFLASH_MIGRATE_SHIM": "1"}
    plain = tp_label(tp_size, "plain")
    common = dict(tp_size=tp_size, reference=plain, monitor=True)
    return [
        Config(plain, f"plain decoding at tp_size={tp_size} (reference of this size)", spec=False,
               expect_shim_loaded=False, tp_size=tp_size),
        Config(tp_label(tp_size, "dflash_overlap"), f"DFLASH V2 with overlap at tp_size={tp_size}",
               expect_overlap=True, expect_worker=V2, expect_shim_loaded=False, **common),
        Config(tp_label(tp_size, "env0_shim_pth"), f"SGLANG_ENABLE_SPEC_V2=0 + DFLASH_MIGRATE_SHIM=1 (.pth hook) at "
               f"tp_size={tp_size}: every rank's ServerArgs copy must say disable_overlap_schedule",
               env=dict(shim_env), expect_overlap=False, expect_worker=V2, expect_shim_loaded=True, **common),
        Config(tp_label(tp_size, "fork_acme_dead_override"), f"tests/data/forks/acme_spec unmigrated under the shim "
               f"(dead V1 overrides, DFLASH_MIGRATE_SHIM_DEFER_REMOVED=1) at tp_size={tp_size}: one warning per "
               "rank process, naming the rank", fork="acme",
               env={**shim_env, "DFLASH_MIGRATE_SHIM_DEFER_REMOVED": "1"}, expect_overlap=False,
               expect_worker=ACME_WORKER, expect_shim_loaded=True, **common),
        Config(tp_label(tp_size, "fork_migrated"), f"examples/legacy_fork migrated, COUNTING_DFLASH, "
               f"disable_overlap_schedule=True at tp_size={tp_size}", fork="migrated",
               extra_kwargs={"disable_overlap_schedule": True, "speculative_algorithm": "COUNTING_DFLASH"},
               expect_overlap=False, expect_worker=FORK_WORKER, expect_shim_loaded=False, **common),
    ]


def gpu_count() -> int:
    """GPUs on this machine, from ``nvidia-smi -L`` (the orchestrator never initialises CUDA)."""
    try:
        q = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return 0
    return sum(line.startswith("GPU ") for line in q.stdout.splitlines())


def tp_sizes() -> list[int]:
    """``DFLASH_GPU_TP_SIZES`` (e.g. ``1,2``), else 1 and, on a machine with two GPUs or more, 2."""
    wanted = os.environ.get("DFLASH_GPU_TP_SIZES")
    if wanted:
        return sorted({int(x) for x in wanted.split(",") if x.strip()})
    return [1, 2] if gpu_count() >= 2 else [1]


# ---- one configuration process ------------------------------------------------------


class Driver:
    def __init__(self, cfg: Config, spec: dict, env: dict, workdir: str):
        self.cfg = cfg
        self.log_path = os.path.join(workdir, "logs", f"{cfg.label}.log")
        os.makedirs(os.path.dirname(self.log_path), exist_ok=True)
        spec_path = os.path.join(workdir, "specs", f"{cfg.label}.json")
        os.makedirs(os.path.dirname(spec_path), exist_ok=True)
        with open(spec_path, "w") as f:
            json.dump(spec, f, indent=1)
        r, w = os.pipe()
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "dflash_gpu_engine.py"), spec_path, str(w)],
            stdin=subprocess.PIPE,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            env=env,
            pass_fds=(w,),
            cwd=ROOT,
            text=True,
        )
        os.close(w)
        self.replies = os.fdopen(r, "r")

    def read(self, timeout: float) -> dict:
        result: dict = {}

        def _read():
            line = self.replies.readline()
            result["line"] = line

        t = threading.Thread(target=_read, daemon=True)
        t.start()
        t.join(timeout)
        if "line" not in result:
            raise TimeoutError(f"{self.cfg.label}: no reply in {timeout:.0f} s")
        if not result["line"]:
            raise RuntimeError(f"{self.cfg.label}: process ended (rc={self.proc.poll()}); see {self.log_path}")
        return json.loads(result["line"])

    def request(self, timeout: float = 240, **cmd) -> dict:
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()
        reply = self.read(timeout)
        if not reply.get("ok"):
            raise RuntimeError(f"{self.cfg.label}: {cmd['op']} failed: {reply.get('error')}\n{reply.get('traceback')}")
        return reply

    def close(self, timeout: float = 90) -> None:
        try:
            if self.proc.poll() is None:
                self.proc.stdin.write(json.dumps({"op": "quit"}) + "\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=timeout)
        except Exception:
            self.proc.kill()
        finally:
            self.log.close()

    def tail(self, n: int = 40) -> str:
        try:
            with open(self.log_path, errors="replace") as f:
                return "".join(f.readlines()[-n:])
        except OSError:
            return ""


# ---- preparation --------------------------------------------------------------------


def prepare(workdir: str) -> dict:
    os.makedirs(workdir, exist_ok=True)
    model_dir = os.path.join(workdir, "models")
    digests = models.write_models(model_dir)
    # the probe, installed as an sglang plugin through a dist-info on PYTHONPATH
    probe_site = os.path.join(workdir, "probe_site")
    os.makedirs(probe_site, exist_ok=True)
    shutil.copy(os.path.join(HERE, "dflash_gpu_probe.py"), probe_site)
    probe.write_entry_point(probe_site, probe.PROBE_NAME, "dflash_gpu_probe:register", "dflash_gpu_probe")
    forks = prepare_forks(workdir)
    return {"model_dir": model_dir, "model_digests": digests, "probe_site": probe_site, "forks": forks}


def prepare_forks(workdir: str) -> dict:
    """Two copies of examples/legacy_fork: as written, and migrated by ``dflash-migrate`` (run here,
    against the installed sglang)."""
    src = os.path.join(ROOT, "examples", "legacy_fork")
    out: dict = {}
    if not os.path.isdir(src):
        return {"error": "examples/legacy_fork is missing"}
    for kind in ("unmigrated", "migrated"):
        dest = os.path.join(workdir, "forks", kind)
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(src, dest, ignore=shutil.ignore_patterns("__pycache__"))
        out[kind] = {"path": dest}
    q = subprocess.run([sys.executable, "-m", "migrator", "fix", out["migrated"]["path"], "--allow-dirty"],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    out["migrated"]["codemod"] = {"cmd": "python -m migrator fix <copy> --allow-dirty (target: installed sglang)",
                                  "rc": q.returncode, "stderr_tail": q.stderr[-3000:], "stdout_tail": q.stdout[-3000:]}
    acme = os.path.join(workdir, "forks", "acme")
    shutil.rmtree(acme, ignore_errors=True)
    shutil.copytree(ACME_DIR, acme, ignore=shutil.ignore_patterns("__pycache__"))
    out["acme"] = {"path": acme}
    worker = os.path.join(out["migrated"]["path"], "legacy_fork", "workers", "counting_worker.py")
    with open(worker) as f:
        out["migrated"]["counting_worker_imports_v2"] = "dflash_worker_v2 import DFlashWorkerV2" in f.read()
    return out


def config_env(cfg: Config, prep: dict, workdir: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in SCRUB_ENV}
    env.update(cfg.env)
    env["PYTHONUNBUFFERED"] = "1"
    paths = [prep["probe_site"], *cfg.pythonpath]
    if cfg.fork:
        fork_dir = prep["forks"][cfg.fork]["path"]
        site = os.path.join(workdir, "fork_sites", cfg.label)
        shutil.rmtree(site, ignore_errors=True)
        if cfg.fork == "acme":
            probe.write_entry_point(site, "acme_spec", "acme_spec.plugin:register_with_sglang", "acme_spec")
        else:
            probe.write_entry_point(site, "legacy_fork", f"legacy_fork.sglang_plugin:{cfg.fork_entry}", "legacy_fork")
        paths += [site, fork_dir]
        env["DFLASH_GPU_PROBE_WATCH"] = fork_dir
    if env.get("PYTHONPATH"):
        paths.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    pdir = os.path.join(workdir, "probe", cfg.label)
    shutil.rmtree(pdir, ignore_errors=True)
    os.makedirs(pdir)
    env["DFLASH_GPU_PROBE_DIR"] = pdir
    if cfg.monitor:
        env["DFLASH_GPU_PROBE_MONITOR"] = "1"
    return env


def driver_spec(cfg: Config, prep: dict) -> dict:
    kw = engine_kwargs(cfg, prep["model_dir"], PORTS.take())
    spec = {"label": cfg.label, "mode": cfg.mode, "models": prep["model_dir"], "preload": cfg.preload}
    if cfg.mode == "server":
        spec["port"] = kw.pop("port")
        spec["server_argv"] = kwargs_to_argv(kw)
        spec["server_module"] = cfg.server_module
        spec["cwd"] = ROOT
    else:
        spec["engine_kwargs"] = kw
    return spec


# ---- running ------------------------------------------------------------------------


def _summarize_generate(reply: dict) -> dict:
    return {k: reply[k] for k in ("set", "tag", "wall_s", "new_tokens", "tok_per_s") if k in reply}


def run_correctness(cfg: Config, prep: dict, workdir: str, out: dict, reps: int = 2) -> None:
    """One engine: start, generate, probe. Retried once, on fresh ports, when a port was taken."""
    rec = out.setdefault(cfg.label, {"description": cfg.description, "wave": cfg.wave})
    t0 = time.time()
    for attempt in (1, 2):
        rec.pop("error", None)
        spec = driver_spec(cfg, prep)
        rec["ports"] = {k: spec.get("engine_kwargs", {}).get(k) for k in ("port", "nccl_port")} \
            if cfg.mode == "engine" else {"port": spec.get("port")}
        drv = Driver(cfg, spec, config_env(cfg, prep, workdir), workdir)
        try:
            start = drv.read(timeout=300)
            if not start.get("ok"):
                raise RuntimeError(f"start failed: {start.get('error')}\n{start.get('traceback')}")
            rec["startup_s"] = start["startup_s"]
            rec["mixed_runs"] = [drv.request(op="generate", set="mixed", max_new=MIXED_NEW, tag=f"rep{i}")
                                 for i in range(reps)]
            if cfg.heavy_reference:
                r = drv.request(op="generate", set="accepting", max_new=HEAVY_NEW, tag="heavy_reference", timeout=300)
                rec["heavy_reference_ids"] = r.pop("output_ids")
                rec["heavy_reference"] = _summarize_generate(r)
            rec["probe"] = drv.request(op="probe", timeout=120)["probe"]
        except Exception as exc:
            rec["error"] = f"{exc}"
            rec["log_tail"] = drv.tail()
        finally:
            drv.close()
        rec["shim_warnings"] = shim_warnings(drv.log_path)
        rec["shim_warnings_by_rank"] = shim_warnings(drv.log_path, by_rank=True)
        if "error" in rec and attempt == 1 and address_in_use(rec["error"] + rec.get("log_tail", "") + drv.tail(400)):
            rec["retried_after_eaddrinuse"] = {"first_ports": rec["ports"], "first_error": rec["error"][-500:]}
            os.replace(drv.log_path, drv.log_path + ".attempt1")
            continue
        break
    rec["wall_total_s"] = round(time.time() - t0, 1)


_WARNING = re.compile(r"DFlashMigrationWarning: (DFM\d+): ")
_OVERRIDE = re.compile(r"class `([^`]+)` (?:defines|overrides) `([^`]+)`")
_RANK = re.compile(r"\[scheduler TP rank (\d+)\]")


def shim_warnings(log_path: str, by_rank: bool = False) -> dict:
    """How often each shim warning was printed in this engine's log (all its processes):
    ``"DFM106 acme_spec.workers.X._prepare_for_speculative_decoding": 1``, or just the code.
    With ``by_rank``: ``{key: {"0": 1, "1": 1}}``, the rank each warning names (``"none"``
    for a warning that names no scheduler rank)."""
    counts: dict = {}
    try:
        with open(log_path, errors="replace") as handle:
            for line in handle:
                match = _WARNING.search(line)
                if match:
                    override = _OVERRIDE.search(line, match.end())
                    key = f"{match.group(1)} {override.group(1)}.{override.group(2)}" if override else match.group(1)
                    if by_rank:
                        rank = _RANK.search(line, match.end())
                        per = counts.setdefault(key, {})
                        slot = rank.group(1) if rank else "none"
                        per[slot] = per.get(slot, 0) + 1
                    else:
                        counts[key] = counts.get(key, 0) + 1
    except OSError:
        pass
    return counts


def run_wave1(configs, prep, workdir, out, parallel: int) -> None:
    pending = list(configs)
    threads: list[threading.Thread] = []
    while pending or threads:
        threads = [t for t in threads if t.is_alive()]
        while pending and len(threads) < parallel:
            cfg = pending.pop(0)
            t = threading.Thread(target=run_correctness, args=(cfg, prep, workdir, out), daemon=True)
            t.start()
            threads.append(t)
            time.sleep(2.0)  # stagger the starts a little
        time.sleep(0.5)


def run_ab(cfg_a: Config, cfg_b: Config, prep, workdir, out, reps: int) -> None:
    """Both engines up at once (each its own process), then A,B,A,B,... on the heavy set."""
    drivers = {}
    ab = out.setdefault("ab", {"a": cfg_a.label, "b": cfg_b.label, "reps": reps,
                               "workload": f"64 accepting prompts x {HEAVY_NEW} new tokens, greedy"})
    t0 = time.time()
    try:
        for cfg in (cfg_a, cfg_b):
            out.setdefault(cfg.label, {"description": cfg.description, "wave": cfg.wave})
            drivers[cfg.label] = Driver(cfg, driver_spec(cfg, prep), config_env(cfg, prep, workdir), workdir)
        for label, drv in drivers.items():
            start = drv.read(timeout=300)
            if not start.get("ok"):
                raise RuntimeError(f"{label} start failed: {start.get('error')}\n{start.get('traceback')}")
            out[label]["startup_s"] = start["startup_s"]
        for label, drv in drivers.items():
            out[label]["mixed_runs"] = [drv.request(op="generate", set="mixed", max_new=MIXED_NEW, tag=f"rep{i}")
                                        for i in range(2)]
            drv.request(op="generate", set="accepting", max_new=HEAVY_NEW, tag="warmup", return_ids=False)
        series = {cfg_a.label: [], cfg_b.label: []}
        heavy_ids = {}
        order = []
        for i in range(reps):
            pair = (cfg_a, cfg_b) if i % 2 == 0 else (cfg_b, cfg_a)  # ABBA: neither side always goes first
            for cfg in pair:
                r = drivers[cfg.label].request(op="generate", set="accepting", max_new=HEAVY_NEW, tag=f"ab{i}",
                                               return_ids=(i == 0), timeout=180)
                if i == 0:
                    heavy_ids[cfg.label] = r.pop("output_ids")
                    out[cfg.label]["heavy_meta_rep0"] = r["meta"]
                series[cfg.label].append(r["tok_per_s"])
                order.append(cfg.label)
        ab["tok_per_s"] = series
        ab["order"] = order
        ab["heavy_outputs_equal"] = heavy_ids.get(cfg_a.label) == heavy_ids.get(cfg_b.label)
        ref = out.get("plain", {}).get("heavy_reference_ids")
        ab["heavy_outputs_equal_plain_reference"] = {label: (ids == ref if ref else None)
                                                     for label, ids in heavy_ids.items()}
        chains = [models.pi_chain(prep["pi"], p[-1], HEAVY_NEW) for p in models.accepting_prompts()]
        ab["heavy_pi_chain"] = {label: _chain_report(ids, chains) for label, ids in heavy_ids.items()}
        if ref:
            ab["heavy_pi_chain"]["plain"] = _chain_report(ref, chains)
        for label, drv in drivers.items():
            out[label]["probe"] = drv.request(op="probe", timeout=120)["probe"]
    except Exception as exc:
        ab["error"] = f"{exc}"
        for label, drv in drivers.items():
            out.setdefault(label, {})["log_tail"] = drv.tail()
    finally:
        for drv in drivers.values():
            drv.close()
        ab["wall_total_s"] = round(time.time() - t0, 1)
    _ab_stats(ab)


def _chain_report(ids, chains) -> dict:
    firsts = []
    for got, want in zip(ids, chains):
        k = next((j for j, (a, b) in enumerate(zip(got, want)) if a != b), None)
        if k is None and len(got) != len(want):
            k = min(len(got), len(want))
        firsts.append(k)
    return {"prompts_matching": sum(k is None for k in firsts), "prompts": len(firsts),
            "first_mismatch_positions": [k for k in firsts if k is not None][:16]}


def _ab_stats(ab: dict) -> None:
    series = ab.get("tok_per_s") or {}
    stats = {}
    for label, xs in series.items():
        if not xs:
            continue
        med = statistics.median(xs)
        stats[label] = {
            "n": len(xs),
            "median": round(med, 1),
            "min": round(min(xs), 1),
            "max": round(max(xs), 1),
            "spread_pct": round(100.0 * (max(xs) - min(xs)) / med, 1),
            "stdev_pct": round(100.0 * statistics.stdev(xs) / med, 1) if len(xs) > 1 else None,
        }
    ab["stats"] = stats
    a, b = ab.get("a"), ab.get("b")
    if a in stats and b in stats:
        ab["median_ratio_a_over_b"] = round(stats[a]["median"] / stats[b]["median"], 4)


# ---- evaluation ---------------------------------------------------------------------


def _scheduler_probe(rec: dict) -> dict | None:
    files = rec.get("probe") or {}
    finals = [v for k, v in files.items() if k.startswith("final-")]
    inits = [v for k, v in files.items() if k.startswith("init-")]
    return (finals or inits or [None])[0]


def _rank_probes(rec: dict) -> dict:
    """``{tp_rank: facts}`` over every scheduler process of one engine (final report, else init)."""
    files = rec.get("probe") or {}
    ranks: dict = {}
    for kind in ("init-", "final-"):  # a final report replaces the same rank's init report
        for name, facts in sorted(files.items()):
            if name.startswith(kind) and isinstance(facts, dict):
                ranks[str(facts.get("tp_rank"))] = facts
    return ranks


def _rank_checks(cfg: Config, ranks: dict) -> dict:
    """The per-rank facts of one engine against ``cfg``: every rank reported, and on each the
    expected worker, event loop, shim state and a monitor that saw steps (never rank 0 only)."""
    want = {str(r) for r in range(cfg.tp_size)}
    checks = {"every_rank_reported": set(ranks) == want}
    if cfg.expect_overlap is not None:
        checks["every_rank_overlap_as_expected"] = bool(ranks) and all(
            f.get("enable_overlap") is cfg.expect_overlap for f in ranks.values())
    if cfg.spec:
        checks["every_rank_worker_as_expected"] = bool(ranks) and all(
            f.get("draft_worker") == cfg.expect_worker and f.get("is_DFlashWorkerV2") is True for f in ranks.values())
    else:
        checks["every_rank_has_no_draft_worker"] = bool(ranks) and all(
            f.get("draft_worker") is None for f in ranks.values())
    if cfg.expect_shim_loaded is not None:
        checks["every_rank_shim_loaded_as_expected"] = bool(ranks) and all(
            f.get("shims_loaded") is cfg.expect_shim_loaded for f in ranks.values())
    checks["every_rank_tp_size"] = bool(ranks) and all(f.get("tp_size") == cfg.tp_size for f in ranks.values())
    return checks


def _rank_summary(facts: dict) -> dict:
    mon = facts.get("monitor") or {}
    return {
        "pid": facts.get("pid"), "gpu_id": facts.get("gpu_id"), "tp_size": facts.get("tp_size"),
        "enable_overlap": facts.get("enable_overlap"), "event_loop": facts.get("event_loop"),
        "disable_overlap_schedule": (facts.get("server_args") or {}).get("disable_overlap_schedule"),
        "draft_worker": facts.get("draft_worker"), "is_DFlashWorkerV2": facts.get("is_DFlashWorkerV2"),
        "shims_loaded": facts.get("shims_loaded"), "env": facts.get("env"),
        "draft_worker_counters": facts.get("draft_worker_counters"), "forward_ct": facts.get("forward_ct"),
        "monitor": {k: mon.get(k) for k in ("enabled", "run_batch_calls_seen",
                                              "control_DFlashWorkerV2_forward_batch_generation_calls",
                                              "shim_calls_during_serving")} if mon else None,
    }


def evaluate(out: dict, configs: list[Config], pi: list[int]) -> dict:
    prompts = models.mixed_prompts()
    chains = [models.pi_chain(pi, p[-1], MIXED_NEW) for p in prompts]
    ref = out.get("plain", {}).get("mixed_runs")
    ref_ids = ref[0]["output_ids"] if ref else None
    own_refs = {}
    for cfg in configs:
        runs = (out.get(cfg.reference) or {}).get("mixed_runs")
        own_refs[cfg.label] = runs[0]["output_ids"] if runs else None
    verdicts = {}
    for cfg in configs:
        rec = out.get(cfg.label)
        if rec is None:
            verdicts[cfg.label] = {"ran": False, "reason": "not run"}
            continue
        v: dict = {"ran": "mixed_runs" in rec, "description": cfg.description}
        if "error" in rec:
            v["error"] = rec["error"]
        runs = rec.get("mixed_runs") or []
        if runs:
            v["matches_reference"] = ref_ids is not None and all(r["output_ids"] == ref_ids for r in runs)
            v["matches_pi_chain"] = all(r["output_ids"] == chains for r in runs)
            if cfg.reference != "plain":
                own = own_refs.get(cfg.label)
                v["matches_own_reference"] = own is not None and all(r["output_ids"] == own for r in runs)
            v["reps"] = len(runs)
            v["acceptance"] = _acceptance(runs[0]["meta"], prompts) if cfg.spec else None
        sp = _scheduler_probe(rec)
        if sp:
            v["scheduler"] = {
                "pid": sp.get("pid"),
                "enable_overlap": sp.get("enable_overlap"),
                "event_loop": sp.get("event_loop"),
                "disable_overlap_schedule": (sp.get("server_args") or {}).get("disable_overlap_schedule"),
                "draft_worker": sp.get("draft_worker"),
                "draft_worker_mro": sp.get("draft_worker_mro"),
                "is_DFlashWorkerV2": sp.get("is_DFlashWorkerV2"),
                "env": sp.get("env"),
                "shims_loaded": sp.get("shims_loaded"),
                "legacy_dflash_worker_module": sp.get("legacy_dflash_worker_module"),
                "draft_worker_source": sp.get("draft_worker_source"),
                "draft_worker_forward_calls": sp.get("draft_worker_forward_calls"),
                "draft_worker_counters": sp.get("draft_worker_counters"),
                "forward_ct": sp.get("forward_ct"),
            }
            if sp.get("monitor"):
                v["shim_monitor"] = sp["monitor"]
        checks = {}
        if runs:
            checks["token_ids_equal_reference"] = v["matches_reference"]
            if "matches_own_reference" in v:
                checks["token_ids_equal_reference_of_this_tp_size"] = v["matches_own_reference"]
        if cfg.label.startswith(TP_PREFIX):
            ranks = _rank_probes(rec)
            v["tp_size"] = cfg.tp_size
            v["ranks"] = {r: _rank_summary(f) for r, f in sorted(ranks.items())}
            checks.update(_rank_checks(cfg, ranks))
            v["shim_warnings_by_rank"] = rec.get("shim_warnings_by_rank")
        if sp is not None:
            if cfg.expect_overlap is not None:
                checks["overlap_as_expected"] = sp.get("enable_overlap") is cfg.expect_overlap
            if cfg.spec:
                checks["worker_as_expected"] = (
                    sp.get("draft_worker") == cfg.expect_worker
                    if cfg.expect_worker
                    else bool(sp.get("is_DFlashWorkerV2"))
                )
                checks["is_subclass_of_DFlashWorkerV2"] = sp.get("is_DFlashWorkerV2") is True
            if cfg.expect_shim_loaded is not None:
                checks["shim_loaded_as_expected"] = sp.get("shims_loaded") is cfg.expect_shim_loaded
        else:
            checks["scheduler_probe_reported"] = False
        v["checks"] = checks
        v["ok"] = bool(checks) and all(checks.values()) and "error" not in v
        if cfg.known_gap:
            v["known_gap"] = cfg.known_gap
        v["shim_warnings"] = rec.get("shim_warnings")
        v["ports"] = rec.get("ports")
        if rec.get("retried_after_eaddrinuse"):
            v["retried_after_eaddrinuse"] = rec["retried_after_eaddrinuse"]
        verdicts[cfg.label] = v
    return verdicts


def _acceptance(metas: list[dict], prompts) -> dict:
    per = []
    for m, p in zip(metas, prompts):
        verify = m.get("spec_verify_ct")
        comp = m.get("completion_tokens")
        al = m.get("spec_accept_length")
        if al is None and verify:
            al = comp / verify
        per.append({
            "completion_tokens": comp,
            "verify_ct": verify,
            "accept_length": round(al, 3) if isinstance(al, (int, float)) else al,
            "expected_accept_length_by_design": models.expected_accept_length(p),
            "accept_rate": m.get("spec_accept_rate"),
            "correct_drafts": m.get("spec_num_correct_drafts"),
            "proposed_drafts": m.get("spec_num_proposed_drafts"),
        })
    tot_tok = sum(x["completion_tokens"] or 0 for x in per)
    tot_ver = sum(x["verify_ct"] or 0 for x in per)
    return {
        "per_prompt": per,
        "overall_accept_length": round(tot_tok / tot_ver, 3) if tot_ver else None,
        "fixed_point_prompts_accept_length": [x["accept_length"] for x, p in zip(per, prompts)
                                              if p[-1] in models.FIXED_POINTS],
        "other_prompts_accept_length": [x["accept_length"] for x, p in zip(per, prompts)
                                        if p[-1] not in models.FIXED_POINTS],
    }


def environment_facts() -> dict:
    facts = {"date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "python": sys.version.split()[0]}
    try:
        q = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=30)
        facts["gpu"] = q.stdout.strip()
    except Exception as exc:
        facts["gpu"] = f"unknown ({exc!r})"
    for mod in ("torch", "sglang", "sgl_kernel", "flashinfer", "triton", "transformers"):
        try:
            q = subprocess.run([sys.executable, "-c", f"import {mod}; print({mod}.__version__)"],
                               capture_output=True, text=True, timeout=120)
            facts[mod] = q.stdout.strip().splitlines()[-1] if q.stdout.strip() else f"error: {q.stderr[-200:]}"
        except Exception as exc:
            facts[mod] = f"error: {exc!r}"
    try:
        q = subprocess.run([sys.executable, "-c", "import torch; print(torch.cuda.nccl.version())"],
                           capture_output=True, text=True, timeout=120)
        facts["nccl"] = q.stdout.strip().splitlines()[-1] if q.stdout.strip() else f"error: {q.stderr[-200:]}"
    except Exception as exc:
        facts["nccl"] = f"error: {exc!r}"
    try:
        from importlib.metadata import version

        facts["sglang_dist"] = version("sglang")
    except Exception:
        pass
    return facts


def run_doctor(workdir: str) -> dict:
    """``dflash-migrate doctor`` on this machine, plain and with the shim switched on."""
    runs = []
    base = {k: v for k, v in os.environ.items() if k not in SCRUB_ENV}
    for label, extra in (("plain environment", {}),
                         ("DFLASH_MIGRATE_SHIM=1 SGLANG_ENABLE_SPEC_V2=0", {"DFLASH_MIGRATE_SHIM": "1",
                                                                          "SGLANG_ENABLE_SPEC_V2": "0"})):
        for cmd in (["dflash-migrate", "doctor"], [sys.executable, "-m", "migrator", "doctor"]):
            if cmd[0] == "dflash-migrate" and shutil.which("dflash-migrate") is None:
                continue
            try:
                q = subprocess.run(cmd, capture_output=True, text=True, env={**base, **extra}, cwd=workdir, timeout=180)
                runs.append({"env": label, "cmd": " ".join(cmd[-3:]), "rc": q.returncode,
                             "stdout": q.stdout[-6000:], "stderr": q.stderr[-3000:]})
            except Exception as exc:
                runs.append({"env": label, "cmd": " ".join(cmd[-3:]), "rc": None, "error": repr(exc)})
            break
    if runs and all(r.get("rc") not in (0, None) for r in runs):
        # doctor not available in this tree: record what the shim itself reports instead
        code = ("import json, shims; shims.install(); st = shims.status(); "
                "print(json.dumps({k: getattr(st, k) for k in st.__dataclass_fields__}, default=str))")
        q = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=base, cwd=ROOT,
                           timeout=180)
        return {"runs": runs, "doctor_missing": True,
                "fallback_shims_status": {"rc": q.returncode, "stdout": q.stdout[-4000:], "stderr": q.stderr[-2000:]}}
    return {"runs": runs}


def run_matrix(workdir: str, configs: list[Config] | None = None, parallel: int = 8, ab_reps: int = 8,
               only: set[str] | None = None) -> dict:
    t0 = time.time()
    if configs is None:
        configs = default_configs() + [c for n in tp_sizes() for c in tp_configs(n)]
    if only:
        configs = [c for c in configs if c.label in only]
    prep = prepare(workdir)
    prep["pi"] = models.load_pi(prep["model_dir"])
    out: dict = {}
    result = {"environment": environment_facts(), "model_digests": prep["model_digests"], "gpu_count": gpu_count(),
              "tp_sizes": sorted({c.tp_size for c in configs}),
              "settings": {"mixed": f"8 prompts x {MIXED_NEW} new tokens, greedy, 2 reps",
                           "heavy": f"64 prompts x {HEAVY_NEW} new tokens", "parallel_wave1": parallel}}
    wave1 = [c for c in configs if c.wave == 1]
    # the reference first, alone, so that the others can be compared even if it is slow
    t1 = time.time()
    run_wave1(wave1, prep, workdir, out, parallel)
    result["wave1_wall_s"] = round(time.time() - t1, 1)
    wave2 = [c for c in configs if c.wave == 2]
    if len(wave2) == 2:
        t2 = time.time()
        run_ab(wave2[0], wave2[1], prep, workdir, out, ab_reps)
        result["wave2_wall_s"] = round(time.time() - t2, 1)
    try:
        result["doctor"] = run_doctor(workdir)
    except Exception as exc:
        result["doctor"] = {"error": repr(exc), "runs": []}
    result["forks"] = prep.get("forks")
    result["configs"] = out
    result["verdicts"] = evaluate(out, configs, prep["pi"])
    result["ab"] = out.pop("ab", None)
    result["total_wall_s"] = round(time.time() - t0, 1)
    for rec in out.values():
        rec.pop("heavy_reference_ids", None)
    with open(os.path.join(workdir, "results.json"), "w") as f:
        json.dump(result, f, indent=1, default=str)
    return result


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workdir", default="/tmp/dflash-gpu")
    ap.add_argument("--only", default="")
    ap.add_argument("--parallel", type=int, default=8)
    ap.add_argument("--ab-reps", type=int, default=8)
    ap.add_argument("--smoke", action="store_true")
    args = ap.parse_args()
    res = run_matrix(args.workdir, configs=smoke_configs() if args.smoke else None, parallel=args.parallel,
                     ab_reps=args.ab_reps,
                     only=set(filter(None, args.only.split(","))) or None)
    print(json.dumps({k: {"ok": v.get("ok"), "checks": v.get("checks"), "error": v.get("error")}
                      for k, v in res["verdicts"].items()}, indent=1))
    print(json.dumps((res.get("ab") or {}).get("stats"), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
