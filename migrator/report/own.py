"""Is a file one of this tool's own reports? Decided by content, strictly.

A report written under a name the tool does not know (``lint --format sarif -o r.sarif``)
quotes every V1 name it found, so the next ``lint .`` would report the report. The
documented names (:data:`migrator.run.files.REPORT_NAMES`) are left out by name; any other
file is left out only where its content is, field for field, a report this tool writes in
one of its JSON formats (``json``, ``json-lines``, ``sarif``, ``gitlab``): the exact keys of
each object, ``DFM`` rule codes, 64-digit fingerprints, the tool's name. A JSON file that
merely mentions V1 names, or holds one key more, is linted as any other.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from migrator.base.patterns import on_first_use
from migrator.report.common import JSON_SCHEMA_VERSION

_CODE = on_first_use(r"DFM\d{3}\Z")
_FINGERPRINT = on_first_use(r"[0-9a-f]{64}\Z")
ERROR = {"path", "message", "line", "column"}
UNUSED = {"path", "line", "codes"}
#: The lint report's own schema (``schema/lint-v1.schema.json``) says which keys a report and a
#: finding hold (every required key, no other), so a key added there is recognised here too.
SCHEMA = Path(__file__).with_name("schema") / "lint-v1.schema.json"
GITLAB = {"type", "check_name", "description", "categories", "severity", "fingerprint", "location"}
SARIF = {"$schema", "version", "runs"}
TOOL = "dflash-migrate"


def is_own_report(data: bytes) -> bool:
    """Whether ``data`` is a report of this tool in one of its JSON formats. Cheap for
    anything else: only text that starts like JSON and holds a fingerprint key is parsed."""
    start = data[:64].lstrip()[:1]
    if start not in (b"{", b"[") or (b'"fingerprint": "' not in data and b'"partialFingerprints"' not in data):
        return False

    try:
        text = data.decode("utf-8")
        try:
            document = json.loads(text)
        except ValueError:  # json-lines: one object a line
            return start == b"{" and all(_row(json.loads(line)) for line in text.splitlines() if line.strip())
    except (ValueError, RecursionError):
        return False
    if isinstance(document, dict) and "type" in document:
        return _row(document)  # json-lines of one line
    if isinstance(document, list):
        return bool(document) and all(_gitlab_issue(issue) for issue in document)
    if not isinstance(document, dict):
        return False
    if set(document) == SARIF:
        return _sarif(document)
    return _keys_fit(document, "report") and document["version"] == JSON_SCHEMA_VERSION and \
        _all(document["findings"], _finding) and _all(document["errors"], _error) and \
        _all(document["unused_suppressions"], _unused)


@cache
def _schema_keys(what: str) -> tuple[frozenset[str], frozenset[str]]:
    """(required, allowed) keys of the lint report (``"report"``) or of one finding (``"finding"``)."""
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    part = schema if what == "report" else schema["$defs"][what]
    return frozenset(part.get("required", ())), frozenset(part["properties"])


def _keys_fit(document: dict, what: str) -> bool:
    required, allowed = _schema_keys(what)
    return required <= document.keys() <= allowed


def _all(rows: object, check) -> bool:  # noqa: ANN001 - one of the row checks
    return isinstance(rows, list) and all(check(row) for row in rows)


def _finding(row: object) -> bool:
    return isinstance(row, dict) and _keys_fit(row, "finding") and "fingerprint" in row and _is_code(row["code"]) and \
        isinstance(row["fingerprint"], str) and bool(_FINGERPRINT().match(row["fingerprint"]))


def _error(row: object) -> bool:
    return isinstance(row, dict) and set(row) == ERROR


def _unused(row: object) -> bool:
    return isinstance(row, dict) and set(row) == UNUSED and _all(row["codes"], _is_code)


def _row(row: object) -> bool:
    """One line of ``--format json-lines``."""
    if not isinstance(row, dict):
        return False
    kind = row.get("type")
    rest = {key: value for key, value in row.items() if key != "type"}
    return (kind == "finding" and _finding(rest)) or (kind == "error" and _error(rest)) or \
        (kind == "unused_suppression" and _unused(rest))


def _gitlab_issue(issue: object) -> bool:
    return isinstance(issue, dict) and set(issue) == GITLAB and issue["type"] == "issue" and \
        (_is_code(issue["check_name"]) or issue["check_name"] == f"{TOOL}/error") and \
        isinstance(issue["fingerprint"], str) and bool(_FINGERPRINT().match(issue["fingerprint"]))


def _sarif(document: dict) -> bool:
    runs = document["runs"]
    if document["version"] != "2.1.0" or not isinstance(runs, list) or len(runs) != 1 or not isinstance(runs[0], dict):
        return False
    driver = runs[0].get("tool", {}).get("driver", {}) if isinstance(runs[0].get("tool"), dict) else {}
    results = runs[0].get("results")
    return isinstance(driver, dict) and driver.get("name") == TOOL and isinstance(results, list) and \
        all(isinstance(result, dict) and _is_code(result.get("ruleId")) for result in results)


def _is_code(value: object) -> bool:
    return isinstance(value, str) and bool(_CODE().match(value))
