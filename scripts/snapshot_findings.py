"""The findings and fixes of today's code on every corpus, against a recorded snapshot.

``python scripts/snapshot_findings.py`` compares; ``--write`` regenerates
``tests/data/findings_snapshot/<corpus>.json``; ``--slow`` adds sglang 0.5.13's own tree
(the wheel from PyPI, cached in ``$DFLASH_MIGRATE_CACHE``); ``--corpus NAME`` picks one.

Issue 29's redesign must keep findings and fixes identical to those of the commit it
starts from (R, recorded at c1cdd20); ``tests/test_findings_unchanged.py`` runs this
comparison. A change that alters findings on purpose (a new rule, a corrected answer)
regenerates the snapshot in the same commit, with ``--write`` (``--write --slow`` when the
sglang tree is concerned), and the reviewer reads the snapshot's diff: each line is one
finding or one line of a fix's diff, so ``git diff`` shows exactly what changed.

For each corpus, copied into a temporary folder (no git repository around it, so the
paths and the result do not depend on the checkout) and run there on ``.`` through the
real CLI with a fixed target release:

- ``lint``: ``--format json``, each finding as
  ``path:line:column-end_line:end_column: code message [fix applicability]``, the files
  with errors, the unused suppressions, the summary, the exit code and standard error;
- ``fix --diff`` and ``fix --diff --unsafe-fixes``: the unified diff (what ``fix`` would
  write, line by line), the exit code and standard error (the manual TODOs and the summary).
  A line longer than 240 characters is kept as its start and its sha256.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]
SNAPSHOT = REPO / "tests" / "data" / "findings_snapshot"
TARGET = "0.5.17"
#: The corpora that need a download (their snapshot is written and compared with ``--slow``).
SLOW = {"sglang_0_5_13"}
COMMANDS = {
    "lint": ("lint", ".", "--format", "json"),
    "fix": ("fix", ".", "--diff"),
    "fix --unsafe-fixes": ("fix", ".", "--diff", "--unsafe-fixes"),
}


def _copy(source: Path) -> Callable[[Path], None]:
    return lambda destination: shutil.copytree(source, destination, symlinks=True, dirs_exist_ok=True)


def _test_module(name: str) -> ModuleType:
    """A test module of this repository, for the corpora it declares (one spelling of each case)."""
    spec = importlib.util.spec_from_file_location(f"_snapshot_{name}", REPO / "tests" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def _hostile(destination: Path) -> None:
    """The hostile files of tests/test_hostile.py (without the links and the fifo: those are
    about the file system, not findings), the shell settings of tests/test_hostile_shell.py
    and the disguised names of tests/test_hostile_prefilter.py."""
    hostile, shell, prefilter = (_test_module(n) for n in ("test_hostile", "test_hostile_shell", "test_hostile_prefilter"))
    files = {f"hostile/{case.name}": case.data for case in hostile.CASES}
    files.update(hostile.GOOD)
    files.update({f"shell/case_{i:02}.sh": source.encode() for i, (source, _) in enumerate(shell.SHELL_CASES)})
    files["prefilter/disguised.py"] = prefilter.DISGUISED.encode()
    files["prefilter/math.py"] = (prefilter.DISGUISED + prefilter.MATH).encode()
    for relative, data in files.items():
        (destination / relative).parent.mkdir(parents=True, exist_ok=True)
        (destination / relative).write_bytes(data)


#: Relative imports, in range and one to several levels beyond the top package (Python
#: raises ImportError there: nothing may be resolved, found or linked on those lines).
RELATIVE_IMPORTS = {
    "python/sglang/__init__.py": "",
    "python/sglang/srt/__init__.py": "",
    "python/sglang/srt/speculative/__init__.py": "",
    "python/sglang/srt/speculative/patch.py": (
        "from .dflash_worker import DFlashWorker\n"
        "from . import dflash_worker as dw\n"
        "from ......srt.speculative.dflash_worker import DFlashWorker as Wrapped\n"
        "from .....speculative.dflash_info import DFlashDraftInput\n"
        "x = (dw.DFlashWorker, DFlashWorker, Wrapped, DFlashDraftInput)\n"),
    "python/sglang/srt/other/__init__.py": "from .. import speculative\nfrom ... import srt\n",
    "python/sglang/srt/other/use.py": "from ..speculative.dflash_info import DFlashDraftInput\n",
    "fork/__init__.py": "from .. import sglang\nfrom ..sglang.srt.speculative import dflash_worker\n",
    "fork/a/__init__.py": "",
    "fork/a/b/__init__.py": "",
    "fork/a/b/mod.py": (
        "from ...sglang.srt.speculative.dflash_worker import DFlashWorker\n"
        "from .....sglang.srt.speculative.dflash_info import DFlashDraftInput\n"
        "try:\n"
        "    from ....sglang.srt.speculative.dflash_worker import DFlashWorker as Guarded\n"
        "except ImportError:\n"
        "    Guarded = None\n"
        "use = (DFlashWorker, DFlashDraftInput, Guarded)\n"),
    "fork/a/b/user.py": "from .mod import DFlashWorker, Guarded\nfrom ...a.b.mod import DFlashDraftInput\n",
}


def _relative_imports(destination: Path) -> None:
    for relative, text in RELATIVE_IMPORTS.items():
        (destination / relative).parent.mkdir(parents=True, exist_ok=True)
        (destination / relative).write_text(text, encoding="utf-8")


def _sglang_tree(destination: Path) -> None:
    from migrator.releases.wheels import unpacked_wheel

    shutil.copytree(unpacked_wheel("0.5.13") / "sglang", destination / "sglang", symlinks=True)


def corpora() -> dict[str, Callable[[Path], None]]:
    """Every corpus, by name -> a function that lays it out in an empty folder."""
    return {
        "acme_spec": _copy(REPO / "tests" / "data" / "forks" / "acme_spec"),
        "index_fixture": _copy(REPO / "tests" / "data" / "forks" / "index_fixture"),
        "legacy_fork": _copy(REPO / "examples" / "legacy_fork"),
        "legacy_fork_expected": _copy(REPO / "tests" / "data" / "legacy_fork_expected"),
        "hostile": _hostile,
        "relative_imports": _relative_imports,
        "sglang_0_5_13": _sglang_tree,
    }


def _run(args: tuple[str, ...], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    env.pop("DFLASH_MIGRATE_ALWAYS_LIBCST", None)
    return subprocess.run([sys.executable, "-m", "migrator", *args, "--target-version", TARGET], check=False, cwd=cwd,
                          env=env, capture_output=True, text=True, errors="replace", timeout=1800)


#: A diff line longer than this is kept as its start and the sha256 of the whole (hostile
#: files hold lines of 100,000 characters).
LONGEST_LINE = 240


def _finding(item: dict) -> str:
    applicability = (item.get("fix") or {}).get("applicability", "none")
    return (f"{item['path']}:{item['line']}:{item['column']}-{item['end_line']}:{item['end_column']}: "
            f"{item['code']} {item['message']} [{applicability}]")


def _error(item: dict) -> str:
    return f"{item['path']}:{item['line']}:{item['column']}: {item['message']}"


def _readable(lines: list[str]) -> list[str]:
    return [line if len(line) <= LONGEST_LINE
            else f"{line[:80]}... ({len(line)} characters, sha256 {hashlib.sha256(line.encode()).hexdigest()})"
            for line in lines]


def record(name: str, extra: tuple[str, ...] = ()) -> dict:
    """The findings and fixes of the working tree's code on corpus ``name`` (``extra``: more
    options for every command, e.g. ``--parse-all``)."""
    with tempfile.TemporaryDirectory(prefix="dflash-snapshot-") as temporary:
        root = Path(temporary) / name
        root.mkdir()
        corpora()[name](root)
        result: dict = {"corpus": name, "target_version": TARGET}
        for label, args in COMMANDS.items():
            proc = _run((*args, *extra), root)
            entry: dict = {"exit": proc.returncode, "stderr": _readable(proc.stderr.splitlines())}
            if label == "lint":
                report = json.loads(proc.stdout)
                entry["findings"] = [_finding(item) for item in report["findings"]]
                entry["errors"] = [_error(item) for item in report["errors"]]
                entry["unused_suppressions"] = report["unused_suppressions"]
                entry["summary"] = report["summary"]
            else:
                entry["diff"] = _readable(proc.stdout.splitlines())
            result[label] = entry
        return result


def snapshot_path(name: str) -> Path:
    return SNAPSHOT / f"{name}.json"


def dumps(result: dict) -> str:
    return json.dumps(result, indent=1, ensure_ascii=False) + "\n"


def difference(name: str) -> str:
    """A unified diff between the recorded snapshot of ``name`` and today's output ("" when equal)."""
    path = snapshot_path(name)
    recorded = path.read_text(encoding="utf-8") if path.exists() else ""
    current = dumps(record(name))
    return "".join(difflib.unified_diff(recorded.splitlines(keepends=True), current.splitlines(keepends=True),
                                        f"recorded {path.relative_to(REPO)}", "today"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="regenerate the snapshot instead of comparing")
    parser.add_argument("--slow", action="store_true", help="include sglang 0.5.13's tree (downloads the wheel)")
    parser.add_argument("--corpus", action="append", choices=sorted(corpora()), help="only this corpus (repeatable)")
    args = parser.parse_args(argv)
    names = args.corpus or [n for n in corpora() if args.slow or n not in SLOW]
    changed = 0
    for name in names:
        if args.write:
            SNAPSHOT.mkdir(parents=True, exist_ok=True)
            snapshot_path(name).write_text(dumps(record(name)), encoding="utf-8")
            print(f"wrote {snapshot_path(name).relative_to(REPO)}")
            continue
        diff = difference(name)
        if diff:
            changed += 1
            sys.stdout.write(diff)
        print(f"{name}: {'CHANGED' if diff else 'unchanged'}", file=sys.stderr)
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
