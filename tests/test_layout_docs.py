"""README's layout section lists every folder of ``migrator/``, one line each, in the layer
order the import-graph test checks, and no catch-all list (it drifted before: a moved
module stayed listed under its old place, and an "Also:" line collected what had no home)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.test_import_graph import LAYERS

ROOT = Path(__file__).resolve().parent.parent


def test_readme_layout_lists_every_layer_once_in_order() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    layout = readme.split("## Layout", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^- `(\w+)/`:", layout, flags=re.MULTILINE)
    assert listed == list(LAYERS)
    assert "Also" not in layout
    package = ROOT / "migrator"
    layer_lines = "\n".join(line for line in layout.splitlines() if line.startswith("- `"))
    for name in re.findall(r"`([\w/]+\.py)`", layer_lines):  # every file a layer line names exists
        assert any(package.rglob(name.rsplit("/", 1)[-1])), name


def test_the_core_design_names_only_paths_that_exist() -> None:
    """``docs/design/core.md`` describes today: every file or folder it names exists (a moved
    module fails here until the page follows it)."""
    page = (ROOT / "docs" / "design" / "core.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:migrator|tests|scripts|docs)/[\w./-]*|[A-Z]+\.md|pyproject\.toml)`", page))
    assert len(named) > 30, named
    assert [name for name in sorted(named) if not (ROOT / name).exists()] == []
