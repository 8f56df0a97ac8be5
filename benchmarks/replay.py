#!/usr/bin/env python3
"""Replay SGLang's own 0.5.13 -> 0.5.14 migration and compare the tool's with it, site by site.

    python benchmarks/replay.py            # ~1 min on 2 cores; writes benchmarks/results/replay.{json,md}

What it does:

1. takes the released wheels of sglang 0.5.13 and 0.5.14 (``migrator.releases.wheels``:
   cached download into ``~/.cache/dflash-migrate``, unpacked once);
2. lints 0.5.13's tree (``lint --target-version 0.5.14 --format json``) and fixes two
   copies of it, once in the default mode and once with ``--unsafe-fixes``;
3. diffs every ``.py`` file that exists in both releases (``difflib``, line level) and keeps
   the *related* hunks (below); each one is a **site**;
4. for each site and mode, compares the tool's text for the same 0.5.13 lines with
   0.5.14's, normalised (comments and layout dropped: equal ASTs, else equal token
   streams, string literals by value).

Definitions (the numbers in the table depend on them, so they are spelled out here):

* **Related hunk**: a ``replace`` or ``delete`` hunk (an upstream change of 0.5.13 code;
  pure insertions have nothing in 0.5.13 to flag) whose 0.5.13 side has, outside
  comments, one of: a name the catalog lists as removed or changed for 0.5.14 (the last
  component of every ``migrator.catalog.ENTRIES`` name of a kind in ``REMOVED_KINDS`` or a
  call form, that fires for 0.5.14, except the generic words in ``GENERIC_LEAVES``, which
  the tool only reports through types or keywords; a name that only moved counts where
  the statement spells its old module, see ``moved_names``), ``v1_spec_info_filtered``
  (the ``filter_batch`` parameter 0.5.14 removed), ``is_spec_v1``/``is_spec_v2``/
  ``supports_spec_v2``, the env var or the flag spelled in a string, or a string that ties
  DFLASH (or a speculative algorithm) to "spec v2" / overlap scheduling (the V1-era
  "not supported with overlap" guards and warnings).
* Related hunks are split in three kinds:
  - ``use``: code that uses the V1 path: **the sites the targets count**;
  - ``definition``: sglang deleting its own definition of a removed name (``def
    supports_spec_v2``, the ``is_spec_v2`` property, ``SGLANG_ENABLE_SPEC_V2 =
    EnvBool(...)``, the ``v1_spec_info_filtered`` parameter, the V1 classes): a fork does
    not define these; listed, not counted;
  - files removed in 0.5.14 (``dflash_worker.py`` ...) are not sites at all (the brief:
    "files that survive"); their findings are counted separately.
  A hunk is a ``definition`` when its 0.5.13 side defines (``def``/``class``/parameter/
  assignment target) one of the names that made it related.
* Hunks related only through other spec v1/v2 words (sglang-internal helpers such as
  ``add_output_logprobs_for_spec_v1``, comments, docstrings) are listed as ``internal``
  in the JSON, neither counted nor expected to be flagged.

Per site and mode the outcome is one of:

* ``same``: the tool's text equals 0.5.14's, normalised;
* ``equivalent`` / ``different`` / ``not-needed``: the tool's text differs from 0.5.14's
  and a human judged it (``benchmarks/replay_judgments.toml``; ``not-needed``: upstream's
  change there is not part of the migration, e.g. new imports for a new feature, and the
  tool rightly leaves the code as it was). A judgment is keyed by the file, the 0.5.13
  lines and a hash of the tool's normalised text: when the tool's output for that site
  changes, the judgment no longer matches, the site shows as ``unjudged`` and the script
  exits 1 (so does a judgment that matches no site: stale);
* ``todo``: the code is unchanged and the tool left a ``TODO(dflash-migrate)`` comment;
* ``untouched``: the code is unchanged and no comment was added (a miss if not flagged,
  unless judged ``not-needed``).

The run-level finding for a tree that vendors its own ``sglang`` (``catalog.VENDORED_CODE``, on
``__init__.py`` line 1) is about the whole tree, not a site: it is listed apart
(``run_level_findings``) and must be present (the script exits 1 without it).

``flagged``: a lint finding on the site's statement, or whose span covers it (a whole block
deleted) (for a statement related only by its text,
also on the statement before it in the same hunk: the message belongs to that guard or setting).
Findings on lines upstream kept (``equal`` regions of surviving files) are listed with a
human judgment right/wrong from the same file, keyed by file, code and line text.
"""

from __future__ import annotations

import argparse
import ast
import bisect
import difflib
import functools
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
import tokenize
from dataclasses import asdict, dataclass, field
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

from migrator import catalog  # noqa: E402
from migrator.releases.wheels import unpacked_wheel  # noqa: E402

OLD, NEW = "0.5.13", "0.5.14"
JUDGMENTS = HERE / "replay_judgments.toml"
RESULTS = HERE / "results"
GENERIC_LEAVES = frozenset({"verify", "forward_batch_generation", "__init__", "prepare_for_verify", "filter_batch",
                            "target_hidden", "ctx_lens", "draft_seq_lens", "verified_id",
                            "num_tokens_per_batch",
                            # members of DFLASH objects that other workers (EAGLE, NGRAM) have too:
                            # the catalog names them since issue 32, the tool reports them through types
                            "num_correct_drafts_per_req_cpu", "draft_worker"})
EXTRA_NAMES = frozenset({"v1_spec_info_filtered", "is_spec_v2", "supports_spec_v2"})
SPEC_WORDS = re.compile(r"spec[ _-]?v[12]\b|spec[ _-]?v[12]_", re.IGNORECASE)
DFLASH_OVERLAP = re.compile(r"DFLASH.*(spec[ -]?v2|overlap)|(spec[ -]?v2|overlap).*DFLASH", re.IGNORECASE)
TODO = catalog.TODO_MARKER


#: Catalog kinds whose names are *removed* names. "call-form" entries (the function is still
#: there, its call changed: ``validate_dflash_request(req)``) give terms too, but their
#: functions are no removed definitions; not: "behaviour" (no removed name: ``old`` is the
#: setting the V1-era code is about), "text" and "fork" (mirrors of other entries).
REMOVED_KINDS = frozenset({"module", "class", "function", "method", "attribute", "env", "cli-flag", "server-arg"})
CALL_FORM = "call-form"


def _entries(kinds: frozenset[str] = REMOVED_KINDS | {CALL_FORM}) -> list[catalog.Entry]:
    return [entry for entry in catalog.ENTRIES if entry.fires_for(NEW) and entry.kind in kinds]


def removed_names() -> frozenset[str]:
    leaves = {name.rpartition(".")[2] for entry in _entries() if entry.kind not in ("env", "cli-flag")
              for name in entry.names}
    return frozenset(leaves - GENERIC_LEAVES) | EXTRA_NAMES


def call_form_names() -> frozenset[str]:
    return frozenset(name.rpartition(".")[2] for entry in _entries(frozenset({CALL_FORM})) for name in entry.names)


def moved_names() -> dict[str, frozenset[str]]:
    """Names that 0.5.14 still has under the same name in another module (a moved function,
    a dropped re-export), each with the old modules' last components: such a name is a
    term only in a statement that also spells one of those modules (``from ..scheduler
    import validate_dflash_request``, not an import from its new home), or in a call where
    its call form changed too (``validate_dflash_request(req)``)."""
    moved: dict[str, set[str]] = {}
    for entry in _entries():
        new = entry.replacement_for(NEW)
        for name in entry.names:
            module, _, leaf = name.rpartition(".")
            if new and new.rpartition(".")[2] == leaf and new != name:
                moved.setdefault(leaf, set()).add(module.rpartition(".")[2])
    return {leaf: frozenset(modules) for leaf, modules in moved.items()}


def removed_definitions() -> frozenset[str]:
    """Qualified names (``module.Class.member``, no ``sglang.`` prefix) of what 0.5.14 removed."""
    return frozenset(name.removeprefix("sglang.") for entry in _entries(REMOVED_KINDS)
                     if entry.kind not in ("env", "cli-flag") for name in entry.names)


def text_spellings() -> tuple[str, ...]:
    return tuple(name for entry in _entries() if entry.kind in ("env", "cli-flag") for name in entry.names)


@dataclass
class Hunk:
    file: str
    old: tuple[int, int]  # 1-based inclusive 0.5.13 lines of the hunk
    new: tuple[int, int]  # 1-based 0.5.14 lines (end < start: nothing)
    kind: str  # use | definition | internal
    terms: list[str]
    span: tuple[int, int] = (0, 0)  # old lines widened to whole statements
    #: where a finding or TODO counts for this site: the statement; for a statement related
    #: only by its text (a DFLASH "not supported with overlap" message), also the statement
    #: before it in the same hunk (the guard's ``if`` or the forced setting it explains)
    context: tuple[int, int] = (0, 0)


@dataclass
class Outcome:
    outcome: str
    changed: bool
    todo: bool
    key: str
    tool_text: str
    reason: str = ""


@dataclass
class Site:
    file: str
    old_lines: str
    new_lines: str
    terms: list[str]
    flagged: list[str]
    upstream: str
    modes: dict[str, dict] = field(default_factory=dict)


def _code_tokens(text: str) -> list[tokenize.TokenInfo]:
    tokens: list[tokenize.TokenInfo] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            tokens.append(token)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return tokens


def normalise(text: str) -> str:
    """Comparable form of a piece of code: an AST dump when it parses on its own, else its
    token stream without comments and layout (string literals by value, adjacent ones joined)."""
    dedented = textwrap.dedent(text)
    try:
        return ast.dump(ast.parse(dedented))
    except SyntaxError:
        pass
    parts: list[object] = []
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
    for token in _code_tokens(dedented):
        if token.type in skip:
            continue
        if token.type == tokenize.STRING:
            value = _literal(token.string)
            if isinstance(value, str) and parts and isinstance(parts[-1], str) and parts[-1].startswith("\0"):
                parts[-1] += value  # adjacent literals are one string
            else:
                parts.append("\0" + value if isinstance(value, str) else token.string)
        else:
            parts.append(token.string)
    return " ".join(map(str, parts))


def _literal(text: str) -> object:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def _string_value(text: str) -> str:
    value = _literal(text)
    return value if isinstance(value, str) else text


def _related_terms(first: int, last: int, names: frozenset[str], moved: dict[str, frozenset[str]],
                   call_forms: frozenset[str], spellings: tuple[str, ...],
                   tokens: list[tokenize.TokenInfo]) -> tuple[list[str], list[str]]:
    """(catalog terms, other spec words) in code tokens of lines first..last (1-based;
    ``tokens`` in source order). A moved name counts next to its old module's name; one
    whose call form changed, in a call."""
    low = bisect.bisect_left(tokens, first, key=lambda t: t.end[0])
    inside = []
    for token in tokens[low:]:
        if token.start[0] > last:
            break
        inside.append(token)
    words = {t.string for t in inside if t.type == tokenize.NAME}
    terms: set[str] = set()
    internal: set[str] = set()
    for index, token in enumerate(inside):
        if token.type == tokenize.NAME:
            called = index + 1 < len(inside) and inside[index + 1].string == "("
            if token.string in names and (token.string not in moved or moved[token.string] & words
                                          or (called and token.string in call_forms)):
                terms.add(token.string)
            elif SPEC_WORDS.search(token.string):
                internal.add(token.string)
        elif token.type == tokenize.STRING:
            if any(s in token.string for s in spellings):
                terms.update(s for s in spellings if s in token.string)
            elif DFLASH_OVERLAP.search(token.string):
                terms.add("text: " + _string_value(token.string)[:60])
            elif SPEC_WORDS.search(token.string) or "dflash" in token.string.lower():
                internal.add("text: " + _string_value(token.string)[:40])
        elif token.type == tokenize.COMMENT and (SPEC_WORDS.search(token.string) or "dflash" in token.string.lower()):
            internal.add("comment")
    return sorted(terms), sorted(internal)


def _defines(node: ast.AST, terms: list[str]) -> bool:
    wanted = {t for t in terms if not t.startswith("text: ")}
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name in wanted:
        return True
    header = [node] if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else ast.walk(node)
    for child in header:
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if any(a.arg in wanted for a in ast.walk(child.args) if isinstance(a, ast.arg)):
                return True
        if isinstance(child, (ast.Assign, ast.AnnAssign)):
            targets = child.targets if isinstance(child, ast.Assign) else [child.target]
            if any(isinstance(t, ast.Name) and t.id in wanted for t in targets):
                return True
    return False


def removed_scopes(tree: ast.Module, module: str, removed: frozenset[str]) -> list[tuple[int, int]]:
    """Line ranges of the classes and functions of this module whose qualified name 0.5.14
    removed (the V1 classes, ``DFlashVerifyInput.verify``, ...): their bodies are sglang's
    own definition of the V1 path, not code that uses it."""
    out: list[tuple[int, int]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}.{child.name}"
                if name in removed:
                    out.append((child.lineno, child.end_lineno or child.lineno))
                visit(child, name)

    visit(tree, module)
    return out


def statement_spans(tree: ast.Module) -> list[tuple[int, int, ast.stmt]]:
    """Every statement as (first, last line, node): a simple statement whole, a compound
    one by its header only (decorators and signature, the ``if`` test, ...)."""
    spans: list[tuple[int, int, ast.stmt]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        body = getattr(node, "body", None)
        if isinstance(body, list) and body:
            last = max(node.lineno, body[0].lineno - 1)
        else:
            last = node.end_lineno or node.lineno
        spans.append((first, last, node))
    return spans


def _innermost(spans: list[tuple[int, int, ast.stmt]], line: int) -> tuple[int, int, ast.stmt] | None:
    best = None
    for span in spans:
        if span[0] <= line <= span[1] and (best is None or span[1] - span[0] < best[1] - best[0]):
            best = span
    return best


def upstream_hunks(old_root: Path, new_root: Path) -> tuple[list[Hunk], int, dict[str, list[tuple[int, int]]]]:
    """The related statements of 0.5.13 that upstream changed, one Hunk per statement; the
    number of changed surviving files; per file, the scopes of removed definitions."""
    names, spellings, removed = removed_names(), text_spellings(), removed_definitions()
    moved, call_forms = moved_names(), call_form_names()
    prefilter = re.compile("|".join([re.escape(n) for n in sorted(names) + list(spellings)]
                                    + [SPEC_WORDS.pattern, "dflash"]), re.IGNORECASE)
    hunks: list[Hunk] = []
    all_scopes: dict[str, list[tuple[int, int]]] = {}
    files = 0
    for old_path in sorted(old_root.rglob("*.py")):
        rel = old_path.relative_to(old_root).as_posix()
        new_path = new_root / rel
        if not new_path.is_file():
            continue
        old_text, new_text = old_path.read_text(encoding="utf-8"), new_path.read_text(encoding="utf-8")
        if old_text == new_text:
            continue
        files += 1
        if not prefilter.search(old_text):
            continue
        old_lines, new_lines = old_text.splitlines(), new_text.splitlines()
        tokens = _code_tokens(old_text)
        old_tree = ast.parse(old_text)
        old_spans = statement_spans(old_tree)
        module = rel.removesuffix(".py").replace("/", ".").removesuffix(".__init__")
        scopes = all_scopes[rel] = removed_scopes(old_tree, module, removed)
        new_spans = statement_spans(ast.parse(new_text))
        kept_texts: set[str] | None = None
        matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag in ("equal", "insert"):
                continue
            seen: set[tuple[int, int]] = set()
            for line in range(i1 + 1, i2 + 1):
                span = _innermost(old_spans, line)
                if span is None or span[:2] in seen:
                    continue
                seen.add(span[:2])
                first, last, node = span
                terms, internal = _related_terms(first, last, names, moved, call_forms, spellings, tokens)
                if not terms and not internal:
                    continue
                if kept_texts is None:
                    kept_texts = {normalise("\n".join(new_lines[a - 1:b])) for a, b, _ in new_spans}
                if normalise("\n".join(old_lines[first - 1:last])) in kept_texts:
                    kind = "moved"  # the same statement is elsewhere in 0.5.14 (upstream kept it)
                elif not terms:
                    kind = "internal"
                elif _defines(node, terms) or any(a <= first and last <= b for a, b in scopes):
                    kind = "definition"
                else:
                    kind = "use"
                context = (first, last)
                if terms and all(term.startswith("text: ") for term in terms):
                    before = [a for a, b, _ in old_spans if i1 + 1 <= a and b < first]
                    context = (max(before, default=first), last)
                hunks.append(Hunk(rel, (i1 + 1, i2), (j1 + 1, j2), kind, terms or internal, (first, last), context))
    return hunks, files, all_scopes


#: How far (lines) around a hunk's 0.5.14 side a statement equal to the tool's may lie:
#: upstream moved some statements a few lines (an import hoisted above a guard it deleted).
NEARBY = 12


def upstream_candidates(new_lines: list[str], new_spans: list[tuple[int, int, ast.stmt]],
                        hunk: Hunk) -> set[str]:
    """Normalised texts the tool's version of a site may equal: nothing (upstream deleted
    the statement), the hunk's whole 0.5.14 side, or any 0.5.14 statement (compound ones by
    their header) that overlaps it or lies within ``NEARBY`` lines of it."""
    j1, j2 = hunk.new
    out = {normalise(""), normalise("\n".join(new_lines[j1 - 1:j2]))}
    for a, b, _ in new_spans:
        if a <= j2 + NEARBY and b >= j1 - NEARBY:
            out.add(normalise("\n".join(new_lines[a - 1:b])))
    return out


@functools.lru_cache(maxsize=8)
def _opcodes(old_lines: tuple[str, ...], new_lines: tuple[str, ...]) -> list[tuple[str, int, int, int, int]]:
    return difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False).get_opcodes()


def map_region(old_lines: list[str], new_lines: list[str], first: int, last: int) -> tuple[int, int]:
    """0-based half-open range of new_lines that replaces old lines first..last (1-based),
    lines inserted just before the range included (a TODO comment above a statement)."""
    start = end = None
    a0, a1 = first - 1, last
    for tag, i1, i2, j1, j2 in _opcodes(tuple(old_lines), tuple(new_lines)):
        if start is None:
            if tag == "insert" and i1 == a0:
                start = j1
            elif i1 <= a0 < i2 or (i1 == i2 == a0):
                start = j1 + (a0 - i1 if tag == "equal" else 0)
        if end is None and i1 < a1 <= i2:
            end = j1 + (a1 - i1) if tag == "equal" else j2
        if end is None and tag == "insert" and i1 == a1 and start is not None:
            pass
    if start is None:
        start = len(new_lines)
    if end is None:
        end = start
    return start, max(start, end)


def _key(file: str, span: tuple[int, int], normal: str) -> str:
    return hashlib.sha256(f"{file}:{span[0]}-{span[1]}\0{normal}".encode()).hexdigest()[:16]


def run_tool(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "migrator", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=1800)


def judge(hunk: Hunk, old_text: list[str], tool_text: list[str], candidates: set[str],
          judgments: dict[str, dict], used: set[str]) -> Outcome:
    start, end = map_region(old_text, tool_text, *hunk.span)
    tool_region = "\n".join(tool_text[start:end])
    orig_region = "\n".join(old_text[hunk.span[0] - 1:hunk.span[1]])
    normal = normalise(tool_region)
    changed = normal != normalise(orig_region)
    c0, c1 = map_region(old_text, tool_text, *hunk.context)
    before = "\n".join(old_text[hunk.context[0] - 1:hunk.context[1]])
    has_todo = TODO in "\n".join(tool_text[c0:c1]) and TODO not in before
    key = _key(hunk.file, hunk.span, normal)
    if normal in candidates:
        return Outcome("same", changed, has_todo, key, tool_region)
    if key in judgments:
        used.add(key)
        verdict = judgments[key]
        return Outcome(verdict["verdict"], changed, has_todo, key, tool_region, verdict["reason"])
    if not changed:
        return Outcome("todo" if has_todo else "untouched", changed, has_todo, key, tool_region)
    return Outcome("unjudged", changed, has_todo, key, tool_region)


def load_judgments() -> tuple[dict[str, dict], dict[str, dict]]:
    if not JUDGMENTS.exists():
        return {}, {}
    data = tomllib.loads(JUDGMENTS.read_text(encoding="utf-8"))
    sites = {item["key"]: item for item in data.get("site", [])}
    kept = {key: item for item in data.get("kept", []) for key in item.get("keys", [item.get("key")]) if key}
    return sites, kept


MODES = {"default": [], "unsafe": ["--unsafe-fixes"]}


def run_modes(old_root: Path, work: Path, jobs: int) -> dict[str, float]:
    """Lint 0.5.13's tree (``work/lint.json``) and fix a copy per mode (``work/<mode>/sglang``)."""
    timings: dict[str, float] = {}
    for mode in ("lint", *MODES):
        if (work / mode).exists():
            shutil.rmtree(work / mode)
        shutil.copytree(old_root, work / mode / "sglang", symlinks=True)
    t = time.monotonic()
    lint = run_tool(["lint", "sglang", "--target-version", NEW, "--format", "json", "--jobs", str(jobs)], work / "lint")
    timings["lint"] = time.monotonic() - t
    if lint.returncode not in (0, 1):
        raise SystemExit(f"lint failed: {lint.stderr[-3000:]}")
    (work / "lint.json").write_text(lint.stdout, encoding="utf-8")
    for mode, extra in MODES.items():
        t = time.monotonic()
        proc = run_tool(["fix", "sglang", "--allow-dirty", "--target-version", NEW, "--jobs", str(jobs), *extra],
                        work / mode)
        timings[f"fix {mode}"] = time.monotonic() - t
        if proc.returncode not in (0, 1) or "Traceback" in proc.stderr:
            raise SystemExit(f"fix ({mode}) failed: {proc.stderr[-3000:]}")
    return timings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--out", type=Path, default=RESULTS, help="folder for replay.json and replay.md")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--work", type=Path, help="keep the linted and fixed trees here (default: a temporary folder)")
    parser.add_argument("--compare-only", action="store_true",
                        help="reuse the trees a previous run left in --work (to edit the judgments without re-running)")
    args = parser.parse_args(argv)
    if args.compare_only and not args.work:
        parser.error("--compare-only needs --work")
    began = time.monotonic()
    old_root, new_root = unpacked_wheel(OLD) / "sglang", unpacked_wheel(NEW) / "sglang"
    hunks, changed_files, scopes = upstream_hunks(old_root, new_root)
    site_judgments, kept_judgments = load_judgments()
    used: set[str] = set()
    timings: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="replay-") as tmp:
        work = args.work or Path(tmp)
        if not args.compare_only:
            timings = run_modes(old_root, work, args.jobs)
        findings = json.loads((work / "lint.json").read_text(encoding="utf-8"))["findings"]
        run_level = [f for f in findings if f["code"] == catalog.VENDORED_CODE]  # about the tree, not a site
        findings = [f for f in findings if f["code"] != catalog.VENDORED_CODE]
        trees = {mode: work / mode / "sglang" for mode in MODES}
        by_file: dict[str, list[dict]] = {}
        for finding in findings:
            rel = Path(finding["path"]).as_posix().split("sglang/", 1)[1]
            by_file.setdefault(rel, []).append(finding)
        sites: list[Site] = []
        for hunk in hunks:
            if hunk.kind != "use":
                continue
            old_text = (old_root / hunk.file).read_text(encoding="utf-8").splitlines()
            new_source = (new_root / hunk.file).read_text(encoding="utf-8")
            new_text = new_source.splitlines()
            candidates = upstream_candidates(new_text, statement_spans(ast.parse(new_source)), hunk)
            upstream = "\n".join(new_text[hunk.new[0] - 1:hunk.new[1]])
            first, last = hunk.context
            flagged = sorted({f"{f['code']}@{f['line']}" for f in by_file.get(hunk.file, [])
                              if f["line"] <= last and first <= f.get("end_line", f["line"])})
            site = Site(hunk.file, f"{hunk.span[0]}-{hunk.span[1]}", f"{hunk.new[0]}-{hunk.new[1]}", hunk.terms,
                        flagged, upstream[:3000])
            for mode, tree in trees.items():
                tool_text = (tree / hunk.file).read_text(encoding="utf-8").splitlines()
                site.modes[mode] = asdict(judge(hunk, old_text, tool_text, candidates, site_judgments, used))
            sites.append(site)
        sites_at = {(h.file, line) for h in hunks if h.kind == "use" for line in range(h.context[0], h.context[1] + 1)}
        other = other_findings(by_file, new_root, hunks, scopes, sites_at, kept_judgments, used)
        removed_file_findings = sum(len(v) for rel, v in by_file.items() if not (new_root / rel).is_file())
    stale = sorted((set(site_judgments) | set(kept_judgments)) - used)
    report = {
        "old": OLD, "new": NEW, "tool_revision": _git_revision(), "seconds": round(time.monotonic() - began, 1),
        "timings": {k: round(v, 1) for k, v in timings.items()},
        "changed_surviving_files": changed_files,
        "statements": {kind: [asdict(h) for h in hunks if h.kind == kind]
                       for kind in ("use", "definition", "moved", "internal")},
        "sites": [asdict(s) for s in sites],
        "other_findings": other,
        "findings_in_removed_files": removed_file_findings,
        "stale_judgments": stale,
        "run_level_findings": [{"file": Path(f["path"]).as_posix().split("sglang/", 1)[1], "line": f["line"],
                                "code": f["code"], "severity": f["severity"], "message": f["message"]}
                               for f in run_level],
        "summary": {**summary(sites, other, hunks), "vendored_definitions_finding": bool(run_level)},
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "replay.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    (args.out / "replay.md").write_text(markdown(report), encoding="utf-8")
    print(markdown(report))
    problems = [f"unjudged: {s.file}:{s.old_lines} ({mode}) key={o['key']}\n--- tool\n{o['tool_text']}\n"
                f"--- upstream\n{s.upstream}" for s in sites for mode, o in s.modes.items() if o["outcome"] == "unjudged"]
    problems += [f"unjudged finding outside the sites: {k['file']}:{k['line']} {k['code']} key={k['key']}"
                 for k in other if k["verdict"] == "unjudged"]
    problems += [f"stale judgment (matches no site any more): {key}" for key in stale]
    if not run_level:
        problems.append(f"the run-level vendored-definitions finding ({catalog.VENDORED_CODE}) is absent")
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"replay took {report['seconds']} s", file=sys.stderr)
    return 1 if problems else 0


def other_findings(by_file: dict[str, list[dict]], new_root: Path, hunks: list[Hunk],
                   scopes: dict[str, list[tuple[int, int]]], sites_at: set[tuple[str, int]],
                   judgments: dict[str, dict], used: set[str]) -> list[dict]:
    """Lint findings in surviving files that are on no site: on lines upstream kept (in
    place or moved), on sglang's own definitions of removed names, or on other changed lines."""
    where_of: dict[tuple[str, int], str] = {}
    for hunk in hunks:
        for line in range(hunk.span[0], hunk.span[1] + 1):
            where_of[(hunk.file, line)] = hunk.kind
        for line in range(hunk.old[0], hunk.old[1] + 1):
            where_of.setdefault((hunk.file, line), "changed")
    out: list[dict] = []
    for rel, findings in sorted(by_file.items()):
        if not (new_root / rel).is_file():
            continue
        old_lines = (unpacked_wheel(OLD) / "sglang" / rel).read_text(encoding="utf-8").splitlines()
        for finding in findings:
            if (rel, finding["line"]) in sites_at:
                continue
            text = old_lines[finding["line"] - 1].strip()
            key = hashlib.sha256(f"{rel}\0{finding['code']}\0{text}".encode()).hexdigest()[:16]
            verdict = judgments.get(key)
            if verdict:
                used.add(key)
            where = where_of.get((rel, finding["line"]), "kept")
            if any(a <= finding["line"] <= b for a, b in scopes.get(rel, ())):
                where = "definition"
            out.append({"file": rel, "line": finding["line"], "code": finding["code"], "where": where, "text": text,
                        "message": finding["message"], "fix": finding["fix"]["applicability"], "key": key,
                        "verdict": verdict["verdict"] if verdict else "unjudged",
                        "reason": verdict["reason"] if verdict else ""})
    return out


def summary(sites: list[Site], kept: list[dict], hunks: list[Hunk]) -> dict:
    out: dict = {"sites": len(sites), "hunks": len({(h.file, h.old) for h in hunks if h.kind == "use"}),
                 "flagged": sum(bool(s.flagged) for s in sites)}
    for mode in ("default", "unsafe"):
        counts: dict[str, int] = {}
        for s in sites:
            counts[s.modes[mode]["outcome"]] = counts.get(s.modes[mode]["outcome"], 0) + 1
        out[mode] = counts
        out[f"{mode}_fixed"] = sum(s.modes[mode]["changed"] for s in sites)
    out["other_findings"] = {v: sum(k["verdict"] == v for k in kept) for v in sorted({k["verdict"] for k in kept})}
    return out


def markdown(report: dict) -> str:
    s, statements = report["summary"], report["statements"]
    lines = [f"# Replay: sglang {OLD} -> {NEW}", "",
             f"Tool at `{report['tool_revision']}`; generated by `python benchmarks/replay.py` in "
             f"{report['seconds']} s (lint and the two fixes: "
             + ", ".join(f"{k} {v} s" for k, v in report["timings"].items())
             + "). Definitions: the docstring of `benchmarks/replay.py`.", "",
             f"{s['sites']} upstream-changed sites (related statements that use the V1 path, in "
             f"{s['hunks']} upstream hunks of the {report['changed_surviving_files']} changed files that survive), "
             f"{s['flagged']} flagged. Not counted: "
             f"{len(statements['definition'])} of sglang's own definitions of removed names, "
             f"{len(statements['moved'])} related statements upstream moved unchanged, "
             f"{len(statements['internal'])} statements related only by internal spec v1/v2 words.", ""]
    for mode in ("default", "unsafe"):
        counts = ", ".join(f"{k} {v}" for k, v in sorted(s[mode].items()))
        lines.append(f"- **{mode}**: {counts} (code changed at {s[f'{mode}_fixed']} sites)")
    run_level = report["run_level_findings"]
    shown = [f"the vendored-definitions finding present: {k['code']} ({k['severity']}) at `{k['file']}:{k['line']}`: "
             f"{k['message']}" for k in run_level]
    lines.append("- **run level**: " + ("; ".join(shown) if shown else "the vendored-definitions finding **absent**"))
    lines += ["", "| site (0.5.13 lines) | terms | flagged | default | --unsafe-fixes |", "|---|---|---|---|---|"]
    for site in report["sites"]:
        cells = []
        for mode in ("default", "unsafe"):
            o = site["modes"][mode]
            cells.append(o["outcome"] + (f" ({o['reason']})" if o["reason"] else ""))
        terms = ", ".join(t for t in site["terms"])[:60].replace("|", "\\|")
        flagged = ", ".join(site["flagged"]) or "**missed**"
        lines.append(f"| `{site['file']}:{site['old_lines']}` | {terms} | {flagged} | {cells[0]} | {cells[1]} |")
    other = report["other_findings"]
    lines += ["", f"Findings on no site ({len(other)}; where: kept = a line upstream kept, moved = a statement "
              "upstream moved unchanged, definition = sglang's own definition of a removed name): "
              + ", ".join(f"{k} {v}" for k, v in s["other_findings"].items()), "",
              "| line | code | where | right? | why |", "|---|---|---|---|---|"]
    for k in other:
        lines.append(f"| `{k['file']}:{k['line']}` | {k['code']} | {k['where']} | {k['verdict']} | {k['reason']} |")
    lines += ["", f"Findings in files removed by {NEW}: {report['findings_in_removed_files']}.", ""]
    return "\n".join(lines)


def _git_revision() -> str:
    proc = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return proc.stdout.strip() or "unknown"


if __name__ == "__main__":
    raise SystemExit(main())
