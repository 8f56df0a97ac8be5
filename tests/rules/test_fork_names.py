"""Valid/invalid cases for migrator/python/rules/fork_names.py: V1 objects reaching a file through
another module of the fork (DFM500) and registries of V1-derived fork classes (DFM502)."""

from __future__ import annotations

from pathlib import Path

from codemod_helpers import write_tree

from migrator.run import engine


def lint(root: Path, files: dict[str, str]) -> list[tuple[str, int, str]]:
    write_tree(root, {"pkg/__init__.py": "", **files})
    outcome = engine.run([root], engine.Options(mode="lint", target_version="0.5.17", jobs=1))
    return sorted((Path(f.path).name, f.line, f.code) for r in outcome.results for f in r.findings)


def test_a_reexported_v1_class_is_reported_where_it_is_imported(tmp_path: Path) -> None:
    found = lint(tmp_path, {
        "pkg/compat.py": "from sglang.srt.speculative.dflash_worker import DFlashWorker\n",
        "pkg/use.py": "from .compat import DFlashWorker\n",
    })
    assert ("use.py", 1, "DFM500") in found


def test_a_registry_of_a_v1_derived_fork_class_is_reported(tmp_path: Path) -> None:
    found = lint(tmp_path, {
        "pkg/workers.py": """\
            from sglang.srt.speculative.dflash_worker import DFlashWorker


            class MyWorker(DFlashWorker):
                pass
            """,
        "pkg/registry.py": """\
            from .workers import MyWorker

            WORKERS = {"dflash": MyWorker}
            """,
    })
    assert ("registry.py", 3, "DFM502") in found


def test_the_forks_own_class_of_the_same_name_is_not_a_v1_object(tmp_path: Path) -> None:
    found = lint(tmp_path, {
        "pkg/compat.py": "class DFlashWorker:\n    pass\n",
        "pkg/use.py": "from .compat import DFlashWorker\n",
    })
    assert [finding for finding in found if finding[0] == "use.py"] == []
