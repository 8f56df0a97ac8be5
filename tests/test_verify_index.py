"""The static sglang index and verify against tiny hand-made sglang trees (fast, offline)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from migrator.releases.index import SglangIndex
from migrator.verify import Target, exit_code, verify_paths, verify_source


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


FAKE_SGLANG = {
    "sglang/__init__.py": "from sglang.api import Engine\n",
    "sglang/api.py": "class Engine:\n    def generate(self): ...\n",
    "sglang/srt/__init__.py": "",
    "sglang/srt/base.py": """
        import abc
        from typing import TYPE_CHECKING
        if TYPE_CHECKING:
            from sglang.srt.ghost import Ghost
        class Base(abc.ABC):
            field_a: int = 0
            def run(self): ...
            @property
            def prop(self): return 1
        """,
    "sglang/srt/worker.py": """
        from sglang.srt.base import Base
        from .base import Base as B2
        import torch
        try:
            from sglang.srt.fast import thing
        except ImportError:
            thing = None
        class Worker(Base):
            def __init__(self):
                self.made_in_init = 1
                self.a, (self.b, self.c) = 1, (2, 3)
            def step(self, x): ...
        class TorchThing(torch.nn.Module):
            pass
        class Delegating(Base):
            def __getattr__(self, name): return 1
        default = Worker()
        delegating = Delegating()
        Alias = Worker
        """,
    "sglang/srt/reexport.py": "from sglang.srt.worker import *\nfrom .worker import Worker as W\n",
}


def test_index_resolves_definitions_reexports_inheritance(tmp_path: Path) -> None:
    idx = SglangIndex.from_tree(write(tmp_path, FAKE_SGLANG))
    found = [
        "sglang.Engine.generate", "sglang.srt.worker.Worker.run", "sglang.srt.worker.Worker.field_a",
        "sglang.srt.worker.Worker.prop", "sglang.srt.worker.Worker.made_in_init", "sglang.srt.worker.Worker.c",
        "sglang.srt.reexport.Worker.step", "sglang.srt.reexport.W.step", "sglang.srt.worker.B2.run",
        "sglang.srt.worker.default.step", "sglang.srt.worker.Alias.step"
    ]
    for name in found:
        assert idx.resolve(name).found, name
    missing = {
        "sglang.srt.worker.Worker.nope": "sglang.srt.worker.Worker.nope",
        "sglang.srt.base.Ghost": "sglang.srt.base.Ghost",  # TYPE_CHECKING only
        "sglang.srt.nomodule.X": "sglang.srt.nomodule",
        "sglang.srt.reexport._private": "sglang.srt.reexport._private",
    }
    for name, first_missing in missing.items():
        res = idx.resolve(name)
        assert res.missing and res.missing_name == first_missing, (name, res)
    # a guarded import of a module the tree lacks, with a fallback: exists, value unknown
    assert not idx.resolve("sglang.srt.worker.thing").missing
    assert idx.resolve("sglang.srt.worker.TorchThing.anything").status == "dynamic"
    # `__getattr__` answers an instance's lookups, never the class object's
    assert idx.resolve("sglang.srt.worker.delegating.anything").status == "dynamic"
    assert idx.resolve("sglang.srt.worker.Delegating.anything").missing
    assert idx.resolve("sglang.srt.worker.Delegating.run").found
    func = idx.resolve("sglang.srt.worker.Worker.step").ref.func  # type: ignore[union-attr]
    assert func is not None and func.params == ("self", "x")


def test_wheel_and_folder_give_the_same_answers(tmp_path: Path) -> None:
    import zipfile

    tree = write(tmp_path / "tree", FAKE_SGLANG)
    wheel = tmp_path / "sglang-0.0.1-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path in (tree / "sglang").rglob("*.py"):
            archive.write(path, path.relative_to(tree).as_posix())
    folder, packed = SglangIndex.from_tree(tree), SglangIndex.from_wheel(wheel)
    for name in ("sglang.srt.worker.Worker.run", "sglang.srt.worker.Worker.nope", "sglang.srt.reexport.W"):
        assert folder.resolve(name).status == packed.resolve(name).status


def test_verify_reports_missing_names_without_spelling_hints(tmp_path: Path) -> None:
    target = Target(SglangIndex.from_tree(write(tmp_path / "t", FAKE_SGLANG)), "0.5.17")
    source = textwrap.dedent("""
        from sglang.srt.worker import Worker, Wroker
        from sglang.srt import worker
        import sglang.srt.gone

        class Mine(Worker):
            def step(self, x):
                self.mine = 1
                super().rnu()
                return self.mine + self.made_in_init + self.stepp

        def use(w: Worker):
            w.run()
            w.nothing
            worker.Worker.step
            worker.Worker.steep
    """)
    findings = verify_source("f.py", source, target)
    got = [(f.line, f.code, f.message) for f in findings]
    assert [(line, code) for line, code, _ in got] == [
        (2, "DFM900"), (4, "DFM900"), (9, "DFM900"), (10, "DFM900"), (14, "DFM900"), (16, "DFM900"),
    ], got
    # A name spelled like the missing one is no successor: no "did you mean" from spelling.
    assert "`sglang.srt.worker.Wroker`" in got[0][2]
    assert "`Worker` has no attribute `rnu`" in got[2][2]
    assert "`stepp`" in got[3][2]
    assert "`sglang.srt.worker.Worker.steep`" in got[5][2]
    assert not any("did you mean" in message for _, _, message in got), got
    assert all(f.fix is None for f in findings)


def test_verify_resolves_relative_imports_of_an_sglang_fork(tmp_path: Path) -> None:
    target = Target(SglangIndex.from_tree(write(tmp_path / "t", FAKE_SGLANG)), None)
    fork = write(tmp_path / "fork", {
        "sglang/__init__.py": "",
        "sglang/srt/__init__.py": "",
        "sglang/srt/mine.py": "from .worker import Worker\nfrom .base import Missing\nfrom ..api import Engine\n",
    })
    results = verify_paths([fork], target)
    findings = [f for r in results for f in r.findings]
    assert [(Path(f.path).name, f.line) for f in findings] == [("mine.py", 2)]
    assert "sglang.srt.base.Missing" in findings[0].message
    assert exit_code(results) == 1


def test_verify_exit_code_2_on_unparsable_file(tmp_path: Path) -> None:
    target = Target(SglangIndex.from_tree(write(tmp_path / "t", FAKE_SGLANG)), None)
    bad = write(tmp_path / "bad", {"x.py": "def (:\n"})
    results = verify_paths([bad], target)
    assert results[0].error is not None and exit_code(results) == 2
    clean = write(tmp_path / "clean", {"y.py": "from sglang.srt.worker import Worker\n"})
    assert exit_code(verify_paths([clean], target)) == 0


def test_verify_finds_files_through_the_shared_discovery(tmp_path: Path) -> None:
    """``.gitignore`` and the config's ``exclude`` are honoured by ``verify`` as by ``lint``
    (it used to walk folders itself and report ignored, generated files)."""
    import os
    import subprocess
    import sys

    write(tmp_path / "t", FAKE_SGLANG)
    fork = write(tmp_path / "fork", {
        ".gitignore": "generated/\n",
        "pyproject.toml": '[tool.dflash-migrate]\nexclude = ["vendored/"]\n',
        "generated/g.py": "from sglang.srt.base import Missing\n",
        "vendored/v.py": "from sglang.srt.base import Missing\n",
        "src/s.py": "from sglang.srt.base import Missing\n",
    })
    (fork / ".git").mkdir()
    proc = subprocess.run([sys.executable, "-m", "migrator", "verify", "--sglang", str(tmp_path / "t"), "."],
                          cwd=fork, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])})
    assert proc.returncode == 1, proc.stderr
    assert "s.py" in proc.stdout and "g.py" not in proc.stdout and "v.py" not in proc.stdout, proc.stdout
