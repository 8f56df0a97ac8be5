"""Per-release sglang environments for tests that must run the *real* SGLang code on a CPU.

One CPU venv (torch 2.13.0 from the machine's local wheel plus the import closure of
``sglang.srt.server_args`` and the DFLASH V2 modules) is shared by all releases; each
release gets its own folder holding the PyPI wheel installed with ``--no-deps`` plus the
few packages whose pins differ per release (transformers, tokenizers, xgrammar). Both
live under ``migrator.releases.wheels.cache_dir()`` so only the first run pays for them.

Run code in a release with :func:`run_in_release` (a subprocess: two sglang releases
cannot share one interpreter).
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from migrator.releases import wheels

REPO = Path(__file__).resolve().parent.parent
VENV_PACKAGES = (
    "torch==2.13.0", "numpy", "psutil", "requests", "pydantic", "msgspec", "orjson", "pyyaml", "packaging",
    "pybase64", "triton", "pillow", "starlette", "pyzmq", "tqdm", "ipython", "aiohttp", "huggingface_hub<2",
    "safetensors", "regex", "sentencepiece", "einops", "dill", "scipy", "tiktoken", "prometheus-client",
    "xxhash", "msgpack", "jinja2", "cloudpickle", "setproctitle", "fastapi", "uvicorn", "openai",
    "partial-json-parser", "loguru", "gguf", "compressed-tensors", "uvloop", "pandas", "apache-tvm-ffi==0.1.11", "typer", "httpx",
    # flashinfer (imported by the V2 worker's closure) needs the CUDA Python bindings importable
    "cuda-bindings", "cuda-core", "cuda-pathfinder", "nvidia-ml-py",
)
_VENV_STAMP = "|".join(VENV_PACKAGES)
#: per-release pins read from the wheel's METADATA, with a fallback when it does not pin one
_PER_RELEASE = {"transformers": None, "tokenizers": "0.22.2", "xgrammar": None, "flashinfer-python": None}


class EnvError(RuntimeError):
    pass


def _root() -> Path:
    return wheels.cache_dir() / "shim-env"


def _pip(python: Path, *args: str) -> None:
    proc = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *args],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise EnvError(f"pip install {' '.join(args)} failed:\n{proc.stderr[-3000:]}")


def venv_python() -> Path:
    """The shared CPU venv's interpreter, built on first use."""
    venv = _root() / "venv"
    python = venv / "bin" / "python"
    stamp = venv / ".dflash-migrate-stamp"
    if python.exists() and stamp.exists() and stamp.read_text() == _VENV_STAMP:
        return python
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    _pip(python, *VENV_PACKAGES)  # on a changed list, pip only adds what is missing
    stamp.write_text(_VENV_STAMP)
    return python


def _pins(release_site: Path, version: str) -> list[str]:
    metadata = release_site / f"sglang-{version}.dist-info" / "METADATA"
    pins: dict[str, str] = {}
    for line in metadata.read_text().splitlines():
        if line.startswith("Requires-Dist:") and "==" in line and ";" not in line:
            name, _, pinned = line.split(":", 1)[1].strip().partition("==")
            name = name.split("[")[0].strip().lower().replace("_", "-")
            pins[name] = pinned.strip()
    chosen = []
    for name, fallback in _PER_RELEASE.items():
        value = pins.get(name, fallback)
        if value:
            chosen.append(f"{name}=={value}")
    return chosen


def release_site(version: str) -> Path:
    """A folder with ``sglang==version`` (``--no-deps``) and its per-release pins."""
    python = venv_python()
    site = _root() / f"site-{version}"
    marker = site / ".complete"
    if marker.exists():
        return site
    wheel = wheels.download_wheel(version)
    _pip(python, "--no-deps", "--target", str(site), "--upgrade", str(wheel))
    _pip(python, "--no-deps", "--target", str(site), "--upgrade", *_pins(site, version))
    marker.write_text(version)
    return site


def run_in_release(version: str, args: list[str], env: dict[str, str] | None = None,
                   timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """Run ``python ARGS`` in the release's environment with the repository importable."""
    python = venv_python()
    site = release_site(version)
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("SGLANG_", "DFLASH_MIGRATE_SHIM"))}
    full_env["PYTHONPATH"] = os.pathsep.join([str(site), str(REPO)])
    full_env.update(env or {})
    return subprocess.run([str(python), *args], capture_output=True, text=True, env=full_env,
                          timeout=timeout, cwd=str(REPO))


def probe(version: str, command: str, payload: dict | None = None, env: dict[str, str] | None = None,
          fake_cuda: bool = True) -> dict:
    """Run ``tests/shim_sglang_probe.py COMMAND`` in a release and return its JSON result."""
    args = [str(REPO / "tests" / "shim_sglang_probe.py")]
    if fake_cuda:
        args.append("--fake-cuda")
    args += [command, json.dumps(payload or {})]
    proc = run_in_release(version, args, env=env)
    for line in proc.stdout.splitlines():
        if line.startswith("SHIM-PROBE "):
            return json.loads(line[len("SHIM-PROBE "):])
    raise EnvError(f"probe {command} on sglang {version} printed no result (rc={proc.returncode}):\n"
                   f"{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}")


def project_wheel(dest: Path) -> Path:
    """This working tree's wheel (what ``pip install dflash-migrate`` installs), copied into
    ``dest``: built once per test run (a build with pip's isolated build environment costs
    several seconds, and three modules need the same wheel)."""
    dest.mkdir(parents=True, exist_ok=True)
    built = _built_wheel()
    return Path(shutil.copy2(built, dest / built.name))


@functools.cache
def _built_wheel() -> Path:
    import tempfile

    dest = Path(tempfile.mkdtemp(prefix="dflash-migrate-wheel-"))
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--disable-pip-version-check",
                           "-w", str(dest), str(REPO)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise EnvError(f"building the project wheel failed:\n{proc.stderr[-3000:]}")
    return next(dest.glob("dflash_migrate-*.whl"))


def wheel_venv(dest: Path, wheel: Path) -> Path:
    """A fresh virtual environment at ``dest`` with only ``wheel`` installed (no dependencies,
    no sglang); returns its interpreter. The shim and the catalog need only the standard library."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(dest)], check=True)
    python = dest / "bin" / "python"
    proc = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps",
                           "--no-index", "--disable-pip-version-check", str(wheel)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise EnvError(f"installing {wheel.name} failed:\n{proc.stderr[-3000:]}")
    return python


def site_packages(python: Path) -> Path:
    out = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         capture_output=True, text=True, check=True).stdout.strip()
    return Path(out)
