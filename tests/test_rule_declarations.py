"""Rules declare themselves (``RULE = Rule(...)`` / ``RULE = TextRule(...)``): what they emit
and read, and their place in the run order. These tests hold the declarations to what the
rules do, so that a new rule cannot emit a code it does not declare, take another rule's
code without saying why, or import another rule."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import migrator.python.rules as rules_package
from migrator import catalog
from migrator.python.rules import MODULES, RULES
from migrator.run.engine import Options, run
from migrator.text import emitted_codes, text_rules
from migrator.text.filetypes import MODULES as TEXT_MODULES

ROOT = Path(__file__).resolve().parent.parent
RULES_DIR = ROOT / "migrator" / "python" / "rules"
TEXT_DIR = ROOT / "migrator" / "text"
CODE = re.compile(r"\bDFM\d{3}\b")


def test_every_rule_module_is_registered_once_and_runs_in_declared_order() -> None:
    on_disk = {p.stem for p in RULES_DIR.glob("*.py")} - {"__init__", "context"}
    assert on_disk == set(MODULES)
    assert [rule.name for rule in RULES] == [rule.name for rule in sorted(RULES, key=lambda r: r.order)]
    assert len({rule.order for rule in RULES}) == len(RULES)
    assert len(rules_package.all_rules()) == len(RULES)  # (wrapped by conftest's declaration check)
    assert {rule.name for rule in RULES} == set(MODULES)


def test_two_rules_with_one_order_or_an_unexplained_share_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from migrator.python.rules import imports, references

    declared = references.RULE
    monkeypatch.setattr(references, "RULE", declared._replace(order=imports.RULE.order))
    with pytest.raises(RuntimeError, match="both declare order"):
        rules_package._registry()
    monkeypatch.setattr(references, "RULE", declared._replace(why=""))
    with pytest.raises(RuntimeError, match="without saying why"):
        rules_package._registry()


def test_each_catalog_code_has_exactly_one_owner() -> None:
    owners: dict[str, list[str]] = {}
    for rule in RULES:
        for code in rule.owns:
            owners.setdefault(code, []).append(rule.name)
    assert {code: names for code, names in owners.items() if len(names) > 1} == {}
    shared_unowned = {code for rule in RULES for code in rule.shares} - set(owners)
    assert shared_unowned == set()
    text_codes = set(catalog.codes_of_kind(catalog.TEXT_KIND))
    assert text_codes <= {code for name in TEXT_MODULES for code in text_rules()[name].codes}
    # the run owns DFM490: it reports other rules' findings in a history file under it (migrator.run.pipeline),
    # and the vendored-sglang code: the fork pass reports it once per vendored package (migrator.run.fork)
    assert set(catalog.by_code()) == set(owners) | text_codes | {catalog.HISTORY_CODE, catalog.VENDORED_CODE}
    declared = {code for rule in RULES for code in (*rule.emits, *rule.reads)}
    declared |= {code for name in TEXT_MODULES for code in emitted_codes(name)}
    assert declared <= set(catalog.by_code())


def codes_in_code(path: Path) -> set[str]:
    """Rule codes written as string literals in ``path``'s code (docstrings aside)."""
    tree = ast.parse(path.read_text())
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return {code for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docstrings for code in CODE.findall(node.value)}


@pytest.mark.parametrize("name", MODULES)
def test_codes_spelled_in_a_rule_are_declared(name: str) -> None:
    rule = next(rule for rule in RULES if rule.name == name)
    assert codes_in_code(RULES_DIR / f"{name}.py") <= rule.emits | set(rule.reads)


@pytest.mark.parametrize("name", TEXT_MODULES)
def test_codes_spelled_in_a_text_rule_are_declared(name: str) -> None:
    assert codes_in_code(TEXT_DIR / f"{name}.py") <= emitted_codes(name)


def test_generic_code_spells_no_rule_code() -> None:
    """Outside the catalog and the rules that own them, no code names a rule (help texts and
    docstrings that give an example aside); ``verify`` owns its own DFM9xx codes."""
    package = ROOT / "migrator"
    owners = {RULES_DIR / f"{name}.py" for name in MODULES} | {TEXT_DIR / f"{name}.py" for name in TEXT_MODULES}
    commands = package / "cli" / "commands"
    examples = {commands / "common.py", commands / "rules.py", commands / "verify.py",
                package / "base" / "suppressions.py"}  # help and error texts that show the syntax with an example code
    spelled = {str(path.relative_to(ROOT)): codes_in_code(path) for path in package.rglob("*.py")
               if path not in owners | examples and path not in (package / "catalog" / "entries.py", package / "catalog" / "scope.py")  # the catalog's data
               and "verify" not in path.parts}
    assert {path: codes for path, codes in spelled.items() if codes} == {}


@pytest.mark.parametrize("path", sorted([*RULES_DIR.glob("*.py"), *TEXT_DIR.glob("*.py")]), ids=lambda p: p.name)
def test_no_rule_imports_another_rules_private_name(path: Path) -> None:
    tree = ast.parse(path.read_text())
    package = "migrator.python.rules" if path.parent == RULES_DIR else "migrator.text"
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        module = ("." * node.level + (node.module or "")) if node.level else node.module or ""
        if path.parent == RULES_DIR and node.level == 1 and node.module in MODULES:
            pytest.fail(f"{path.name} imports the rule {node.module}: shared helpers live in rules/context.py")
        # the packages' shared machinery (rules/context.py, textrules/_core.py, ...) is for every
        # rule; a rule module's own private names are not
        source = module.rpartition(".")[2] if node.level == 0 else (node.module or "")
        if not (node.level >= 1 or module.startswith(package)) or source not in (*MODULES, *TEXT_MODULES):
            continue
        private = [alias.name for alias in node.names if alias.name.startswith("_")]
        assert not private, f"{path.name}: from {module} import {private}"


def test_what_the_rules_emit_is_what_they_declare(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every Python rule on the bundled fork, the test forks and every catalog example: each
    finding's code is among those its rule declares."""
    emitted: dict[str, set[str]] = {}

    def watching(rule):  # noqa: ANN001, ANN202
        def check(ctx) -> None:  # noqa: ANN001
            before = len(ctx.findings)
            rule.check(ctx)
            emitted.setdefault(rule.name, set()).update(f.code for f in ctx.findings[before:])
        return check

    monkeypatch.setattr(rules_package, "_CHECKS", tuple(watching(rule) for rule in RULES))
    from tests.test_catalog_examples import example_tree

    corpus = [ROOT / "examples" / "legacy_fork", ROOT / "tests" / "data" / "forks", example_tree()]
    result = run(corpus, Options(mode="lint", target_version=catalog.NEWEST_RELEASE, jobs=1))
    assert not [r.error for r in result.results if r.error is not None]
    undeclared = {rule.name: emitted.get(rule.name, set()) - rule.emits for rule in RULES}
    assert {name: codes for name, codes in undeclared.items() if codes} == {}
    assert len(set().union(*emitted.values())) > 20  # the corpus reaches most codes


TEXT_FILES = {
    "Dockerfile": "FROM x\nENV SGLANG_ENABLE_SPEC_V2=0\nRUN python -m sglang.launch_server "
                  "--speculative-dflash-draft-window-size 4\nLABEL w=sglang.srt.speculative.dflash_worker.DFlashWorker\n",
    "ci.yaml": "env:\n  SGLANG_ENABLE_SPEC_V2: '0'\nrun: python -m sglang.launch_server --speculative-dflash-draft-window-size 4\n"
               "worker: sglang.srt.speculative.dflash_worker.DFlashWorker\n",
    "settings.toml": "[env]\nSGLANG_ENABLE_SPEC_V2 = '1'\nworker = 'sglang.srt.speculative.dflash_info.DFlashDraftInput'\n",
    ".env": "SGLANG_ENABLE_SPEC_V2=0\n",
    "devcontainer.json": '{"containerEnv": {"SGLANG_ENABLE_SPEC_V2": "0"}, "args": ["--speculative-dflash-draft-window-size"]}\n',
    "notes.rst": "Uses DFlashWorker and SGLANG_ENABLE_SPEC_V2.\n",
}


def test_text_rules_emit_what_they_declare(tmp_path: Path) -> None:
    for name, text in TEXT_FILES.items():
        (tmp_path / name).write_text(text)
    from tests.test_catalog_examples import example_tree

    from tests.blind_corpora import is_blind

    # the blind corpora stay out: blind measurements (scripts/score_blind.py), not fixtures
    data = [path for path in sorted((ROOT / "tests" / "data").iterdir()) if not is_blind(path)]
    corpus = [ROOT / "examples" / "legacy_fork", *data, tmp_path, example_tree()]
    result = run(corpus, Options(mode="lint", target_version=catalog.NEWEST_RELEASE, jobs=1))
    from migrator.text import module_for

    seen: set[str] = set()
    for file_result in result.results:
        name = module_for(file_result.path)
        if name is None or file_result.path.endswith((".py", ".pyi")):
            continue
        seen.add(name)
        assert {f.code for f in file_result.findings} <= emitted_codes(name), file_result.path
    assert set(TEXT_MODULES) <= seen
