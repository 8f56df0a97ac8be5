"""Issue 42 (hostile repositories, fourth round), cases 7-10, 12 and 13: resource bounds.

Each attack is a small input that made 8ed1b04 run for minutes to hours or write megabytes.
The runs go through the command line in a child process with a limit (``LIMIT``) that
the old code misses by far and the new code meets with a wide margin on a loaded machine;
where the work can be counted (``bash -n`` processes, report bytes), the count is asserted
instead of a time.
"""

from __future__ import annotations

import difflib
import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
V1 = "from sglang.srt.speculative.dflash_worker import DFlashWorker\n"
LIMIT = 20


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    env.pop("GITHUB_ACTIONS", None)
    return subprocess.run([sys.executable, "-m", "migrator", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=LIMIT, check=False)


def python(code: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=LIMIT,
                          check=False)


# ---- case 8: `**` in ignore patterns -------------------------------------------------------

#: Seven `**`: pathspec's regex gives each `.+`, and a 60-folder path that almost matches is
#: split every way (n^6 tries: 37 s for five `**` at 8ed1b04, about ten times more per `**`).
DOUBLE_STARS = "**/" + "a/**/" * 6 + "b"
DEEP = "/".join(["a"] * 60)


def test_double_star_gitignore_line_against_a_deep_path(tmp_path: Path) -> None:
    """Case 8: one `.gitignore` line with several `**` and a 60-folder-deep file stalled
    `lint .` for minutes; the leftmost-fit matching takes milliseconds."""
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text(DOUBLE_STARS + "\n")
    (tmp_path / DEEP).mkdir(parents=True)
    (tmp_path / DEEP / "x.py").write_text(V1)
    result = cli("lint", ".", "--output-format", "concise", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert f"{DEEP}/x.py:1:" in result.stdout


def test_double_star_exclude_pattern_against_a_deep_path(tmp_path: Path) -> None:
    """Case 8 through `--exclude`, and a pattern that does match is still honoured."""
    (tmp_path / DEEP).mkdir(parents=True)
    (tmp_path / DEEP / "x.py").write_text(V1)
    (tmp_path / DEEP / "b").mkdir()
    (tmp_path / DEEP / "b" / "y.py").write_text(V1)
    result = cli("lint", ".", "--exclude", DOUBLE_STARS, "--output-format", "concise", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert f"{DEEP}/x.py:1:" in result.stdout
    assert "y.py" not in result.stdout


def test_double_star_patterns_match_as_pathspec_does() -> None:
    """The rewritten `**` gives pathspec's own answers, the directory mark included (which
    decides a negated pattern's priority), on every small pattern and path tried."""
    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

    from migrator.base.ignore import LinearPattern as linear
    pieces = ["a", "b", "ab", "*", "a*", "?", "**"]
    names = ["a", "b", "ab", "x"]
    rng = random.Random(42)
    checked = 0
    for _ in range(300):
        pattern = "/".join(rng.choice(pieces) for _ in range(rng.randint(2, 5)))
        pattern = ("/" if rng.random() < 0.3 else "") + pattern + ("/" if rng.random() < 0.3 else "")
        theirs, ours = GitIgnoreSpecPattern(pattern), linear(pattern)
        if theirs.regex is None:
            continue
        for depth in range(1, 5):
            for path in ("/".join(rng.choice(names) for _ in range(depth)) for _ in range(20)):
                expected, got = theirs.regex.match(path), ours.regex.match(path)
                assert (expected is None) == (got is None), (pattern, path)
                if expected is not None:
                    assert bool(expected.groupdict().get("ps_d")) == bool(got.groupdict().get("ps_d")), (pattern, path)
                checked += 1
    assert checked > 5000


# ---- case 9: `--diff` and repeated lines ---------------------------------------------------


def _blank_script(blank_lines: int) -> str:
    return ("export SGLANG_ENABLE_SPEC_V2=1\n" + "\n" * blank_lines
            + "python -m sglang.launch_server --speculative-algorithm DFLASH\n")


def test_diff_of_forty_thousand_blank_lines(tmp_path: Path) -> None:
    """Case 9: a fix at each end of 40,000 blank lines; difflib compared every blank line
    with every other (1.6 * 10^9 steps, ~5 min). The diff stays a patch `git apply` takes,
    giving what `fix` writes."""
    script = tmp_path / "launch.sh"
    script.write_text(_blank_script(40_000))
    result = cli("fix", "--diff", "launch.sh", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith("--- a/launch.sh\n+++ b/launch.sh\n@@ ")
    if shutil.which("git") is None:
        pytest.skip("git is not installed: the patch cannot be applied")
    patched = tmp_path / "patched"
    patched.mkdir()
    (patched / "launch.sh").write_text(script.read_text())
    subprocess.run(["git", "apply", "-"], cwd=patched, input=result.stdout, text=True, check=True, timeout=LIMIT)
    assert cli("fix", "launch.sh", cwd=tmp_path).returncode in (0, 1)
    assert (patched / "launch.sh").read_text() == script.read_text()


def test_diff_is_difflibs_within_the_budget() -> None:
    """Below the budget the hunks are difflib's, line for line (the findings snapshot keeps
    fix diffs byte-identical); above it they still rebuild the fixed side exactly."""
    from migrator.report import diff

    rng = random.Random(7)
    for _ in range(400):
        before = [rng.choice([b"x\n", b"\n", b"y\n", b"w%d\n" % rng.randint(0, 20)]) for _ in range(rng.randint(0, 40))]
        after = list(before)
        for _ in range(rng.randint(0, 5)):
            at = rng.randint(0, len(after))
            roll = rng.random()
            if roll < 0.4 and after:
                del after[min(at, len(after) - 1)]
            elif roll < 0.7:
                after.insert(at, rng.choice([b"\n", b"q\n", b"x\n"]))
            elif after:
                after[min(at, len(after) - 1)] = b"r\n"
        expected = list(difflib.SequenceMatcher(None, before, after, autojunk=False).get_grouped_opcodes(3))
        assert list(diff._Matcher(before, after).get_grouped_opcodes(3)) == expected
        starved = diff._Matcher(before, after)
        starved.left = 0
        rebuilt = []
        for tag, i1, i2, j1, j2 in starved.get_opcodes():
            if tag == "equal":
                assert before[i1:i2] == after[j1:j2]
            rebuilt += after[j1:j2]
        assert rebuilt == after


# ---- case 10: re-export chains -------------------------------------------------------------


def _chain(root: Path, length: int) -> None:
    (root / ".git").mkdir()
    package = root / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "m0.py").write_text(V1)
    for i in range(1, length):
        (package / f"m{i}.py").write_text(f"from .m{i - 1} import DFlashWorker\n")


def test_a_thousand_module_chain_reports_in_linear_size(tmp_path: Path) -> None:
    """Case 10: 1,000 one-line modules re-exporting the V1 class one after the other; each
    finding listed every hop before it (a 7.5 MB report, 42 s at 8ed1b04). Each lists the
    nearest hop, how many more, and the last; SARIF relates those two."""
    _chain(tmp_path, 1000)
    result = cli("lint", ".", "--output-format", "concise", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    last = next(line for line in result.stdout.splitlines() if line.startswith("./pkg/m999.py:"))
    assert "(through pkg/m998.py:1, 997 more, pkg/m0.py:1)" in last, last
    assert len(result.stdout) < 200 * 1000


def test_sarif_relates_the_ends_of_a_chain(tmp_path: Path) -> None:
    """Case 10 in SARIF: related locations are the nearest hop and the last, not the chain."""
    _chain(tmp_path, 6)
    sarif = cli("lint", ".", "--output-format", "sarif", cwd=tmp_path)
    results = json.loads(sarif.stdout)["runs"][0]["results"]
    related = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]:
               [x["physicalLocation"]["artifactLocation"]["uri"] for x in r.get("relatedLocations", ())]
               for r in results}
    assert related["pkg/m5.py"] == ["pkg/m4.py", "pkg/m0.py"], related


def _messages(cwd: Path, *args: str) -> dict[str, tuple[str, str]]:
    result = cli("lint", "--output-format", "json", *args, cwd=cwd)
    assert result.returncode == 1, result.stderr
    return {os.path.basename(f["path"]): (f["message"], f["fingerprint"]) for f in json.loads(result.stdout)["findings"]
            if f["code"] == "DFM500"}


def test_reexport_message_is_the_same_however_the_files_are_named(tmp_path: Path) -> None:
    """Issue 42 case 10 and issue 51 item 12: the DFM500 message (so its fingerprint, so a
    baseline) spelled the fallback module's path as given: `./pkg/compat.py` under `lint .`,
    an absolute path under `lint pkg/use.py`. Every invocation now gives one message."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "compat.py").write_text(
        f"try:\n    {V1}except ImportError:\n    DFlashWorker = None\n")
    (tmp_path / "pkg" / "use.py").write_text("from .compat import DFlashWorker\n")
    seen = [_messages(tmp_path, "."), _messages(tmp_path, "pkg/use.py"), _messages(tmp_path, "pkg"),
            _messages(tmp_path / "pkg", "."), _messages(tmp_path / "pkg", "use.py"),
            _messages(tmp_path, str(tmp_path / "pkg" / "use.py"))]
    assert all(found["use.py"] == seen[0]["use.py"] for found in seen), seen
    message = seen[0]["use.py"][0]
    assert "(pkg/compat.py:4)" in message and "(through pkg/compat.py:2)" in message, message
    baseline = tmp_path / "baseline.json"
    assert cli("lint", ".", "--write-baseline", str(baseline), cwd=tmp_path).returncode == 0
    named = cli("lint", "pkg/use.py", "--baseline", str(baseline), cwd=tmp_path)
    assert named.returncode == 0, named.stdout + named.stderr


def test_a_member_todo_through_a_module_alias_names_its_hops_once(tmp_path: Path) -> None:
    """The DFM500 TODO for a member reached through another module's alias of a V1 module
    listed its chain twice (``(through pkg/worker.py:1) (through pkg/worker.py:1)``)."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "worker.py").write_text("from sglang.srt.speculative import dflash_worker as dfw\n")
    (tmp_path / "pkg" / "use.py").write_text("from pkg import worker\n\nx = worker.dfw.DFlashDraftInput\n")
    found = _messages(tmp_path, ".")
    assert "reaches `DFlashDraftInput`" in found["use.py"][0]
    assert found["use.py"][0].count("(through ") == 1, found


# ---- case 7: a YAML alias bomb in the write guard ------------------------------------------


def _alias_bomb(levels: int = 9) -> str:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in range(1, levels):
        lines.append(f"a{level}: &a{level} [" + ",".join([f"*a{level - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def test_yaml_alias_bomb_does_not_stall_the_write_guard(tmp_path: Path) -> None:
    """Case 7: nine levels of nine aliases (about 400 bytes, 9^9 paths) above a setting the
    fix removes. The guard compared the documents along every path (hours for `--diff`,
    `--check` and fix); it now compares each pair of objects once."""
    (tmp_path / "ci.yml").write_text(_alias_bomb() + 'env:\n  SGLANG_ENABLE_SPEC_V2: "1"\n')
    result = cli("fix", "--diff", "ci.yml", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert '-  SGLANG_ENABLE_SPEC_V2: "1"' in result.stdout


def test_the_guard_still_sees_a_change_inside_an_alias_bomb() -> None:
    """Memoised by identity, the comparison still finds a changed leaf or a lost key."""
    result = python(f"""
from migrator.text import _guard
bomb = {_alias_bomb()!r}
assert _guard.yaml("ci.yml", bomb, bomb) is None
print(_guard.yaml("ci.yml", bomb, bomb.replace('"lol","lol"]', '"lol","lul"]')))
print(_guard.yaml("ci.yml", bomb + "b: 1\\n", bomb))
""")
    assert result.returncode == 0, result.stderr
    changed, lost = result.stdout.splitlines()
    assert changed == "the fixed YAML would change its structure: document 1/a0[8] changes", changed
    assert lost == "the fixed YAML would change its structure: document 1/b disappears", lost


# ---- case 12: `bash -n` per edited Markdown block ------------------------------------------


@pytest.fixture
def bash_runs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every script ``bash -n`` is run on; more than 300 is the old one-per-block count."""
    if shutil.which("bash") is None:
        pytest.skip("bash is not installed: the shell guard has no parser")
    real = subprocess.run
    runs: list[str] = []

    def counted(args: list[str], *rest: object, **kwargs: bytes) -> subprocess.CompletedProcess:
        if "-n" in args:
            runs.append(kwargs.get("input", b"").decode())
            assert len(runs) <= 300, "one `bash -n` per block"
        return real(args, *rest, **kwargs)

    monkeypatch.setattr(subprocess, "run", counted)
    return runs


def _blocks(count: int, broken: dict[int, str] | None = None) -> str:
    broken = broken or {}
    return "".join(f"```bash\n{broken.get(i, f'python -m sglang.launch_server --model m{i}')}\n```\n\n"
                   for i in range(count))


def test_four_thousand_edited_shell_blocks_take_a_few_bash_processes(bash_runs: list[str]) -> None:
    """Case 12: 4,000 edited fences were 8,000 `bash -n` processes (~30x lint's CPU); each
    side's blocks are parsed together now."""
    from migrator.text import markdown

    before = _blocks(4000)
    after = before.replace("--model", "--disable-overlap-schedule --model")
    assert markdown.guard("README.md", before, after) is None
    assert len(bash_runs) <= 4


@pytest.mark.parametrize(("side", "expected"), [("after", "the fixed script would not parse"),
                                                 ("before", "the original script does not parse")])
def test_the_first_broken_block_among_many_is_named_as_on_its_own(bash_runs: list[str], side: str,
                                                                  expected: str) -> None:
    """Parsed together, a failing side is halved down to its first broken block, and the
    reason is that block's own (`bash -n` of the block alone: its line numbers)."""
    from migrator.text import _guard, markdown

    good = _blocks(400)
    bad = _blocks(400, {250: "if true; then\n  echo ok", 300: "done"})
    before, after = (good, bad) if side == "after" else (bad, good)
    problem = markdown.guard("README.md", before, after.replace("--model", "--model  "))
    assert problem is not None and problem.startswith(f"in a `bash` block: {expected}"), problem
    alone = _guard.bash_error("if true; then\n  echo ok\n")
    assert alone is not None and alone in problem, (alone, problem)
    assert len(bash_runs) <= 40


def test_a_zsh_block_among_many_is_still_unchecked(bash_runs: list[str]) -> None:
    from migrator.text import _guard, markdown

    before = _blocks(40) + "```zsh\nsetopt x\n```\n"
    after = before.replace("--model", "--model  ").replace("setopt x", "setopt y")
    assert _guard.verdict(markdown.guard, "README.md", before, after) == \
        "no parser for zsh scripts here, so the fix cannot be checked"


def test_a_thousand_edited_dockerfile_blocks_stop_at_the_runs_limit(bash_runs: list[str]) -> None:
    """Case 12 in another language: each edited ``dockerfile`` fence is its own check (two
    `bash -n`); past ``MAX_BASH_RUNS`` in one verdict the fix is unchecked, so not written."""
    from migrator.text import _guard, markdown

    before = "".join(f"```dockerfile\nRUN python -m sglang.launch_server --model m{i}\n```\n\n" for i in range(1000))
    after = before.replace("--model", "--disable-overlap-schedule --model")
    assert _guard.verdict(markdown.guard, "README.md", before, after) == \
        f"more than {_guard.MAX_BASH_RUNS} scripts to parse, so the fix cannot be checked"
    assert len(bash_runs) == _guard.MAX_BASH_RUNS


# ---- case 13: one long Markdown line -------------------------------------------------------


def test_a_hundred_kilobyte_line_of_inline_code(tmp_path: Path) -> None:
    """Case 13: 4,000 code spans naming the variable on one 104 KB line; every span scanned
    the whole line (over a minute at 8ed1b04). Each is scanned once."""
    (tmp_path / "notes.md").write_text("x " + "`SGLANG_ENABLE_SPEC_V2=0` " * 4000 + "\n")
    result = cli("lint", "notes.md", "--output-format", "json", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    findings = json.loads(result.stdout)["findings"]
    assert len(findings) == 4000
    assert {f["column"] for f in findings} == {3 + 26 * k + 1 for k in range(4000)}


def test_covered_mentions_are_found_by_halving_as_by_comparing_all() -> None:
    """``without_covered`` (which text findings another finding covers) looks spans up by
    halving: the same answer as comparing every pair, on random spans of one line."""
    from migrator.base.model import Finding, Fix, Span
    from migrator.catalog import TEXT_MIRRORS
    from migrator.text.mentions import without_covered

    text_code = next(iter(TEXT_MIRRORS)).code
    rng = random.Random(3)
    for _ in range(200):
        findings = []
        for _ in range(rng.randint(0, 12)):
            start = rng.randint(0, 30)
            code = text_code if rng.random() < 0.5 else "DFM201"
            findings.append(Finding("a.md", Span.of(1, start, 1 + (rng.random() < 0.2), start + rng.randint(0, 6)),
                                    code, "m", Fix("manual", ())))
        others = [f.span for f in findings if f.code != text_code]
        expected = [f for f in findings if f.code != text_code or not any(
            s.start <= f.span.start < s.end or s.start == f.span.start for s in others if s.start.line <= 1 <= s.end.line)]
        assert without_covered(findings) == expected
