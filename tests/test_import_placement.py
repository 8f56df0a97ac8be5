"""An import the fix adds goes where ruff's isort rules and isort's default profile put it
in a file whose imports are sorted (its section, its order), and after the last import
in a file whose imports are not (the user's order is never changed) (issue 48). At
8ed1b04 it was always appended after the last import, which ``ruff check --select I``
rejects in a sorted file."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path

import libcst as cst
import pytest

from migrator.base.model import AddImport
from migrator.edit.import_order import place

HAVE_TOOLS = all(importlib.util.find_spec(name) is not None for name in ("ruff", "isort"))
needs_tools = pytest.mark.skipif(not HAVE_TOOLS, reason="ruff and isort are in the test extra: pip install -e '.[test]'")
ADDED = AddImport("sglang.srt.speculative.dflash_utils", "compute_dflash_correct_drafts_and_bonus")
#: A module whose imports ruff and isort accept; the fix replaces
#: ``dflash_info.compute_dflash_correct_drafts_and_bonus`` and keeps ``dflash_info``.
SORTED = '''\
"""A fork module."""

import os
import sys

import torch
from sglang.srt.managers import scheduler
from sglang.srt.speculative import dflash_info
from sglang.srt.utils import get_bool_env_var

from pkg import helpers


def check(req):
    scheduler.validate_dflash_request(req)
    draft = dflash_info.DFlashVerifyInput
    return dflash_info.compute_dflash_correct_drafts_and_bonus(req, draft, os, sys, torch, helpers, get_bool_env_var)
'''


def _ruff_sorted(tree: Path, path: Path) -> bool:
    """``ruff check --select I`` accepts ``path`` (``pkg`` first-party: ``src = ["."]``)."""
    (tree / "ruff.toml").write_text('src = ["."]\nline-length = 120\n')
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--select", "I", str(path)],
                          capture_output=True, text=True, cwd=tree, check=False)
    assert done.returncode in (0, 1), done.stderr
    return done.returncode == 0


def _isort_sorted(tree: Path, text: str) -> bool:
    """isort's default profile accepts ``text``'s order (lines not wrapped: the order is what counts)."""
    import isort

    return isort.check_code(text, config=isort.Config(line_length=200, src_paths=(str(tree),)), show_diff=False)


def _package(tree: Path) -> None:
    """The first-party package ``pkg`` the module imports from (a section of its own)."""
    (tree / "pkg").mkdir(exist_ok=True)
    (tree / "pkg" / "__init__.py").write_text("")
    (tree / "pkg" / "helpers.py").write_text("")


def _fix(tree: Path, text: str) -> str:
    _package(tree)
    module = tree / "pkg" / "mod.py"
    module.write_text(text)
    done = subprocess.run([sys.executable, "-m", "migrator", str(tree), "--allow-dirty", "--target-version", "0.5.17"],
                          capture_output=True, text=True, cwd=tree, check=False)
    assert done.returncode in (0, 1), done.stderr
    return module.read_text()


@needs_tools
def test_an_added_import_takes_its_sorted_place_in_a_sorted_file(tmp_path: Path) -> None:
    _package(tmp_path)
    assert _ruff_sorted(tmp_path, _write(tmp_path / "before.py", SORTED))
    after = _fix(tmp_path, SORTED)
    lines = after.splitlines()
    added = lines.index(f"from {ADDED.module} import {ADDED.name}")
    assert lines[added - 1:added + 2:2] == ["from sglang.srt.speculative import dflash_info",
                                            "from sglang.srt.utils import get_bool_env_var"], after
    assert _ruff_sorted(tmp_path, tmp_path / "pkg" / "mod.py"), after
    assert _isort_sorted(tmp_path, SORTED) and _isort_sorted(tmp_path, after), after


def test_an_added_import_in_an_unsorted_file_goes_after_the_last_import_and_nothing_moves(tmp_path: Path) -> None:
    unsorted = SORTED.replace("import os\nimport sys\n", "import sys\nimport os\n")
    after = _fix(tmp_path, unsorted)
    lines = after.splitlines()
    new = f"from {ADDED.module} import {ADDED.name}"
    assert lines[lines.index(new) - 1] == "from pkg import helpers", after
    kept = [line for line in lines if line != new]
    old = [line for line in unsorted.splitlines() if line.strip() and "compute_dflash" not in line]
    assert [line for line in kept if line in old] == old, "the user's lines were reordered"


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


#: (imports before, the import added, the imports after): each before-block is sorted.
PLACES = [
    ("import os\n\nimport torch\nfrom sglang.srt.utils import x\n",
     AddImport("sglang.srt.speculative.dflash_utils", "f"),
     "import os\n\nimport torch\nfrom sglang.srt.speculative.dflash_utils import f\nfrom sglang.srt.utils import x\n"),
    ("import os\n\nfrom sglang.srt.utils import x\n\nfrom . import local\n",
     AddImport("sglang.srt.speculative.dflash_utils", "f"),
     ("import os\n\nfrom sglang.srt.speculative.dflash_utils import f\nfrom sglang.srt.utils import x\n\n"
      "from . import local\n")),
    ("import os\n\nimport sglang\nfrom sglang.srt.managers import m\n",
     AddImport("sglang.srt.speculative.dflash_utils", "f"),
     "import os\n\nimport sglang\nfrom sglang.srt.managers import m\nfrom sglang.srt.speculative.dflash_utils import f\n"),
    ("import os\n\nfrom ..managers import m\nfrom .dflash_info import d\n",
     AddImport("dflash_utils", "f", 1),
     "import os\n\nfrom ..managers import m\nfrom .dflash_info import d\nfrom .dflash_utils import f\n"),
    ("import os\n\nfrom ..managers import m\nfrom .dflash_info import d\n",
     AddImport("speculative.dflash_utils", "f", 2),
     "import os\n\nfrom ..managers import m\nfrom ..speculative.dflash_utils import f\nfrom .dflash_info import d\n"),
]


@needs_tools
@pytest.mark.parametrize(("before", "item", "expected"), PLACES)
def test_the_sorted_place_is_the_one_ruff_and_isort_accept(tmp_path: Path, before: str, item: AddImport,
                                                            expected: str) -> None:
    package = tmp_path / "fork"  # not a folder named sglang: ruff would take sglang for first-party
    package.mkdir()
    assert _ruff_sorted(tmp_path, _write(package / "before.py", before))
    module, left = place(cst.parse_module(before), [item])
    assert left == [] and module.code == expected
    assert _ruff_sorted(tmp_path, _write(package / "after.py", module.code)), module.code
    assert _isort_sorted(tmp_path, before) and _isort_sorted(tmp_path, module.code), module.code


@pytest.mark.parametrize("before", [
    "import sys\nimport os\n",  # not sorted
    "import os\n\nfrom torch import t\n",  # no section shows where sglang goes
    "import os\n\nfrom sglang.srt.speculative.dflash_utils import g\n",  # libcst adds the name to that statement
    "from sglang.srt.utils import x\nimport os\n\nfrom sglang.srt.managers import m\n",  # sglang in two sections
])
def test_without_a_sorted_place_the_import_is_left_to_libcst(before: str) -> None:
    item = AddImport("sglang.srt.speculative.dflash_utils", "f")
    module, left = place(cst.parse_module(before), [item])
    assert left == [item] and module.code == before


def test_a_comment_above_the_first_import_of_a_section_stays_with_it() -> None:
    before = textwrap.dedent("""\
        import os

        # third party
        from sglang.srt.utils import x
        """)
    module, _ = place(cst.parse_module(before), [AddImport("sglang.srt.speculative.dflash_utils", "f")])
    assert module.code == "import os\n\nfrom sglang.srt.speculative.dflash_utils import f\n# third party\n" \
        "from sglang.srt.utils import x\n"
