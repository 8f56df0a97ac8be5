"""Issue 45: no default fix changes what code does. A corpus of the shapes teams write —
monkeypatches through module aliases, ``setattr`` loops, ``mock.patch`` strings, probes that
report which API generation is present, fallback chains for releases older than the pin,
re-exports — fixed in both modes, then checked:

* by pyflakes parity: the fixed module has no message of any kind more often than the
  original (the write guard's own rule, ``migrator.python.guard.added_flakes``, checked here
  with pyflakes directly);
* by what each shape must keep: the patch still patches where the scheduler looks the name
  up, the probe still answers "not V1" on V2;
* (slow) by executing the fixed modules against the real wheels of the range's ends,
  0.5.14 and 0.5.23, where the patched function must be the one the scheduler calls and
  the probe must report V2.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from codemod_helpers import unwrapped
from pyflakes import checker

REPO = Path(__file__).resolve().parents[1]
PIN = "sglang>=0.5.14,<=0.5.23"

PATCHING = '''\
import sglang.srt.managers.scheduler as sched
from sglang.srt.managers import scheduler


def my_wrapper(req, enable_overlap=False):
    return "wrapped"


def install():
    sched.validate_dflash_request = my_wrapper


def install_setattr():
    setattr(scheduler, "validate_dflash_request", my_wrapper)


def uninstall():
    del sched.validate_dflash_request
'''

MOCKS = '''\
from unittest import mock


@mock.patch("sglang.srt.managers.scheduler.validate_dflash_request")
def check_patched(patched):
    return patched


def check_monkeypatch(monkeypatch):
    monkeypatch.setattr("sglang.srt.managers.scheduler.validate_dflash_request", lambda *args: None)
'''

PROBE = '''\
import logging

logger = logging.getLogger(__name__)

try:
    from sglang.srt.speculative.dflash_worker import DFlashWorker  # noqa: F401
    IS_V1 = True
except ImportError:
    IS_V1 = False


def generation():
    try:
        import sglang.srt.speculative.dflash_worker  # noqa: F401
        logger.info("V1 worker present")
        return "v1"
    except ImportError:
        logger.info("V2 worker")
        return "v2"
'''

FALLBACK = '''\
try:
    from sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2
except ImportError:  # sglang before 0.5.14
    from sglang.srt.speculative.dflash_worker import DFlashWorker as DFlashWorkerV2


def make(*args):
    return DFlashWorkerV2(*args)
'''

LOOPS = '''\
from sglang.srt.speculative import dflash_worker


def wrap_all(wrapper):
    for name in ("DFlashWorker",):
        setattr(dflash_worker, name, wrapper(getattr(dflash_worker, name)))
'''

REEXPORT = '''\
from sglang.srt.speculative.dflash_worker import DFlashWorker

__all__ = ["DFlashWorker"]
'''

USER = '''\
from meaning.reexport import DFlashWorker


class MyWorker(DFlashWorker):
    pass
'''

CORPUS = {"meaning/__init__.py": "", "meaning/patching.py": PATCHING, "meaning/mocks.py": MOCKS,
          "meaning/probe.py": PROBE, "meaning/fallback.py": FALLBACK, "meaning/loops.py": LOOPS,
          "meaning/reexport.py": REEXPORT, "meaning/user.py": USER}
MODES = {"safe": (), "unsafe": ("--unsafe-fixes",)}


def _tool(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(REPO)
    return subprocess.run([sys.executable, "-m", "migrator", *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=300)


def _write(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    (root / "requirements.txt").write_text(PIN + "\n")


@pytest.fixture(scope="module", params=sorted(MODES))
def fixed(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The corpus after ``fix`` in one mode, and the run's standard error."""
    root = tmp_path_factory.mktemp(f"meaning-{request.param}")
    _write(root, CORPUS)
    proc = _tool("fix", ".", "--allow-dirty", *MODES[request.param], cwd=root)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    return root, proc.stdout + proc.stderr


def _messages(source: str) -> Counter:
    found = checker.Checker(ast.parse(source), withDoctest=False).messages
    return Counter(type(message).__name__ for message in found)


def test_no_fix_adds_a_pyflakes_message(fixed: tuple[Path, str]) -> None:
    root, _ = fixed
    grown = {}
    for relative, before in CORPUS.items():
        after = (root / relative).read_text()
        added = _messages(after) - _messages(before)
        if added:
            grown[relative] = dict(added)
    assert grown == {}


def test_a_monkeypatch_through_a_module_alias_still_patches_the_scheduler(fixed: tuple[Path, str]) -> None:
    root, output = fixed
    # the scheduler module imports `validate_dflash_request` by name on every release
    # 0.5.14-0.5.23: the patch as written replaces what it calls; nothing to rewrite
    assert (root / "meaning/patching.py").read_text() == PATCHING
    assert "patch site (assigned) and still resolves on sglang 0.5.14..0.5.23: left as it is" in output


def test_patch_strings_keep_their_target(fixed: tuple[Path, str]) -> None:
    root, _ = fixed
    assert (root / "meaning/mocks.py").read_text() == MOCKS


def test_a_probe_that_reports_the_generation_is_not_inverted(fixed: tuple[Path, str]) -> None:
    root, _ = fixed
    text = (root / "meaning/probe.py").read_text()
    assert "from sglang.srt.speculative.dflash_worker import DFlashWorker  # noqa: F401" in text
    assert "        import sglang.srt.speculative.dflash_worker  # noqa: F401" in text
    assert "dflash_worker_v2" not in text.replace("`sglang.srt.speculative.dflash_worker_v2", "")
    assert unwrapped(text).count("invert that answer") == 3  # two names of the flag's import, one of the logged one


def test_a_fallback_for_older_releases_gains_no_second_spelling(fixed: tuple[Path, str]) -> None:
    root, _ = fixed
    text = (root / "meaning/fallback.py").read_text()
    assert "import DFlashWorkerV2 as DFlashWorkerV2" not in text
    assert text.count("DFlashWorkerV2") == FALLBACK.count("DFlashWorkerV2")


def test_reexports_stay_bound(fixed: tuple[Path, str]) -> None:
    root, _ = fixed
    tree = ast.parse((root / "meaning/reexport.py").read_text())
    bound = {alias.asname or alias.name for node in tree.body if isinstance(node, ast.ImportFrom) for alias in node.names}
    assert "DFlashWorker" in bound


def test_the_guard_names_the_dead_local_a_rewritten_monkeypatch_would_leave() -> None:
    from migrator.python import guard

    after = PATCHING.replace("import sglang.srt.managers.scheduler as sched\n",
                             "import sglang.srt.managers.scheduler as sched\n"
                             "from sglang.srt.speculative.dflash_utils import validate_dflash_request\n").replace(
        "    sched.validate_dflash_request = my_wrapper", "    validate_dflash_request = my_wrapper")
    reasons = " ".join(problem.reason for problem in guard.problems(PATCHING, after, ("0.5.14", "0.5.23")))
    assert "a local variable nothing reads (`validate_dflash_request`)" in reasons
    assert "an unused import (`sglang.srt.speculative.dflash_utils.validate_dflash_request`)" in reasons


def test_the_guard_refuses_a_new_redundant_alias() -> None:
    from migrator.python import guard

    before = "from a import B as C\nC()\n"
    after = "from a import C as C\nC()\n"
    (problem,) = guard.problems(before, after, "0.5.17")
    assert "`import X as X`" in problem.reason


RUN = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import shim_sglang_probe as probe
sys.meta_path.insert(0, probe._StandInFinder({"torchvision", "torchaudio", "sgl_kernel", "flashinfer.comm"}))
probe._fake_cuda()
probe._sgl_kernel_ops()
sys.path.insert(0, sys.argv[2])
import sglang.srt.managers.scheduler as scheduler
import meaning.patching, meaning.probe
meaning.patching.install()
looked_up = scheduler.__dict__["validate_dflash_request"]
print("MEANING " + json.dumps({"patched": looked_up is meaning.patching.my_wrapper,
                               "generation": meaning.probe.generation(), "is_v1": meaning.probe.IS_V1}))
"""


def test_both_modes_write_the_same_corpus(tmp_path_factory: pytest.TempPathFactory) -> None:
    """So the slow test below, which executes the default mode's output, covers both."""
    trees = {}
    for mode, flags in MODES.items():
        root = tmp_path_factory.mktemp(f"modes-{mode}")
        _write(root, CORPUS)
        assert _tool("fix", ".", "--allow-dirty", *flags, cwd=root).returncode in (0, 1)
        trees[mode] = {relative: (root / relative).read_text() for relative in CORPUS}
    assert trees["safe"] == trees["unsafe"]


@pytest.mark.slow
@pytest.mark.parametrize("release", ["0.5.14", "0.5.23"])
def test_the_fixed_corpus_behaves_as_written_on_the_range_ends(tmp_path: Path, release: str) -> None:
    import sglang_env

    if not (sglang_env._root() / f"site-{release}").exists():
        pytest.skip(f"the shared sglang {release} environment is not built (tests/sglang_env.py builds it: several GB)")
    _write(tmp_path, CORPUS)
    assert _tool("fix", ".", "--allow-dirty", cwd=tmp_path).returncode in (0, 1)
    try:
        proc = sglang_env.run_in_release(release, ["-c", RUN, str(REPO / "tests"), str(tmp_path)])
    except sglang_env.EnvError as error:  # pragma: no cover - offline
        pytest.skip(f"sglang {release} environment not available: {error}")
    line = next((line for line in proc.stdout.splitlines() if line.startswith("MEANING ")), None)
    assert line is not None, proc.stdout[-2000:] + proc.stderr[-4000:]
    assert json.loads(line[len("MEANING "):]) == {"patched": True, "generation": "v2", "is_v1": False}


def test_the_guard_skips_pyflakes_only_for_one_to_one_renames() -> None:
    from migrator.python.guard import renames_only

    before = "from m import W\n\nW()\n"
    assert renames_only(before, "from m_v2 import WV2\n\n# TODO(dflash-migrate): a note\nWV2()\n")
    assert not renames_only(before, "from m_v2 import WV2\n\nW()\n")  # W left: not a rename of every use
    assert not renames_only("from m import W\nfrom n import X\nW(X)\n", "from m import X\nfrom n import X\nX(X)\n")
    two = "if a:\n    from m import W\nelse:\n    from n import W\nW()\n"
    assert not renames_only(two, two.replace("from m import W", "from m import WV2").replace("W()", "WV2()"))


def test_patch_sites_are_found_where_code_replaces_a_name() -> None:
    from migrator.python.patch_sites import patch_sites

    source = '''\
import m
from unittest import mock

m.a = 1
m.b += 1
del m.c
setattr(m, "d", 1)
monkeypatch.setattr("m.e", 1)
for name in ("f", "g"):
    setattr(m, name, 1)


@mock.patch("m.h")
@REGISTRY.register("i")
def test(patched):
    return m.j
'''
    tree = ast.parse(source)
    found = patch_sites(tree, tuple(range(1, len(source.splitlines()) + 1)))
    lines = source.splitlines()
    texts = {(line, lines[line - 1][column:end_column]): kind
             for (line, column, end_line, end_column), kind in found.items()}
    assert texts == {(4, "m.a"): "assigned", (5, "m.b"): "assigned", (6, "m.c"): "deleted",
                     (7, "m"): "the owner in a `setattr` call", (7, '"d"'): "the name in a `setattr` call",
                     (8, '"m.e"'): "a `monkeypatch.setattr` target", (9, "name"): "a loop target",
                     (9, '"f"'): "a name a loop passes to `setattr`", (9, '"g"'): "a name a loop passes to `setattr`",
                     (10, "m"): "the owner in a `setattr` call", (10, "name"): "the name in a `setattr` call",
                     (13, '"m.h"'): "a `mock.patch` target", (14, '"i"'): "a registry key"}  # `m.j` is only read


def test_a_patch_site_whose_name_moves_inside_the_range_gets_a_todo(tmp_path: Path) -> None:
    source = ("from sglang.srt.speculative import dflash_utils\n\n\ndef install(mine):\n"
              "    dflash_utils.compute_dflash_correct_drafts_and_bonus = mine\n")
    (tmp_path / "hooks.py").write_text(source)
    proc = _tool("fix", "hooks.py", "--allow-dirty", "--target-version", "0.5.20..0.5.23", cwd=tmp_path)
    text = (tmp_path / "hooks.py").read_text()
    assert "    dflash_utils.compute_dflash_correct_drafts_and_bonus = mine\n" in text, proc.stderr
    assert "this is a patch site (assigned)" in unwrapped(text)


def test_an_import_the_fix_leaves_unused_is_not_a_new_message() -> None:
    """Removing ``os.environ[...] = "0"`` leaves ``import os`` unused: the statement runs as
    before, so the guard does not count it; an import the fix adds that nothing uses it does."""
    from migrator.python import guard

    before = 'import os\n\nos.environ["X"] = "0"\nrun()\n'
    assert guard.problems(before, "import os\n\nrun(flag=True)\n", "0.5.17") == []
    (problem,) = guard.problems(before, "import os\nfrom m import flag\n\nrun(flag=True)\n", "0.5.17")
    assert "an unused import (`m.flag`)" in problem.reason
