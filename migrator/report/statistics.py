"""``lint --statistics`` and ``lint --show-fixes``, laid out as ruff prints them.

``--statistics``: one line per rule code, most frequent first::

    12  DFM201  [*] `SGLANG_ENABLE_SPEC_V2` is gone: ...
     3  DFM105  [ ] `DFlashVerifyInput.verify()` was removed; ...

(``[*]``: every one of them has a fix that ``--fix`` applies, ``[~]``: some, ``[ ]``: none;
as ruff marks them).
``--show-fixes``: the fixes applied by ``--fix`` (or, without it, those it would apply),
per file and code::

    Fixed 3 findings:
    - pkg/a.py:
        2 × DFM101 (module `dflash_worker` was removed ...)
"""

from __future__ import annotations

from collections import Counter, defaultdict

from migrator import catalog
from migrator.base.model import FileResult
from migrator.edit import applied as fix_applied
from migrator.report.common import findings_of
from migrator.report.escape import visible


def _title(code: str, example: str) -> str:
    try:
        return catalog.get(code).message
    except KeyError:
        return example


def statistics(results: list[FileResult], unsafe_fixes: bool = False) -> str:
    findings = list(findings_of(results))
    counts = Counter(f.code for f in findings)
    fixing = Counter(f.code for f in findings if fix_applied(f.fix, unsafe_fixes))
    marks = {code: "*" if fixing[code] == n else "~" if fixing[code] else " " for code, n in counts.items()}
    examples = {f.code: f.message for f in reversed(findings)}
    if not counts:
        return ""
    width = len(str(max(counts.values())))
    code_width = max(len(code) for code in counts)
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return "".join(f"{n:>{width}}\t{code:<{code_width}}\t[{marks[code]}] "
                   f"{visible(_title(code, examples[code]))}\n" for code, n in rows)


def fixes(results: list[FileResult], applied: bool, unsafe_fixes: bool = False) -> str:
    """The fixes ``--fix`` applied (``applied``) or would apply, per file and code."""
    per_file: dict[str, Counter[str]] = defaultdict(Counter)
    titles: dict[str, str] = {}
    for result in results:
        if applied and not result.written:
            continue
        for finding in result.findings:
            if fix_applied(finding.fix, unsafe_fixes):
                per_file[result.path][finding.code] += 1
                titles.setdefault(finding.code, finding.message)
    total = sum(sum(c.values()) for c in per_file.values())
    if not total:
        return "No findings fixed.\n" if applied else "No fixes available.\n"
    lines = [f"{'Fixed' if applied else 'Would fix'} {total} finding{'s' if total != 1 else ''}:"]
    for path in sorted(per_file):
        lines.append(f"- {visible(path)}:")
        for code, n in sorted(per_file[path].items()):
            lines.append(f"    {n} × {code} ({visible(_title(code, titles[code]))})")
    return "\n".join(lines) + "\n"
