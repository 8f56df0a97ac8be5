"""Hostile inputs mixed with good files, through the real CLI (``fix``, ``--check``, ``lint``).

For every hostile file: a clear message naming the file (and the line where there is
one), exit code 2 when a file could not be processed, every good file still processed,
nothing outside the root touched, no file partially written, no temp file left behind.

Cases that need special machinery have their own tests below: files that cannot be read
and read-only folders (root bypasses permission bits, so the CLI runs with
CAP_DAC_OVERRIDE/CAP_DAC_READ_SEARCH/CAP_FOWNER dropped via ``setpriv``), a file changed
by someone else between read and write (a seam in ``pipeline.process_bytes``), the 50 MB file
and the SIGINT half-way through a large tree (slow tier).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
V1 = b"from sglang.srt.speculative.dflash_worker import DFlashWorker\n"
V1_CRLF = V1.replace(b"\n", b"\r\n")
TEMP_SUFFIX = ".dflash-migrate.tmp"


def migrated(data: bytes) -> bytes:
    """What the codemod makes of the V1 names these fixtures use (nothing else changes)."""
    data = data.replace(b"speculative.dflash_worker import", b"speculative.dflash_worker_v2 import")
    return re.sub(rb"\bDFlashWorker\b", b"DFlashWorkerV2", data)


def cli(*args: str | Path, cwd: Path | None = None, prefix: tuple[str, ...] = (), timeout: float = 300) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1", "COLUMNS": "200"}
    env.pop("DFLASH_MIGRATE_SHIM", None)
    return subprocess.run([*prefix, sys.executable, "-m", "migrator", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)


def snapshot(root: Path) -> dict[str, bytes]:
    """Relative path -> bytes of every regular file (symlinks and FIFOs recorded, not followed)."""
    out: dict[str, bytes] = {}
    for current, folders, files in os.walk(root, followlinks=False):
        for name in files + [f for f in folders if os.path.islink(os.path.join(current, f))]:
            full = Path(current) / name
            rel = full.relative_to(root).as_posix()
            if full.is_symlink():
                out[rel] = b"->" + os.fsencode(os.readlink(full))
            elif full.is_file():
                out[rel] = full.read_bytes()
            else:
                out[rel] = b"<special>"
    return out


def digest(root: Path) -> str:
    h = hashlib.sha256()
    for rel, data in sorted(snapshot(root).items()):
        h.update(rel.encode() + b"\0" + data + b"\0")
    for current, _folders, files in os.walk(root):
        for name in files:
            h.update(str(os.lstat(os.path.join(current, name)).st_mode).encode())
    return h.hexdigest()


def temp_files(root: Path) -> list[str]:
    return [str(p) for p in root.rglob("*") if p.name.endswith(TEMP_SUFFIX)]


# ---- the mixed tree --------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    name: str
    data: bytes
    #: "migrated" (rewritten, bytes == migrated(data)), "error" (exit 2, untouched),
    #: "untouched" (nothing to do, no message)
    outcome: str
    message: str = ""
    line: int | None = None


NEW_SYNTAX = V1 + b"""\
match command:
    case [1, *rest] if (n := len(rest)) > 2:
        worker = DFlashWorker
    case {"kind": DFlashWorker(), **others}:
        pass
    case _:
        pass
with (open("a") as first, open("b") as second):
    pass
try:
    pass
except* ValueError as group:
    pass
async def agen():
    async with lock as held:
        await step()
    return [x async for x in stream]
def pos(a, /, b, *, c): ...
value = f"{worker!r:>{width}} {'nested'}"
"""

CASES = [
    Case("syntax_error.py", V1 + b"def f(:\n    pass\n", "error", "syntax error: invalid syntax", 2),
    Case("python2.py", V1 + b"print 'hello'\nexec 'x = 1'\n", "error", "syntax error: Missing parentheses in call to 'print'", 2),
    Case("new_syntax.py", NEW_SYNTAX, "migrated"),
    Case("latin1_cookie.py", b"# -*- coding: latin-1 -*-\n" + V1 + b"s = '\xe9t\xe9 \xa9'\n", "migrated"),
    Case("undecodable.py", V1 + b"s = 'ok'\nt = '\xff\xfe'\n", "error", "cannot decode as utf-8: byte 0xff is invalid", 3),
    Case("undecodable_first_line.py", b"# \xff\n" + V1, "error", "cannot decode as utf-8: byte 0xff is invalid", 1),
    Case("bad_cookie.py", b"# -*- coding: no-such-codec -*-\n" + V1, "error", "encoding", 1),
    Case("bom.py", b"\xef\xbb\xbf" + V1 + b"x = DFlashWorker\n", "migrated"),
    Case("crlf.py", V1_CRLF + b"x = DFlashWorker\r\nif x:\r\n    y = 1\r\n", "migrated"),
    Case("mixed_endings.py", V1_CRLF + b"x = DFlashWorker\ny = 2\r\nz = 3\rw = 4\n", "migrated"),
    Case("tabs.py", V1 + b"if True:\n\tx = DFlashWorker\n\tif x:\n\t\ty = 1  \t# trailing\n", "migrated"),
    Case("form_feed.py", V1 + b"\x0c\nx = 1\n\x0cdef f():\n    return DFlashWorker\n", "migrated"),
    Case("no_final_newline.py", V1 + b"x = DFlashWorker", "migrated"),
    Case("binary.py", b"\x7fELF\x02\x01\x01\x00\x00DFlashWorker\x00\xff\xfe\x00", "error", "binary file (NUL byte", 1),
    Case("empty.py", b"", "untouched"),
    Case("deep_parens.py", V1 + b"x = " + b"(" * 300 + b"1" + b")" * 300 + b"\n", "error", "too many nested parentheses", 2),
    Case("deep_chain.py", V1 + b"x = DFlashWorker + " + b" + ".join([b"1"] * 30000) + b"\n", "error", "cannot parse: RecursionError", None),
    Case("deep_lambdas.py", V1 + b"x = " + b"lambda: " * 400 + b"DFlashWorker\n", "error", "nesting too deep", None),
    # The same nesting without any V1 name is never walked (only the names it binds are),
    # so the file is migrated.
    Case("deep_cold_lambdas.py", V1 + b"x = " + b"lambda: " * 400 + b"1\n", "migrated"),
    Case("deep_ok.py", V1 + b"x = " + b"[" * 90 + b"DFlashWorker" + b"]" * 90 + b"\n"
         + b"".join(b" " * i + b"if x:\n" for i in range(90)) + b" " * 90 + b"y = DFlashWorker\n", "migrated"),
    Case("many_strings.py", V1 + b"x = (" + b" ".join([b"'text'"] * 20000) + b")\ny = DFlashWorker\n", "migrated"),
    Case("only_mentions.py", b"# DFlashWorker is mentioned in a comment only\ns = 'DFlashWorkerV2 SGLANG_ENABLE_SPEC_V2_FOO'\n", "untouched"),
]
GOOD = {f"pkg/good_{i}.py": V1 + f"value_{i} = DFlashWorker\n".encode() for i in range(4)}
GOOD["pkg/__init__.py"] = b""
GOOD["dir_named.py/inner.py"] = V1 + b"inner = DFlashWorker\n"  # a folder named like a Python file
OUTSIDE_VICTIM = V1 + b"outside = DFlashWorker\n"


def build_tree(base: Path) -> tuple[Path, Path]:
    root = base / "root"
    outside = base / "outside"
    (root / "hostile").mkdir(parents=True)
    outside.mkdir()
    (outside / "victim.py").write_bytes(OUTSIDE_VICTIM)
    (outside / "pkg").mkdir()
    (outside / "pkg" / "also.py").write_bytes(OUTSIDE_VICTIM)
    for case in CASES:
        (root / "hostile" / case.name).write_bytes(case.data)
    for rel, data in GOOD.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    links = root / "links"
    links.mkdir()
    os.symlink("loop_b.py", links / "loop_a.py")
    os.symlink("loop_a.py", links / "loop_b.py")
    os.symlink(outside / "victim.py", links / "outside_file.py")
    os.symlink(outside / "pkg", links / "outside_folder")
    os.symlink("..", links / "parent_loop")
    os.symlink("missing.py", links / "dangling.py")
    os.mkfifo(root / "hostile" / "fifo.py")
    return root, outside


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The mixed tree after ``fix``, and fresh copies through ``--check`` and ``lint``."""
    out = {}
    for mode in ("fix", "check", "lint"):
        base = tmp_path_factory.mktemp(f"hostile-{mode}")
        root, outside = build_tree(base)
        before_outside = digest(outside)
        args = {"fix": ("fix",), "check": ("fix", "--check"), "lint": ("lint",)}[mode]
        start = time.monotonic()
        proc = cli(*args, root, "--allow-dirty" if mode == "fix" else "--jobs=2", cwd=base)
        out[mode] = dict(proc=proc, root=root, outside=outside, before_outside=before_outside,
                         seconds=time.monotonic() - start)
    return out


def _message_for(text: str, name: str) -> str:
    lines = [line for line in text.splitlines() if f"hostile/{name}" in line and ("error:" in line or "skipped:" in line)]
    return "\n".join(lines)


def _all_output(run: dict) -> str:
    """fix reports errors on stderr; lint's text report puts them with the findings on stdout."""
    return run["proc"].stdout + run["proc"].stderr


@pytest.mark.parametrize("mode", ["fix", "check", "lint"])
def test_run_completes_with_exit_2_and_nothing_outside(runs: dict, mode: str) -> None:
    run = runs[mode]
    proc = run["proc"]
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    assert digest(run["outside"]) == run["before_outside"]
    assert temp_files(run["root"]) == [] and temp_files(run["outside"]) == []
    assert (run["outside"] / "victim.py").read_bytes() == OUTSIDE_VICTIM


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
@pytest.mark.parametrize("mode", ["fix", "check", "lint"])
def test_hostile_case(runs: dict, mode: str, case: Case) -> None:
    run = runs[mode]
    path = run["root"] / "hostile" / case.name
    stderr = _all_output(run)
    message = _message_for(stderr, case.name)
    after = path.read_bytes()
    if case.outcome == "error":
        assert "error:" in message and case.message in message, stderr
        if case.line is not None:
            assert re.search(rf"hostile/{re.escape(case.name)}:{case.line}:\d+: error:", message), message
        assert after == case.data, "a file that could not be processed must be left byte-identical"
    elif case.outcome == "migrated":
        assert "error" not in message, message
        if mode == "fix":
            assert after == migrated(case.data)
        else:
            assert after == case.data
            assert re.search(rf"hostile/{re.escape(case.name)}:\d+:\d+: DFM10[12]", run["proc"].stdout + stderr)
    else:
        assert message == "" and f"hostile/{case.name}" not in stderr
        assert after == case.data


@pytest.mark.parametrize("mode", ["fix", "check", "lint"])
def test_good_files_still_processed(runs: dict, mode: str) -> None:
    run = runs[mode]
    for rel, data in GOOD.items():
        after = (run["root"] / rel).read_bytes()
        if mode == "fix":
            assert after == migrated(data), rel
        else:
            assert after == data
            if data:
                assert f"{rel}:1:" in run["proc"].stdout + run["proc"].stderr, rel


@pytest.mark.parametrize("mode", ["fix", "check"])
def test_links_and_fifo_reported_not_followed(runs: dict, mode: str) -> None:
    run = runs[mode]
    stderr = run["proc"].stderr
    for name in ("loop_a.py", "loop_b.py", "dangling.py"):
        assert re.search(rf"links/{name}: skipped: .*(dangling or a loop)", stderr), stderr
    assert re.search(r"links/outside_file\.py: skipped: .*outside the root", stderr), stderr
    assert re.search(r"links/outside_folder: skipped: symbolic link to a folder", stderr), stderr
    assert re.search(r"hostile/fifo\.py: skipped: a FIFO", stderr), stderr
    assert os.readlink(run["root"] / "links" / "outside_file.py") == str(run["outside"] / "victim.py")


def test_summary_counts_errors(runs: dict) -> None:
    proc = runs["fix"]["proc"]
    errors = sum(1 for c in CASES if c.outcome == "error")
    assert re.search(rf"\b{errors} files? with errors\b", proc.stderr), proc.stderr
    lint = runs["lint"]["proc"]
    assert re.search(rf"\b{errors} files? could not be processed", lint.stdout + lint.stderr), lint.stdout


def test_second_fix_run_has_only_the_same_errors(runs: dict) -> None:
    root = runs["fix"]["root"]
    before = snapshot(root)
    proc = cli("fix", root, "--allow-dirty", cwd=root.parent)
    assert proc.returncode == 2
    assert snapshot(root) == before
    assert re.search(r"\b0 changed\b", proc.stderr), proc.stderr


def test_given_fifo_and_special_paths_are_skipped(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    good = tmp_path / "good.py"
    good.write_bytes(V1)
    proc = cli("fix", fifo, good, "--allow-dirty", cwd=tmp_path, timeout=60)
    assert "pipe.py: skipped: a FIFO" in proc.stderr, proc.stderr
    assert good.read_bytes() == migrated(V1)
    assert proc.returncode == 0, proc.stderr


def test_stdin_hostile_input_is_echoed_unchanged(tmp_path: Path) -> None:
    data = V1 + b"def f(:\n"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-m", "migrator", "-", "--stdin-filename", "x.py"], input=data,
                          capture_output=True, env=env, timeout=60)
    assert proc.returncode == 2
    assert proc.stdout == data
    assert b"x.py:2:" in proc.stderr and b"syntax error" in proc.stderr


# ---- cannot be read / read-only folder (root bypasses permission bits) ---------------------

SETPRIV = ("setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner", "--")


def _setpriv_works(tmp_path: Path) -> bool:
    if shutil.which("setpriv") is None:
        return False
    probe = tmp_path / "probe"
    probe.write_text("x")
    probe.chmod(0)
    try:
        got = subprocess.run([*SETPRIV, "cat", str(probe)], capture_output=True, timeout=30)
    finally:
        probe.chmod(0o644)
    return got.returncode != 0


@pytest.fixture
def unprivileged(tmp_path: Path) -> tuple[str, ...]:
    if os.geteuid() != 0:
        return ()
    if not _setpriv_works(tmp_path):
        pytest.skip("running as root and setpriv cannot drop CAP_DAC_OVERRIDE here: permission bits are not enforced")
    return SETPRIV


def test_unreadable_file_and_read_only_folder(tmp_path: Path, unprivileged: tuple[str, ...]) -> None:
    root = tmp_path / "root"
    (root / "locked").mkdir(parents=True)
    (root / "open").mkdir()
    unreadable = root / "open" / "unreadable.py"
    unreadable.write_bytes(V1)
    in_locked = root / "locked" / "stuck.py"
    in_locked.write_bytes(V1 + b"x = DFlashWorker\n")
    good = root / "open" / "good.py"
    good.write_bytes(V1)
    unreadable.chmod(0)
    (root / "locked").chmod(0o555)
    try:
        proc = cli("fix", root, "--allow-dirty", cwd=tmp_path, prefix=unprivileged)
        lint = cli("lint", root, cwd=tmp_path, prefix=unprivileged)
    finally:
        unreadable.chmod(0o644)
        (root / "locked").chmod(0o755)
    assert proc.returncode == 2, proc.stderr
    assert re.search(r"open/unreadable\.py: error: cannot read file: permission denied", proc.stderr), proc.stderr
    assert re.search(r"locked/stuck\.py: error: cannot write: folder is not writable", proc.stderr), proc.stderr
    assert unreadable.read_bytes() == V1
    assert in_locked.read_bytes() == V1 + b"x = DFlashWorker\n"
    assert good.read_bytes() == migrated(V1)
    assert temp_files(root) == []
    assert lint.returncode == 2, lint.stderr
    assert "open/unreadable.py: error: cannot read file: permission denied" in lint.stdout + lint.stderr
    assert "locked/stuck.py:1:" in lint.stdout  # lint only reads: a read-only folder is fine


def test_read_only_file_is_reported_not_replaced(tmp_path: Path, unprivileged: tuple[str, ...]) -> None:
    target = tmp_path / "ro.py"
    target.write_bytes(V1)
    target.chmod(0o444)
    try:
        proc = cli("fix", target, "--allow-dirty", cwd=tmp_path, prefix=unprivileged)
    finally:
        target.chmod(0o644)
    assert proc.returncode == 2
    assert "ro.py: error: cannot write: file is read-only" in proc.stderr, proc.stderr
    assert target.read_bytes() == V1


# ---- changed by someone else between read and write ---------------------------------------------


def test_file_changed_between_read_and_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from migrator.run import engine, pipeline
    racing = tmp_path / "racing.py"
    calm = tmp_path / "calm.py"
    racing.write_bytes(V1)
    calm.write_bytes(V1)
    theirs = V1 + b"# their edit, saved while the tool was working\n"
    original = pipeline.process_bytes

    def process_then_someone_saves(path: str, data: bytes, options, *rest):  # noqa: ANN001, ANN002
        result = original(path, data, options, *rest)
        if path.endswith("racing.py"):
            racing.write_bytes(theirs)
        return result

    monkeypatch.setattr(pipeline, "process_bytes", process_then_someone_saves)
    outcome = engine.run([tmp_path], engine.Options(mode="fix", allow_dirty=True, jobs=1))
    errors = {Path(r.path).name: r.error for r in outcome.results if r.error}
    assert set(errors) == {"racing.py"}
    assert "changed on disk while it was being migrated" in errors["racing.py"].message
    assert racing.read_bytes() == theirs, "their edit must survive"
    assert calm.read_bytes() == migrated(V1)
    assert outcome.exit_code == 2
    assert temp_files(tmp_path) == []


#: Runs the CLI (its arguments after the watched file) and prints how often the watched
#: file was opened for reading in this process (``open`` audit events: ``open()``,
#: ``os.open``); git's own reads are other processes'.
_COUNT_READS = """
import atexit, os, runpy, sys
watched, reads = os.path.realpath(sys.argv[1]), []
def hook(event, args):
    if event == "open" and isinstance(args[0], (str, bytes)) and os.path.realpath(os.fsdecode(args[0])) == watched:
        mode, flags = args[1], args[2]
        if not (set(mode) & set("wax+") if mode else flags & (os.O_WRONLY | os.O_RDWR)):
            reads.append(mode)
sys.addaudithook(hook)
atexit.register(lambda: print(f"reads of the watched file: {len(reads)}", file=sys.stderr))
sys.argv = ["dflash-migrate", *sys.argv[2:]]
runpy.run_module("migrator", run_name="__main__")
"""


@pytest.mark.parametrize(("mode", "reads"), [("fix", 2), ("--diff", 1)])
def test_a_fixed_file_is_read_once(tmp_path: Path, mode: str, reads: int) -> None:
    """Issue 43: the worker reads a Python file once; the write checks "unchanged since
    read" against those bytes (its own re-read is that check), and ``--diff`` starts from
    them."""
    target = tmp_path / "w.py"
    target.write_bytes(V1)
    args = ["fix", "--allow-dirty", "--jobs", "1", *([mode] if mode != "fix" else []), "."]
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    done = subprocess.run([sys.executable, "-c", _COUNT_READS, str(target), *args], cwd=tmp_path, env=env,
                          capture_output=True, timeout=120, check=False)
    assert f"reads of the watched file: {reads}".encode() in done.stderr, done.stderr.decode()
    if mode == "fix":
        assert target.read_bytes() == migrated(V1)
    else:
        assert target.read_bytes() == V1 and b"+from sglang.srt.speculative.dflash_worker_v2 import" in done.stdout


def test_write_atomic_failure_leaves_original_and_no_temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from migrator.base import fileio

    target = tmp_path / "t.py"
    target.write_bytes(V1)

    def broken_replace(src, dst):  # noqa: ANN001
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(fileio.os, "replace", broken_replace)
    with pytest.raises(fileio.SourceError, match="cannot write: No space left on device"):
        fileio.write_atomic(target, migrated(V1), V1)
    assert target.read_bytes() == V1
    assert temp_files(tmp_path) == []


def test_permissions_kept_after_rewrite(tmp_path: Path) -> None:
    target = tmp_path / "script.py"
    target.write_bytes(b"#!/usr/bin/env python\n" + V1)
    target.chmod(0o751)
    proc = cli("fix", target, "--allow-dirty", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (target.stat().st_mode & 0o777) == 0o751
    assert target.read_bytes() == b"#!/usr/bin/env python\n" + migrated(V1)


# ---- slow tier: a 50 MB file, SIGINT half-way through a large tree ----------------------------------------


@pytest.mark.slow
def test_fifty_megabyte_file(tmp_path: Path) -> None:
    """A generated 50 MB module next to a good file: bounded time and memory, a clear message."""
    big = tmp_path / "generated_tables.py"
    row = b"    (%d, 'DFlashWorker', 3.25, None),\n"
    with big.open("wb") as stream:
        stream.write(V1 + b"TABLE = [\n")
        i = 0
        while stream.tell() < 50 * 1024 * 1024:
            stream.write(b"".join(row % (i + k) for k in range(1000)))
            i += 1000
        stream.write(b"]\n")
    original = hashlib.sha256(big.read_bytes()).hexdigest()
    good = tmp_path / "good.py"
    good.write_bytes(V1)
    lint = cli("lint", tmp_path, cwd=tmp_path, timeout=600)
    assert lint.returncode == 2
    assert "generated_tables.py:1:1: error: file too large to analyse" in lint.stdout + lint.stderr
    assert "good.py:1:" in lint.stdout
    start = time.monotonic()
    proc = cli("fix", tmp_path, "--allow-dirty", cwd=tmp_path, timeout=600)
    seconds = time.monotonic() - start
    assert proc.returncode == 2, proc.stderr
    assert re.search(r"generated_tables\.py:1:1: error: file too large to analyse \(5\d\.\d MiB > 2 MiB\); it mentions a V1 name", proc.stderr), proc.stderr
    assert hashlib.sha256(big.read_bytes()).hexdigest() == original
    assert good.read_bytes() == migrated(V1)
    assert temp_files(tmp_path) == []
    assert seconds < 120, seconds


def test_large_file_over_the_rewrite_limit_is_reported_not_rewritten(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from migrator.run import engine, python_file

    monkeypatch.setattr(python_file, "MAX_REWRITE_BYTES", 1000)
    big = tmp_path / "big.py"
    # removing the env setting is a structural (libcst) edit: over the limit it is refused
    data = V1 + b"import os\nos.environ['SGLANG_ENABLE_SPEC_V2'] = '1'\nx = DFlashWorker\n" + b"y = 1\n" * 500
    big.write_bytes(data)
    outcome = engine.run([tmp_path], engine.Options(mode="fix", allow_dirty=True, jobs=1))
    (result,) = outcome.results
    assert "file too large to rewrite" in result.error.message
    assert {f.code for f in result.findings} >= {"DFM101", "DFM102", "DFM201"}
    assert big.read_bytes() == data and outcome.exit_code == 2


def test_large_file_with_only_span_edits_is_still_rewritten(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from migrator.run import engine, python_file

    monkeypatch.setattr(python_file, "MAX_REWRITE_BYTES", 1000)
    big = tmp_path / "big.py"
    big.write_bytes(V1 + b"x = DFlashWorker\n" + b"y = 1\n" * 500)
    outcome = engine.run([tmp_path], engine.Options(mode="fix", allow_dirty=True, jobs=1))
    assert outcome.summary.files_with_errors == 0 and b"x = DFlashWorkerV2\n" in big.read_bytes()


def _large_tree(root: Path, count: int) -> dict[str, bytes]:
    files = {}
    for i in range(count):
        rel = f"pkg_{i % 40:02d}/mod_{i:05d}.py"
        body = (V1 + b"import os\n\n\n" + b"".join(
            b"def helper_%d_%d(value):\n    return DFlashWorker, value * %d\n\n\n" % (i, k, k) for k in range(30)))
        files[rel] = body
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(body)
    return files


# Runs the CLI with two observation points the SIGINT test controls (pipes, no timers): a
# worker that has written its 20th file says so and waits; the parent's SIGINT handler says
# it ran before raising KeyboardInterrupt as Python's default handler does.
_SIGINT_RUNNER = r"""
import os, signal, sys
from migrator.cli import main as cli
from migrator.run import write
ready, go, ack = (int(fd) for fd in sys.argv[1:4])
written = 0
real_write = write.write_atomic

def write_atomic(path, data, expected_old, **keywords):
    global written
    real_write(path, data, expected_old, **keywords)
    written += 1
    if written == 20:
        os.write(ready, b"%d\n" % os.getpid())
        os.read(go, 1)  # until the parent has taken the SIGINT

def on_sigint(signum, frame):
    os.write(ack, b"interrupted\n")
    signal.default_int_handler(signum, frame)

write.write_atomic = write_atomic
signal.signal(signal.SIGINT, on_sigint)
sys.argv = ["dflash-migrate", *sys.argv[4:]]
sys.exit(cli.main())
"""


@pytest.mark.slow
def test_sigint_half_way_through_a_large_tree(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    files = _large_tree(root, 3000)
    first = root / next(iter(files))
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    ready_r, ready_w = os.pipe()
    go_r, go_w = os.pipe()
    ack_r, ack_w = os.pipe()
    proc = subprocess.Popen([sys.executable, "-c", _SIGINT_RUNNER, str(ready_w), str(go_r), str(ack_w),
                             "fix", str(root), "--allow-dirty", "--jobs=2"],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            pass_fds=(ready_w, go_r, ack_w))
    for fd in (ready_w, go_r, ack_w):
        os.close(fd)
    with os.fdopen(ready_r) as ready, os.fdopen(ack_r) as ack:
        assert ready.readline(), "no worker reached its 20th file"  # a worker has written 20 files and waits
        proc.send_signal(signal.SIGINT)
        assert ack.readline() == "interrupted\n"  # the parent took it while that worker still waits
        os.close(go_w)  # let the waiting workers finish their chunk
    stdout, stderr = proc.communicate(timeout=300)
    text = stderr.decode(errors="replace")
    assert proc.returncode == 2, text[-3000:]
    assert "INTERRUPTED" in text, text[-3000:]
    assert "Traceback" not in text, text[-3000:]
    states = {"original": 0, "migrated": 0}
    for rel, data in files.items():
        now = (root / rel).read_bytes()
        if now == data:
            states["original"] += 1
        else:
            assert now == migrated(data), f"{rel} is neither original nor fully migrated"
            states["migrated"] += 1
    assert states["migrated"] > 0 and states["original"] > 0, states
    assert temp_files(root) == []
    again = cli("fix", root, "--allow-dirty", cwd=tmp_path, timeout=600)
    assert again.returncode == 0, again.stderr[-3000:]
    assert all((root / rel).read_bytes() == migrated(data) for rel, data in files.items())
    assert first.read_bytes() == migrated(files[first.relative_to(root).as_posix()])
    print(f"SIGINT: {states}")
