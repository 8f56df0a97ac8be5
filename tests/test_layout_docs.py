"""README's layout section names every module and package of ``migrator/`` (it drifted
before: a moved module stayed listed under its old place)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_readme_layout_names_every_top_level_module() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    layout = readme.split("## Layout", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"`([\w/]+(?:\.py|/))`", layout))
    package = ROOT / "migrator"
    modules = {p.name for p in package.glob("*.py") if p.name not in ("__init__.py", "__main__.py")}
    packages = {f"{p.name}/" for p in package.iterdir() if (p / "__init__.py").is_file()}
    assert (modules | packages) - named == set()
    modules_named = {name for name in named if name.endswith(".py") and not name.startswith("tests/")}
    stale = {name for name in modules_named if not (package / name).is_file() and not any(package.rglob(name))}
    assert stale == set()  # a module the layout names that is gone
