"""A fix is kept only where its result serves every release the run targets.

The rules spell each fix for the newest release of the target (``RuleContext.target``).
Over a range that is not enough: DFM305's function moves in 0.5.23, DFM301's field is
renamed in 0.5.15, so the newest spelling breaks the fork on the older releases its users
run. :func:`fit` looks at each finding after the rules ran and, from the catalog alone (so
every machine gives the same fixes), keeps its fix only where the entry's replacement is
the same on every release the finding's code runs on; elsewhere the fix becomes a TODO
that names which releases each spelling serves.

Which releases a statement runs on (``migrator.python.fallbacks``): all of the target, except in
an existing fallback. An import in the body of a ``try: ... except ImportError:`` that
resolves on some release of the target is left alone, each handler and each branch of a
version test is migrated for the releases reaching it, and a branch no release reaches is
left as it is and reported. A string a probe tests for (``migrator.python.probes``) is never
rewritten.
"""

from __future__ import annotations

import ast

from migrator import catalog
from migrator.base.lines import split_lines
from migrator.base.model import Finding, Fix, InsertComment, Replace
from migrator.catalog.target import label
from migrator.python.fallbacks import anchor_lines, branch_at, branches
from migrator.python.names import IMPORT_ERROR_NAMES
from migrator.python.patch_sites import LINE_WORDS, patch_sites, site_at
from migrator.python.probes import probe_at, probe_literals, reporting_tries


def spellings(entry: catalog.Entry, releases: tuple[str, ...]) -> dict[str | None, list[str]]:
    """What serves each release, newest spelling first: the entry's replacement there, else
    its old name where that still exists (None: nothing does)."""
    served: dict[str | None, list[str]] = {}
    for release in reversed(releases):
        spelling = entry.replacement_for(release) or (entry.old if release in entry.exists else None)
        served.setdefault(spelling, []).insert(0, release)
    return served


def served_text(served: dict[str | None, list[str]]) -> str:
    parts = [f"`{spelling}` serves {label(tuple(releases))}" if spelling else f"nothing serves {label(tuple(releases))}"
             for spelling, releases in served.items()]
    return "; ".join(parts)


#: words without which a source holds no fallback or version test (``branches``) ...
_BRANCH_WORDS = (*sorted(IMPORT_ERROR_NAMES), "__version__", "version(")
#: ... and no probe (``migrator.python.probes``): the text is checked before its tree is walked
_PROBE_WORDS = ("import_module", "__import__", "find_spec", "find_loader", "get_loader", "iter_modules",
                "walk_packages", "hasattr", "getattr")


def _in_literal(finding: Finding, lines: list[str]) -> bool:
    """Whether a fixable finding starts at or right after a quote (a string literal, or a
    name spelled in one): only those can be what a probe tests for."""
    if finding.fix is None or finding.fix.applicability == "manual":
        return False
    line, column = finding.span.start.line, finding.span.start.column
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    return any(quote in text[max(column - 1, 0):column + 3] for quote in "'\"")  # also r"...", f'...'


def fit(findings: list[Finding], tree: ast.Module | None, releases: tuple[str, ...], newest: str,
        source: str = "", lines: list[str] | None = None) -> list[Finding]:
    """``findings`` with every fix that would not serve all of its releases, or that would
    rewrite a probe (``migrator.python.probes``), turned into a TODO, and the findings on existing
    fallbacks settled (see the module docstring). ``source``: the text of ``tree``; the tree
    is walked only where the text holds a fallback, version test or probe word. ``lines``:
    the source's lines as Python numbers them (the analysis has them), else split here."""
    fixable_lines = tuple(sorted({f.span.start.line for f in findings
                                  if f.fix is not None and f.fix.applicability != "manual"}))
    if tree is None or not fixable_lines:
        return findings
    found = branches(tree, releases, fixable_lines) if any(word in source for word in _BRANCH_WORDS) else []
    probes = None
    reporting: dict[tuple[int, int], str] | None = None
    sites = _patch_sites(tree, fixable_lines, lines, source)
    decided: list[tuple[Finding, catalog.Entry | None, str | None]] = []  # (finding, entry, TODO detail)
    by_code = catalog.by_code()
    for finding in findings:
        fix = finding.fix
        entry = by_code.get(finding.code)
        if fix is None or fix.applicability == "manual" or entry is None or fix.adaptive:
            decided.append((finding, None, None))
            continue
        if probes is None:
            if lines is None:
                lines = split_lines(source)
            # a probe tests a string: only a fix starting at a quote can rewrite one
            in_literal = any(_in_literal(f, lines) for f in findings)
            probes = probe_literals(tree) if in_literal and any(word in source for word in _PROBE_WORDS) else {}
        probe = probe_at(probes, finding.span.start.line, finding.span.start.column) if probes else None
        if probe is not None:
            decided.append((finding, entry, _probe_detail(entry, probe, releases)))
            continue
        branch = branch_at(found, finding.span.start.line)
        site = site_at(sites, *finding.span.start, *finding.span.end) if sites else None
        decision = None
        if site is not None:
            if lines is None:
                lines = split_lines(source)
            decision = _at_patch_site(finding, entry, site, releases if branch is None else branch.releases, lines)
        if decision is not None:
            decided.append(decision)
            continue
        if branch is not None and branch.unknown:
            decided.append((finding, entry, f"{entry.message}; inside a test of sglang's version the tool cannot "
                            "evaluate: migrate this branch by hand for the releases that reach it"))
            continue
        scope = releases if branch is None else branch.releases
        if branch is not None and not scope:
            decided.append((finding._replace(fix=None, message=f"{finding.message}; no release of the target reaches "
                                             "this fallback branch: left as it is"), None, None))
            continue
        if branch is not None and entry.kind in ("module", "class", "function") and (
                any(r in entry.exists for r in releases) if branch.is_body else all(r in entry.exists for r in scope)):
            continue  # an existing fallback: this spelling serves the releases that reach it
        if branch is not None and branch.is_body:
            if reporting is None:
                reporting = reporting_tries(tree, fixable_lines)
            how = next((how for (first, last), how in reporting.items() if first <= finding.span.start.line <= last), None)
            if how is not None:
                decided.append((finding, entry, _reporting_detail(entry, how, scope)))
                continue
        wanted = entry.replacement_for(newest)
        if all(entry.replacement_for(release) == wanted for release in scope) or _local_rename(fix, entry, scope):
            decided.append((finding, None, None))
            continue

        decided.append((finding, entry, f"{entry.message}; no single spelling serves sglang {label(scope)}: "
                        f"{served_text(spellings(entry, scope))}"))
    return _with_todos(tree, decided)


def _with_todos(tree: ast.Module, decided: list[tuple[Finding, catalog.Entry | None, str | None]]) -> list[Finding]:
    """The findings, each one with a TODO detail turned into a manual fix: the TODO comment
    inserted above its statement."""
    anchors = anchor_lines(tree, {f.span.start.line for f, _, detail in decided if detail is not None})
    kept: list[Finding] = []
    for finding, entry, detail in decided:
        if detail is None or entry is None:
            kept.append(finding)
            continue
        comment = catalog.todo_comment(entry, detail)
        kept.append(finding._replace(message=detail, fix=Fix("manual", (
            InsertComment(anchors[finding.span.start.line], comment),))))
    return kept


def _patch_sites(tree: ast.Module, fixable_lines: tuple[int, ...],
                 lines: list[str] | None, source: str) -> dict:
    """The patch sites (``migrator.python.patch_sites``) of the lines holding a fix, the
    tree walked only where such a line holds a word a patch site needs."""
    if lines is None:
        lines = split_lines(source)
    wanted: set[int] = set()
    for line in fixable_lines:
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        if any(word in text for word in LINE_WORDS):
            wanted.add(line)
            if text.lstrip().startswith("@"):  # a decorator: the statement starts at its ``def`` or ``class``
                wanted.update(range(line + 1, min(line + 50, len(lines)) + 1))
    return patch_sites(tree, tuple(sorted(wanted))) if wanted else {}


def _at_patch_site(finding: Finding, entry: catalog.Entry, site: str, scope: tuple[str, ...],
                   lines: list[str]) -> tuple[Finding, catalog.Entry | None, str | None] | None:
    """The decision for a fix at a patch site (``migrator.python.patch_sites``), None where
    the fix may stand. The patch replaces what code that looks the name up *there* gets:

    * the old spelling resolves on every release of ``scope`` (``validate_dflash_request``
      is still imported by name into ``managers.scheduler``): the patch still works as
      written, and a rewrite would patch another namespace than the one the runtime reads;
      left as it is, the finding kept without a fix;
    * it resolves on some of them only: a TODO naming what serves each release;
    * it resolves on none: the original patch fails everywhere; the fix, which renames
      what is patched together with what the migrated code looks up, may stand, unless it
      turns a dotted target into a plain name (a local binding nothing reads): a TODO.
    """
    resolving = tuple(release for release in scope if release in entry.exists)
    if scope and resolving == scope:
        return (finding._replace(fix=None, message=f"{finding.message}; here `{entry.old}` is a patch site ({site}) "
                                 f"and still resolves on sglang {label(scope)}: left as it is"), None, None)
    if not resolving and not _to_plain_name(finding, lines):
        return None
    return (finding, entry, f"{entry.message}; this is a patch site ({site}): a rewrite would bind or patch another "
            "object than the one the runtime looks up; patch the name where the code that calls it looks it up "
            f"on each release ({served_text(spellings(entry, scope))}; a module that imported it by name keeps "
            "its own reference)")


def _to_plain_name(finding: Finding, lines: list[str]) -> bool:
    """Does the fix replace a dotted reference (``sched.validate_dflash_request``) at the
    finding with a plain name (a local binding where the original set a module attribute)?"""
    span = finding.span
    if span.start.line != span.end.line or not 0 < span.start.line <= len(lines):
        return False
    written = lines[span.start.line - 1][span.start.column:span.end.column]
    return "." in written and any(
        isinstance(edit, Replace) and edit.span.start == span.start and "." not in edit.text
        for edit in finding.fix.edits) if finding.fix else False


def _reporting_detail(entry: catalog.Entry, how: str, releases: tuple[str, ...]) -> str:
    """Why a guarded import whose outcome is used as a fact is not rewritten."""
    new = entry.replacement_for(releases[-1])
    instead = f" to `{new}`" if new else ""
    return (f"`{entry.old}` is tried by a `try` that {how}: the import fails on sglang {label(releases)}, so the "
            f"code takes its `except` branch there; rewriting it{instead} would make it succeed and invert that "
            "answer: decide by hand what the code should do on V2")


def _local_rename(fix: Fix, entry: catalog.Entry, scope: tuple[str, ...]) -> bool:
    """A rename of a bare local name to the leaf every release's spelling shares (the name
    moved between modules, not its own name): the import that binds it decides the module
    (version-adaptive or a TODO), and the write guard refuses the rename where that import
    does not bind the new name."""
    leaves = {(entry.replacement_for(release) or "").rpartition(".")[2] for release in scope}
    return (len(leaves) == 1 and "" not in leaves and bool(fix.edits)
            and all(isinstance(e, Replace) and e.text in leaves for e in fix.edits))


def _probe_detail(entry: catalog.Entry, probe: str, releases: tuple[str, ...]) -> str:
    """What a probe of ``entry``'s old name now finds, release by release."""
    present = tuple(r for r in releases if r in entry.exists)
    absent = tuple(r for r in releases if r not in entry.exists)
    if not present:
        now = f"it finds nothing on sglang {label(releases)}, so the test is false there"
    else:
        now = f"it finds it on sglang {label(present)} only" + (f", not on {label(absent)}" if absent else "")
    new = entry.replacement_for(releases[-1])
    instead = f" to `{new}`" if new else ""
    return (f"`{entry.old}` is what the probe {probe} tests for: rewriting it{instead} would invert the test; "
            f"{now}: decide by hand what the code should do on V2")
