"""Issue 47, first step: the same V1 names in forms no rule read before.

* History is not code: a changelog, release notes, the log of a past run (named after a
  release) or a ``.patch`` against upstream reports nothing by default, and only an
  informational DFM490 naming the code that would have fired when DFM490 is selected.
* Qualified spellings in structured data: a dotted path or a loader's ``module:attr`` naming a
  removed module, class, function, method or attribute, in any YAML, JSON or TOML value or key
  (not only packaging entry points), and as a Python string (a plugin registry).
* Test doubles that name modules as strings (``pytest.importorskip``, ``sys.modules[...]``,
  ``MagicMock(spec=...)``, ``create_autospec``) stay found.

Each shape is written the way real repositories hold it; the negatives are what real
repositories hold beside them (V2 names that contain V1 ones, Kubernetes ``apiVersion: v1``,
another product's ``dflash_worker``).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from migrator import catalog
from migrator.catalog import names
from migrator.run.engine import Options, run
from migrator.run.files import is_history

TARGET = "0.5.14"
W = "sglang.srt.speculative.dflash_worker"
I = "sglang.srt.speculative.dflash_info"


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def _lint(root: Path, **options: object) -> list[tuple[str, int, str, str]]:
    result = run([root], Options(mode="lint", target_version=TARGET, jobs=1, **options))
    assert [r.error for r in result.results if r.error] == []
    return sorted((Path(f.path).relative_to(root).as_posix(), f.line, f.code, f.severity)
                  for r in result.results for f in r.findings)


def _fix(root: Path) -> None:
    result = run([root], Options(mode="fix", target_version=TARGET, jobs=1, allow_dirty=True))
    assert [r.error for r in result.results if r.error] == []


# ---- history is not code ----------------------------------------------------------------

HISTORY = {
    "CHANGELOG.md": """\
        ## 0.4.0
        - Bump to sglang 0.5.12: use `DFlashDraftInput.bonus_tokens` (was `verified_id`).
        - First release against sglang 0.5.11 (`SGLANG_ENABLE_SPEC_V2=0`).
        """,
    "TESTLOGS/2026-03-01_sglang-0.5.12_a100.md": f"""\
        # nightly, sglang 0.5.12
        worker: `{W}.DFlashWorker`, launched with `SGLANG_ENABLE_SPEC_V2=0`
        """,
    "logs/run_sglang_v0.5.13.txt": f"loaded {I}.DFlashDraftInput in 0.4 s\n",
    "patches/0001-dflash-metrics.patch": f"""\
        --- a/python/sglang/srt/speculative/dflash_worker.py
        +++ b/python/sglang/srt/speculative/dflash_worker.py
        @@ -1,3 +1,4 @@
        -from {I} import DFlashDraftInput
        +from {I} import DFlashDraftInput, DFlashVerifyInput
        """,
    "upstream.diff": f"-    worker_cls = \"{W}:DFlashWorker\"\n",
}


@pytest.mark.parametrize("name", sorted(HISTORY))
def test_a_history_file_reports_nothing_by_default(tmp_path: Path, name: str) -> None:
    _write(tmp_path, {name: HISTORY[name]})
    assert _lint(tmp_path) == []


@pytest.mark.parametrize("name", sorted(HISTORY))
def test_a_history_mention_is_an_informational_dfm490_when_selected(tmp_path: Path, name: str) -> None:
    _write(tmp_path, {name: HISTORY[name]})
    found = _lint(tmp_path, select=frozenset({catalog.HISTORY_CODE}))
    assert found, f"{name}: no mention listed"
    assert {(code, severity) for _, _, code, severity in found} == {(catalog.HISTORY_CODE, "info")}


def test_a_history_file_is_never_written_and_other_files_are(tmp_path: Path) -> None:
    yaml_line = f"worker: {W}.DFlashWorker\n"
    _write(tmp_path, {**HISTORY, "deploy/values.yaml": yaml_line})
    _fix(tmp_path)
    for name, text in HISTORY.items():
        assert (tmp_path / name).read_text() == textwrap.dedent(text), name
    assert (tmp_path / "deploy/values.yaml").read_text() != yaml_line


@pytest.mark.parametrize("name", [
    "deploy/values-sglang-0.5.13.yaml",  # config for a release, not a record of one
    "docker/sglang-0.5.13.env",
    "docs/guide.md",
    "scripts/changelog.py",  # code is never history
])
def test_files_that_are_not_history(name: str) -> None:
    assert not is_history(name)


def test_a_release_named_config_file_still_reports(tmp_path: Path) -> None:
    _write(tmp_path, {"deploy/values-sglang-0.5.13.yaml": f"worker: {W}.DFlashWorker\n",
                      "docs/guide.md": f"Set `worker: {W}.DFlashWorker`.\n"})
    codes = {(name, code) for name, _, code, _ in _lint(tmp_path)}
    assert ("deploy/values-sglang-0.5.13.yaml", "DFM102") in codes
    assert any(name == "docs/guide.md" for name, _ in codes)


# ---- qualified spellings in structured data ---------------------------------------------

STRUCTURED = [
    # (file, text, line, code): each a shape a loader resolves
    ("configs/registry.yaml", f"draft_input: {I}:DFlashDraftInput\n", 1, "DFM103"),
    ("configs/registry.yaml", f"plugins:\n  - name: dflash\n    target: \"{W}:DFlashWorker\"\n", 3, "DFM102"),
    ("configs/hooks.yaml", f"hooks:\n  after_verify:\n    - {I}.DFlashVerifyInput.verify\n", 3, "DFM105"),
    ("configs/hooks.yaml", f"{I}:DFlashDraftInput.ctx_lens: drop\n", 1, "DFM103"),  # the removed class covers it
    ("deploy/helm/values.yaml", f"spec:\n  worker:\n    class: {W}:DFlashWorker._prepare_for_speculative_decoding\n",
     3, "DFM102"),
    ("configs/profiles.json", f'{{\n  "draft": "{I}:DFlashDraftInput",\n  "ok": 1\n}}\n', 2, "DFM103"),
    ("configs/profiles.json", f'{{"hooks": {{"{I}:DFlashVerifyInput.verify": "off"}}}}\n', 1, "DFM105"),
    ("gateway.toml", f'[registry]\ndraft_input = "{I}:DFlashDraftInput"\n', 2, "DFM103"),
    ("pyproject.toml", f'[tool.specbench.workers]\ndflash = "{W}:DFlashWorker"\n', 2, "DFM102"),
    ("pyproject.toml", f'[tool.specbench]\nhooks = ["{I}:DFlashVerifyInput.verify"]\n', 2, "DFM105"),
]


@pytest.mark.parametrize(("name", "text", "line", "code"), STRUCTURED,
                         ids=[f"{n}:{t.splitlines()[line - 1].strip()[:40]}" for n, t, line, _ in STRUCTURED])
def test_a_qualified_spelling_in_structured_data_is_found(tmp_path: Path, name: str, text: str, line: int,
                                                          code: str) -> None:
    _write(tmp_path, {name: text})
    assert (name, line, code, "error") in _lint(tmp_path)


NOT_V1 = [
    ("configs/registry.yaml", f"draft_input: {I}_v2:DFlashDraftInputV2\nworker: {W}_v2:DFlashWorkerV2\n"),
    ("deploy/k8s/configmap.yaml", "apiVersion: v1\nkind: ConfigMap\ndata:\n  api: /v1/chat/completions\n"),
    ("configs/other.yaml", "worker: vllm.spec_decode.dflash_worker:DFlashWorker\n"
                           f"mirror: myorg.{W}:DFlashWorker\n"),
    ("configs/profiles.json", f'{{"worker": "{W}_v2.DFlashWorkerV2", "draft": "{I}.DFlashDraftInputs"}}\n'),
    ("gateway.toml", f'[registry]\nverify = "{I}:DFlashVerifyInput"\nlayers = "{I}.DFlashVerifyInput.verify_all"\n'),
]


@pytest.mark.parametrize(("name", "text"), NOT_V1, ids=[n for n, _ in NOT_V1])
def test_names_that_only_look_like_v1_are_not_found(tmp_path: Path, name: str, text: str) -> None:
    _write(tmp_path, {name: text})
    assert _lint(tmp_path) == []


@pytest.mark.parametrize(("name", "before", "after"), [
    ("configs/registry.yaml", f"worker: {W}:DFlashWorker\n", f"worker: {W}_v2:DFlashWorkerV2\n"),
    ("configs/registry.yaml", f"draft: \"{I}:DFlashDraftInput\"\n", f"draft: \"{I}_v2:DFlashDraftInputV2\"\n"),
    ("gateway.toml", f'[registry]\ndraft = "{I}:DFlashDraftInput"\n', f'[registry]\ndraft = "{I}_v2:DFlashDraftInputV2"\n'),
])
def test_a_module_attr_spelling_is_renamed_in_the_same_spelling(tmp_path: Path, name: str, before: str,
                                                                 after: str) -> None:
    _write(tmp_path, {name: before})
    _fix(tmp_path)
    assert (tmp_path / name).read_text() == after


def test_a_module_attr_string_in_python_is_found_and_renamed(tmp_path: Path) -> None:
    _write(tmp_path, {"specbench/registry.py": f"""\
        WORKERS = {{
            "dflash": "{W}:DFlashWorker",
            "eagle": "sglang.srt.speculative.eagle_worker:EAGLEWorker",
            "dflash-v2": "{W}_v2:DFlashWorkerV2",
        }}
        DRAFT = "{I}:DFlashDraftInput"
        API = "myapp.api:v1"
        """})
    assert [(line, code) for _, line, code, _ in _lint(tmp_path)] == [(2, "DFM102"), (6, "DFM103")]
    _fix(tmp_path)
    text = (tmp_path / "specbench/registry.py").read_text()
    assert f'"dflash": "{W}_v2:DFlashWorkerV2",' in text
    assert f'DRAFT = "{I}_v2:DFlashDraftInputV2"' in text
    assert f'"dflash-v2": "{W}_v2:DFlashWorkerV2",' in text and 'API = "myapp.api:v1"' in text


def test_the_qualified_spellings_come_from_the_catalog_names() -> None:
    spellings = set(names.qualified())
    for entry in catalog.entries_of_kind("module", "class", "function", "method", "attribute"):
        for name in entry.names:
            assert name in spellings
            assert catalog.qualified_entry(name) is not None
    for spelling in spellings:
        assert catalog.dotted(spelling) in catalog.by_name()  # every colon form is a name's, nothing else


# ---- test doubles that name modules as strings ------------------------------------------

def test_test_doubles_naming_v1_modules_are_found(tmp_path: Path) -> None:
    _write(tmp_path, {"tests/test_worker.py": f"""\
        import sys
        from unittest import mock

        import pytest

        dflash_worker = pytest.importorskip("{W}")
        v2 = pytest.importorskip("{W}_v2")


        def test_fake(monkeypatch):
            monkeypatch.setitem(sys.modules, "{W}", mock.MagicMock())
            sys.modules["{I}"] = mock.MagicMock()
            draft = mock.MagicMock(spec="{I}.DFlashDraftInput")
            worker = mock.create_autospec("{W}.DFlashWorker", instance=True)
            ok = mock.create_autospec("{W}_v2.DFlashWorkerV2")
            assert draft and worker and ok
        """})
    found = [(line, code) for _, line, code, _ in _lint(tmp_path)]
    assert (6, "DFM101") in found and (11, "DFM101") in found
    assert (13, "DFM103") in found and (14, "DFM102") in found
    assert not any(line in (7, 12, 15) for line, _ in found)
