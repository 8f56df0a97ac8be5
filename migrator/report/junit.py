"""``--format junit``: JUnit XML for CI test-report widgets (GitLab, Jenkins, Azure).

One ``<testsuite>`` per file with findings or an error, one failing ``<testcase>`` per
finding (``<error>`` for an unprocessable file). A clean run yields one passing test case,
so report widgets show a green result instead of an empty file.

Test names are stable and unique: ``CODE fingerprint`` (the first 12 hex digits of the
finding's fingerprint, :mod:`migrator.report.locations`), with the file (from the
repository's top) as ``classname``;
the line and column are in the failure message, so moving code does not rename tests
(GitLab keys test history on classname + name). Every attribute and text passes through
:func:`migrator.report.escape.visible`, newlines included (shown as ``\\n``), so the XML
stays well-formed whatever a path or a comment holds, and no text from the repository (a
file name with a newline, reaching an error message or a fork finding's "through <path>")
starts a line of the report: with a report written where Python reads ``.pth`` files, such
a line would be an ``import`` Python runs.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict

from migrator.base.model import FileResult, Finding, RunSummary
from migrator.report.common import TOOL_NAME, errors_of
from migrator.report.escape import visible
from migrator.report.locations import fingerprinted, report_path

#: Hex digits of the fingerprint in a test name (48 bits: collisions need ~16 million findings in one file).
NAME_DIGITS = 12


def render(results: list[FileResult], summary: RunSummary) -> str:
    by_path: dict[str, list[tuple[Finding, str]]] = defaultdict(list)
    for finding, fingerprint in fingerprinted(results):
        by_path[finding.path].append((finding, fingerprint))
    errors = {e.path: e for e in errors_of(results)}
    root = ET.Element("testsuites", name=TOOL_NAME)
    total = failures = 0
    for path in sorted(set(by_path) | set(errors)):
        shown_path = visible(report_path(path))
        suite = ET.SubElement(root, "testsuite", name=shown_path)
        cases = by_path.get(path, [])
        for f, fingerprint in cases:
            text = visible(f"{shown_path}:{f.line}:{f.column + 1}: {f.code} {f.message}")
            case = ET.SubElement(suite, "testcase", name=f"{f.code} {fingerprint[:NAME_DIGITS]}",
                                 classname=shown_path, file=shown_path, line=str(f.line))
            if f.informational:  # the old spelling still works: a note, not a failed case
                ET.SubElement(case, "skipped", message=text)
            else:
                ET.SubElement(case, "failure", message=text, type=f.code).text = text
        failed = sum(1 for f, _ in cases if not f.informational)
        if path in errors:
            case = ET.SubElement(suite, "testcase", name="process", classname=shown_path, file=shown_path)
            ET.SubElement(case, "error", message=visible(errors[path].message),
                          type="error").text = visible(str(errors[path]))
        n_err = int(path in errors)
        suite.set("tests", str(len(cases) + n_err))
        suite.set("failures", str(failed))
        suite.set("skipped", str(len(cases) - failed))
        suite.set("errors", str(n_err))
        total += len(cases) + n_err
        failures += failed
    if total == 0:
        suite = ET.SubElement(root, "testsuite", name=TOOL_NAME, tests="1", failures="0", errors="0")
        ET.SubElement(suite, "testcase", name="no V1 references", classname=TOOL_NAME)
        total = 1
    root.set("tests", str(total))
    root.set("failures", str(failures))
    root.set("errors", str(len(errors)))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
