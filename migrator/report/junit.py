"""``--format junit``: JUnit XML for CI test-report widgets (GitLab, Jenkins, Azure).

One ``<testsuite>`` per file with findings or an error, one failing ``<testcase>`` per
finding (``<error>`` for an unprocessable file). A clean run yields one passing test case,
so report widgets show a green result instead of an empty file.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict

from migrator.model import FileResult, Finding, RunSummary
from migrator.report import TOOL_NAME, errors_of, findings_of


def render(results: list[FileResult], summary: RunSummary) -> str:
    by_path: dict[str, list[Finding]] = defaultdict(list)
    for finding in findings_of(results):
        by_path[finding.path].append(finding)
    errors = {e.path: e for e in errors_of(results)}
    root = ET.Element("testsuites", name=TOOL_NAME)
    total = failures = 0
    for path in sorted(set(by_path) | set(errors)):
        suite = ET.SubElement(root, "testsuite", name=path)
        cases = by_path.get(path, [])
        for f in cases:
            case = ET.SubElement(suite, "testcase", name=f"{f.code} {f.line}:{f.column + 1}", classname=path,
                                 file=path, line=str(f.line))
            failure = ET.SubElement(case, "failure", message=f"{f.code} {f.message}", type=f.code)
            failure.text = f"{path}:{f.line}:{f.column + 1}: {f.code} {f.message}"
        if path in errors:
            case = ET.SubElement(suite, "testcase", name="process", classname=path, file=path)
            ET.SubElement(case, "error", message=errors[path].message, type="error").text = str(errors[path])
        n_err = int(path in errors)
        suite.set("tests", str(len(cases) + n_err))
        suite.set("failures", str(len(cases)))
        suite.set("errors", str(n_err))
        total += len(cases) + n_err
        failures += len(cases)
    if total == 0:
        suite = ET.SubElement(root, "testsuite", name=TOOL_NAME, tests="1", failures="0", errors="0")
        ET.SubElement(suite, "testcase", name="no V1 references", classname=TOOL_NAME)
        total = 1
    root.set("tests", str(total))
    root.set("failures", str(failures))
    root.set("errors", str(len(errors)))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
