"""Recall and false alarms of ``dflash-migrate lint`` on the blind corpus (issue 47).

``python scripts/score_blind.py`` lints ``tests/data/blind_eval_harness/repo`` with this
checkout's code (``python -m migrator lint --format json --target-version 0.5.14 .``, run
inside the corpus so paths are the key's) and compares the findings with
``ANSWER_KEY.toml`` beside it, which was written from the sglang wheels alone, before the
tool's rules were read:

- recall: ``must_flag`` lines with a finding that starts on that line (or on one of the
  entry's ``also`` lines, for a construct split over two lines such as a k8s env
  name/value pair); lines that break only in a later release (``breaks_in``) are counted
  apart, since ``--target-version 0.5.14`` need not report them;
- false alarms: ``must_not_flag`` lines with a finding;
- unlisted: findings on lines in neither list, printed for a reviewer to judge.

Both are given per file kind, then the missed lines grouped by form. ``--markdown``
prints the same tables as Markdown (for SCORES.md); ``--json FILE`` writes every number
and line. The key's ``text`` of each line must still match the corpus: a stale key stops
the run (exit 2) instead of scoring the wrong lines. The corpus is not a test fixture:
nothing in tests/ reads it, so no rule gets tuned to it by a test.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tomllib
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "tests" / "data" / "blind_eval_harness"


@dataclass(frozen=True)
class KeyLine:
    path: str
    line: int
    text: str
    why: str
    form: str = ""
    breaks_in: str = ""
    also: tuple[int, ...] = ()

    @property
    def lines(self) -> tuple[int, ...]:
        return (self.line, *self.also)


@dataclass
class KindScore:
    key: int = 0
    found: int = 0
    later_key: int = 0
    later_found: int = 0
    must_not: int = 0
    false_alarms: int = 0
    unlisted: int = 0
    missed: list[KeyLine] = field(default_factory=list)


def file_kind(path: str) -> str:
    """A coarse file kind for the tables: what a team would call the file."""
    name = Path(path).name
    suffix = Path(path).suffix.lower()
    if name == "Makefile" or suffix == ".mk":
        return "makefile"
    if name.startswith("Dockerfile"):
        return "dockerfile"
    if name.startswith(".env"):
        return "dotenv"
    kinds = {".py": "python", ".sh": "shell", ".yaml": "yaml", ".yml": "yaml", ".json": "json",
             ".toml": "toml", ".md": "markdown", ".txt": "requirements"}
    return kinds.get(suffix, "other")


def load_key(key_path: Path, repo: Path) -> tuple[str, list[KeyLine], list[KeyLine]]:
    """The key's target release, must_flag and must_not_flag lines; stops on a stale line."""
    data = tomllib.loads(key_path.read_text(encoding="utf-8"))
    stale: list[str] = []

    def entries(section: str) -> list[KeyLine]:
        out = []
        for item in data.get(section, []):
            entry = KeyLine(path=item["path"], line=item["line"], text=item["text"], why=item["why"],
                            form=item.get("form", ""), breaks_in=item.get("breaks_in", ""),
                            also=tuple(item.get("also", ())))
            lines = (repo / entry.path).read_text(encoding="utf-8").splitlines()
            actual = lines[entry.line - 1].strip() if entry.line <= len(lines) else "<past the end>"
            if actual != entry.text:
                stale.append(f"{key_path.name}: {section} {entry.path}:{entry.line}: key says "
                             f"{entry.text!r}, file has {actual!r}")
            out.append(entry)
        return out

    must_flag, must_not = entries("must_flag"), entries("must_not_flag")
    if stale:
        sys.exit("\n".join(stale) + "\nthe answer key is stale: fix the line numbers, do not rescore")
    return data["target_version"], must_flag, must_not


def lint(repo: Path, target: str) -> dict:
    """This checkout's lint of ``repo`` as JSON, run inside it so paths are relative to it."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    proc = subprocess.run([sys.executable, "-m", "migrator", "lint", "--format", "json", "--target-version",
                           target, "."], cwd=repo, env=env, capture_output=True, text=True, check=False)
    if proc.returncode not in (0, 1):
        sys.exit(f"lint exited {proc.returncode}:\n{proc.stderr}")
    return json.loads(proc.stdout)


def score(target: str, must_flag: list[KeyLine], must_not: list[KeyLine], report: dict) -> dict:
    findings: dict[tuple[str, int], list[dict]] = defaultdict(list)
    for item in report["findings"]:
        findings[(os.path.normpath(item["path"]), item["line"])].append(item)

    kinds: dict[str, KindScore] = defaultdict(KindScore)
    listed: set[tuple[str, int]] = set()
    missed, missed_later, false_alarms = [], [], []
    for entry in must_flag:
        kind = kinds[file_kind(entry.path)]
        listed.update((entry.path, line) for line in entry.lines)
        hit = any((entry.path, line) in findings for line in entry.lines)
        if entry.breaks_in in ("", target):
            kind.key += 1
            kind.found += hit
            if not hit:
                kind.missed.append(entry)
                missed.append(entry)
        else:
            kind.later_key += 1
            kind.later_found += hit
            if not hit:
                missed_later.append(entry)
    for entry in must_not:
        kind = kinds[file_kind(entry.path)]
        listed.add((entry.path, entry.line))
        kind.must_not += 1
        if (entry.path, entry.line) in findings:
            kind.false_alarms += 1
            false_alarms.append((entry, findings[(entry.path, entry.line)]))
    unlisted = []
    for (path, line), items in sorted(findings.items()):
        if (path, line) not in listed:
            kinds[file_kind(path)].unlisted += 1
            unlisted.append((path, line, items))
    return {"kinds": dict(sorted(kinds.items())), "missed": missed, "missed_later": missed_later,
            "false_alarms": false_alarms, "unlisted": unlisted}


def _ratio(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else "-"


def render(result: dict, repo: Path, markdown: bool) -> str:
    header = ["kind", "recall (breaks in target)", "later releases", "false alarms (must-not)",
              "unlisted finding lines"]
    rows = []
    total = KindScore()
    for kind, s in result["kinds"].items():
        rows.append([kind, _ratio(s.found, s.key), _ratio(s.later_found, s.later_key),
                     _ratio(s.false_alarms, s.must_not), str(s.unlisted)])
        for name in ("key", "found", "later_key", "later_found", "must_not", "false_alarms", "unlisted"):
            setattr(total, name, getattr(total, name) + getattr(s, name))
    rows.append(["all", _ratio(total.found, total.key), _ratio(total.later_found, total.later_key),
                 _ratio(total.false_alarms, total.must_not), str(total.unlisted)])
    out = [_table(header, rows, markdown), ""]

    by_form: dict[str, list[KeyLine]] = defaultdict(list)
    for entry in result["missed"]:
        by_form[entry.form].append(entry)
    out.append("Missed (breaks in the target release), by form:")
    for form, entries in sorted(by_form.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        out.append(f"- {form} ({len(entries)}):")
        out += [f"  - `{e.path}:{e.line}` `{e.text}` ({e.why})" for e in entries]
    out.append("Missed (breaks only in a later release):")
    out += [f"- `{e.path}:{e.line}` [{e.breaks_in}] `{e.text}`" for e in result["missed_later"]]
    out.append("False alarms (must-not lines with a finding):")
    for entry, items in result["false_alarms"]:
        codes = ", ".join(sorted({item["code"] for item in items}))
        out.append(f"- `{entry.path}:{entry.line}` {codes} `{entry.text}` (key: {entry.why})")
    out.append("Unlisted findings (neither list; for review):")
    for path, line, items in result["unlisted"]:
        text = (repo / path).read_text(encoding="utf-8").splitlines()[line - 1].strip()
        codes = ", ".join(sorted({item["code"] for item in items}))
        out.append(f"- `{path}:{line}` {codes} `{text[:100]}`")
    return "\n".join(out)


def _table(header: list[str], rows: list[list[str]], markdown: bool) -> str:
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows])
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip()
                     for row in [header, *rows])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="folder holding repo/ and ANSWER_KEY.toml")
    parser.add_argument("--markdown", action="store_true", help="print the tables as Markdown")
    parser.add_argument("--json", type=Path, help="also write every number and line to this file")
    args = parser.parse_args(argv)
    repo = args.corpus / "repo"
    target, must_flag, must_not = load_key(args.corpus / "ANSWER_KEY.toml", repo)
    report = lint(repo, target)
    result = score(target, must_flag, must_not, report)
    summary = report.get("summary", {})
    print(f"target {target}; {summary.get('files_scanned')} files scanned, {summary.get('findings')} findings, "
          f"{len(report.get('errors', []))} errors; config {report.get('config')}")
    print(render(result, repo, args.markdown))
    if args.json:
        def plain(entry: KeyLine) -> dict:
            return {"path": entry.path, "line": entry.line, "form": entry.form, "breaks_in": entry.breaks_in,
                    "text": entry.text}

        args.json.write_text(json.dumps({
            "target": target, "summary": summary,
            "kinds": {k: {n: v for n, v in vars(s).items() if n != "missed"} for k, s in result["kinds"].items()},
            "missed": [plain(e) for e in result["missed"]],
            "missed_later": [plain(e) for e in result["missed_later"]],
            "false_alarms": [{**plain(e), "codes": sorted({i["code"] for i in items})}
                             for e, items in result["false_alarms"]],
            "unlisted": [{"path": p, "line": n, "codes": sorted({i["code"] for i in items})}
                         for p, n, items in result["unlisted"]],
        }, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
