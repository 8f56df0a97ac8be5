"""The fork pass (``migrator.python.forkindex``): only where the fork's own modules
re-export V1 objects (or another module's types would decide a call), index the project's
modules, find the names they re-export in the files not parsed yet (to a fixed point), and
analyse again, with the index, the files that import from those modules."""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

from migrator import catalog
from migrator.base.fileio import SourceError, decode_python, read_bytes
from migrator.base.lines import may_suppress
from migrator.base.model import INFO, FileResult, Finding, Span
from migrator.base.options import Options, enabled_for, selection
from migrator.base.patterns import on_first_use
from migrator.base.records import NamedTuple, record
from migrator.base.repository import top_of
from migrator.python.analysis import analyze, module_name_for
from migrator.python.forkindex import ForkIndex, module_files, package_root
from migrator.relevance.prefilter import might_match
from migrator.run import batches, gitscan
from migrator.run.batches import narrow_with_git
from migrator.run.files import absolute_path, discover, is_python
from migrator.run.pipeline import module_name_of
from migrator.run.passes import MAX_ANALYZE_BYTES, Pass
from migrator.run.result import RunResult

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Iterable, Sequence

    from migrator.python.forkindex import ModuleSummary
    from migrator.run.gitscan import GitScan
    from migrator.run.summary_cache import SummaryCache


TRIE_MAX_WORD = 100  # longer index words: a plain alternation (the trie's nesting follows the length)


def through_the_fork(workers, outcome: RunResult, paths: Sequence[Path], files: list[str],  # noqa: ANN001
                      options: Options, jobs: int, kind: str, scan: GitScan | None = None) -> None:
    """Second step, only where the fork's modules re-export V1 objects (``migrator.python.forkindex``):
    index the project's modules, look for the names they re-export under new names in the
    files not parsed yet (to a fixed point), and analyse again, with the index, the files
    that import from those modules or that other modules import from. ``scan``: the run's
    ``git grep`` of the named files' repository, if it started one (read again here)."""
    # workers answer in the order they finish: everything below reads the results by path,
    # so the index, the rounds and the chunks are the same in every run and for every --jobs
    summaries = {r.path: r.module for r in sorted(outcome.results, key=lambda r: r.path) if r.module is not None}
    index_only: set[str] = set()
    cache: SummaryCache | None = None  # kept between runs: only where named files take an index beyond them
    scope = index_scope(paths, options)
    if scope is not None:
        here = os.getcwd()  # once: `abspath` asks for it per path, and pre-commit names thousands
        given = {absolute_path(f, here) for f in files if is_python(f)}
        shared = scan if scan is not None and scope.git_root is not None and Path(scan.root) == scope.git_root else None

        def tracked(root: str) -> frozenset[str] | None:  # the run's scan lists the repository already
            return shared.tracked() if shared is not None and root == shared.root else gitscan.tracked_files(root)

        found = discover(scope.folders, selection(options), options.respect_gitignore, accept=is_python, tracked=tracked)
        extra = [p for p in found.files if absolute_path(p, here) not in given]
        if scope.git_root is None and scope.import_roots:  # the packages the named files' packages import
            imported, folders = _imported_packages(scope, [*files, *extra], given, options)
            extra += imported
            scope = scope._replace(folders=[*scope.folders, *folders])
        index_only.update(extra)
        outcome.index_read = f"{len(extra)} more files under {', '.join(map(str, scope.folders))} ({scope.why})"
        # git narrows them as in the first step: only files holding a marker are read
        scans = [] if scope.git_root is None else [shared or gitscan.start(scope.git_root)]
        narrowed = narrow_with_git(scans, extra, None)
        if not options.no_cache:
            from migrator.run.summary_cache import SummaryCache

            cache = getattr(shared, "cache", None) or SummaryCache(options)
        _index_only(workers, narrowed, options, kind, jobs, summaries, cache, getattr(shared, "blob_of", None))
    try:
        _through_the_index(workers, outcome, files, options, jobs, kind, summaries, index_only, cache)
    finally:
        if cache is not None:
            outcome.index_read += f"; summary cache {cache.folder}: {cache.hits} entries reused, {cache.misses} missed"
            cache.close()


def _through_the_index(workers, outcome: RunResult, files: list[str], options: Options, jobs: int,  # noqa: ANN001
                       kind: str, summaries: dict[str, ModuleSummary], index_only: set[str],
                       cache: SummaryCache | None) -> None:
    """The rest of :func:`through_the_fork` once the named files' index is read: the index
    completed, the names it re-exports looked for, the files it concerns analysed again."""
    scanned = set(files)
    if not summaries:
        return
    _read_wanted(summaries, (*files, *index_only), cache)
    index = _completed(summaries, cache)
    _analyze_again(workers, outcome, files, options, jobs, kind, summaries, index_only, cache, index)
    _report_vendored(outcome, index, scanned, options)  # last: the step above replaces results


def _analyze_again(workers, outcome: RunResult, files: list[str], options: Options, jobs: int,  # noqa: ANN001
                   kind: str, summaries: dict[str, ModuleSummary], index_only: set[str],
                   cache: SummaryCache | None, index: ForkIndex) -> None:
    """The names the index re-exports looked for in the files not parsed yet (to a fixed
    point), then the files it concerns analysed again, their results replacing the first ones."""
    scanned = set(files)
    carriers = index.carriers()
    if not carriers and not index.own_definitions and not any(summary.wanted for summary in summaries.values()):
        return
    searched: set[str] = set()
    contents: dict[str, bytes] = {}  # read once, however many rounds a chain of renames takes
    while index.words - searched:  # names re-exported under new names: a second byte-level pass
        words = index.words - searched
        searched |= words
        unparsed = [p for p in (*files, *index_only) if p not in summaries and is_python(p)]
        pattern = any_word_pattern(words)
        hits = [p for p in unparsed if _holds_any(p, pattern, contents)]
        if not hits:
            break
        batches.analyze_files(workers, hits, options, Pass(index, index_only=True), kind, jobs, summaries, None)
        index = _completed(summaries, cache)
        carriers = index.carriers()
    again = sorted(p for p, summary in summaries.items() if index.touches(summary, carriers) and p in scanned)
    replaced: dict[str, FileResult] = {}
    batches.analyze_files(workers, again, options, Pass(index), kind, jobs, {}, replaced)
    outcome.results[:] = [replaced.get(r.path, r) for r in outcome.results]
    known = {r.path for r in outcome.results}
    outcome.results.extend(r for p, r in replaced.items() if p not in known)


VENDORED_SHOWN = 6  # definitions named in the message; SARIF's related locations list every one


def _report_vendored(outcome: RunResult, index: ForkIndex, scanned: set[str], options: Options) -> None:
    """One informational finding (``catalog.VENDORED_CODE``) per scanned ``sglang`` package of
    the tree whose modules still define what a promoted safe fix assumes the released sglang
    means (``ForkIndex.vendored_definitions``, from the summaries), on the package's
    ``__init__.py`` line 1 where the run scanned it (else the first definition): merge
    upstream first. A suppression comment in that file hides it (the one file read again)."""
    if not index.vendored_definitions:  # most runs: nothing to look at
        return

    code = catalog.VENDORED_CODE
    if options.target_version is not None and not catalog.get(code).fires_for(options.target_version):
        return  # a V1-era target: the vendored definitions are the release's own
    # paths compared normalised, but only those that can match (a run has thousands)
    inits = {os.path.normpath(p) for p in scanned if p.endswith("__init__.py")}
    for package, found in sorted(index.vendored_definitions.items()):
        found = sorted(d for d in found if d[2] in scanned)
        if not found:
            continue
        init = os.path.join(package, "__init__.py")  # where scanned: a finding stays in the files the run scanned
        path, line = (init, 1) if os.path.normpath(init) in inits else found[0][2:]
        if not enabled_for(path, options)(code):
            continue
        keywords = catalog.sglang_meaning_parameters()
        named = [f"`{owner.rpartition('.')[2]}({member}=...)`" if member in keywords
                 else f"`{owner.rpartition('.')[2]}.{member}`" for member, owner, _, _ in found]
        named = [f"{name} ({where}:{at})" for name, (_, _, where, at) in zip(named, found)]
        more = f" and {len(named) - VENDORED_SHOWN} more" if len(named) > VENDORED_SHOWN else ""
        message = (f"{catalog.get(code).message}: {', '.join(named[:VENDORED_SHOWN])}{more}; "
                   "merge upstream's release into it first")
        finding = Finding(path, Span.of(line, 0, line, 0), code, message,
                          related=tuple((where, at) for _, _, where, at in found), severity=INFO)
        wanted, name = os.path.normpath(path), os.path.basename(path)
        result = next((r for r in outcome.results if r.path.endswith(name) and os.path.normpath(r.path) == wanted), None)
        if result is None:
            result = FileResult(path)
            outcome.results.append(result)
        if _suppressed(result, finding):
            result.suppressed += 1
        else:
            result.findings.append(finding)


def _suppressed(result: FileResult, finding: Finding) -> bool:
    """Does a comment in the file the run-level finding lands on hide it? Its file is read
    once more (one per vendored package, only in a run that has the finding); the directive
    that hides it is no longer reported unused."""
    try:
        data = read_bytes(result.path)
        if not may_suppress(data.decode("latin-1"), python=True):  # ASCII markers: the real decoding can wait
            return False
        text = decode_python(data)
    except SourceError:
        return False  # its own pass reported why, if it read it
    from migrator.base.suppressions import filter_late

    return filter_late(text, finding, result.unused_suppressions)


@record
class IndexScope(NamedTuple):
    """What the fork index reads besides the named paths: ``folders`` walked whole; in a
    repository its top, narrowed with ``git grep`` there (``git_root``); ``import_roots``: outside
    one, the folders holding the named files' top packages, where the packages they import
    are looked for; ``why``: said by ``-v``."""

    folders: list[Path]
    git_root: Path | None
    import_roots: tuple[Path, ...]
    why: str


def index_scope(paths: Sequence[Path], options: Options) -> IndexScope | None:
    """The folders the fork index covers (None: none beyond the named paths). In a
    repository, its top; outside one, the configuration's folder where the named paths are
    in it, else the top package of each named file (a script outside a package is no module
    of the index: nothing), never the current folder or a named file's folder as such
    (issue 50: a folder of 20,000 files walked for one file)."""
    if not paths:
        return None
    first = paths[0].resolve()
    top = top_of(str(first if first.is_dir() else first.parent))
    configured = Path(options.config).resolve().parent if top is None and options.config is not None else None
    if configured is not None and not all(p.resolve().is_relative_to(configured) for p in paths):
        configured = None  # `--config` of another folder: the named files' project is not that folder
    if top is not None or configured is not None:
        root = Path(top) if top is not None else configured
        if all(p.is_dir() and p.resolve() == root for p in paths):
            return None  # walked already
        return IndexScope([root], root if top is not None else None, (),
                          "the repository" if top is not None else "the configuration's folder")
    packages: dict[Path, None] = {}
    for path in paths:
        if path.is_dir():
            continue  # walked already
        resolved = path.resolve()
        module = module_name_for(resolved)
        if module is None:
            continue
        package = Path(package_root(resolved, module)) / module.partition(".")[0]
        if package.is_dir() and package != resolved:
            packages[package] = None
    if not packages:
        return None
    return IndexScope(list(packages), None, tuple(dict.fromkeys(p.parent for p in packages)),
                      "outside a repository: the named files' packages and the packages they import")


IMPORTED_TOP = on_first_use(rb"^[ \t]*(?:from[ \t]+([A-Za-z_]\w*)|import[ \t]+([^\n#;]+))", re.MULTILINE)


def _imported_packages(scope: IndexScope, files: list[str], given: set[str], options: Options) -> tuple[list[str], list[Path]]:
    """The Python files of the packages that ``files`` import (absolute imports; a relative
    one stays in its package) found in the scope's import roots, and of those they import in
    turn: what a named file's findings can depend on outside its own package; and their folders."""
    walked = set(scope.folders)
    here = os.getcwd()
    added: list[str] = []
    folders: list[Path] = []
    todo = list(files)
    while todo:
        names: set[str] = set()
        for path in todo:
            try:
                data = read_bytes(path)
            except SourceError:
                continue
            for from_name, import_names in IMPORTED_TOP().findall(data):
                if from_name:
                    names.add(from_name.decode("ascii"))
                else:
                    names.update(part.split(b".")[0].split()[0].decode("ascii", "replace")
                                 for part in import_names.split(b",") if part.strip())
        new = [root / name for name in sorted(names) for root in scope.import_roots
               if name.isidentifier() and root / name not in walked and (root / name / "__init__.py").is_file()]
        walked.update(new)
        found = discover(new, selection(options), options.respect_gitignore, accept=is_python).files if new else []
        todo = [p for p in found if absolute_path(p, here) not in given]
        folders += new
        added += todo
    return added, folders


def _index_only(workers, paths: list[str], options: Options, kind: str, jobs: int,  # noqa: ANN001
                summaries: dict[str, ModuleSummary], cache: SummaryCache | None,
                blob_of: Callable[[str], str | None] | None = None) -> None:
    """The index-only pass over ``paths`` (their summaries into ``summaries``), each file's
    summary taken from ``cache`` where it holds one for these bytes, and stored there after.
    ``blob_of``: a file's blob id where git's index vouches for its bytes (``repo_map``):
    such a file is not read to look it up."""
    if cache is None:
        batches.analyze_files(workers, paths, options, Pass(index_only=True), kind, jobs, summaries, None)
        return
    from migrator.run.summary_cache import blob_id

    misses: dict[str, tuple[str | None, str | None]] = {}
    for path in paths:
        blob = blob_of(path) if blob_of is not None else None
        if blob is None:
            try:
                blob = blob_id(read_bytes(path))
            except SourceError:
                misses[path] = (None, None)  # its own analysis reports it; nothing is stored
                continue
        module = module_name_of(Path(path))
        found, summary = cache.get("index", path, module, None, blob)
        if not found:
            misses[path] = (module, blob)
        elif summary is not None:
            summaries[path] = summary
    results: dict[str, FileResult] = {}
    batches.analyze_files(workers, list(misses), options, Pass(index_only=True), kind, jobs, summaries, results)
    for path, result in results.items():
        module, blob = misses.get(path, (None, None))
        if result.error is None and blob is not None:
            cache.put("index", path, module, None, result.module, blob)


def _completed(summaries: dict[str, ModuleSummary], cache: SummaryCache | None = None) -> ForkIndex:
    """The fork index of ``summaries`` once those of masked files (``ModuleSummary.complete``
    False) that import from a module carrying V1 objects, the only ones whose blanked
    statements can matter to it, are the whole files'."""
    while True:
        index = ForkIndex([summaries[path] for path in sorted(summaries)], might_match)
        carriers = index.carriers()
        redo = [path for path, summary in summaries.items() if not summary.complete and index.touches(summary, carriers)]
        if not redo:
            return index
        for path in redo:
            masked, whole = summaries[path], _summary_only(path, cache)
            # what its own (hot) analysis wants decided stays wanted
            summaries[path] = masked._replace(complete=True) if whole is None else whole._replace(
                wanted=tuple(sorted({*whole.wanted, *masked.wanted})))


def _read_wanted(summaries: dict, known: Sequence[str], cache: SummaryCache | None = None) -> None:
    """Index the modules that would decide a finding of an analysed file (``summary.wanted``:
    the class of a receiver defined in another module), and theirs in turn, if they are
    among the project's files (``known``) and not indexed yet. They are few (one per
    undecided call), hold no V1 word and are analysed here, for their summary only."""
    if not any(summary.wanted for summary in summaries.values()):
        return  # most runs: the paths of every project file are not worth joining
    by_real = {os.path.abspath(path): path for path in known if is_python(path)}
    done = {os.path.abspath(path) for path, summary in summaries.items() if summary.complete}
    asked: set[tuple[str, str]] = set()
    while True:
        todo: list[str] = []
        for path in sorted(summaries):
            summary = summaries[path]
            for wanted in summary.wanted:
                if (wanted, summary.root) in asked:
                    continue
                asked.add((wanted, summary.root))
                for candidate in module_files(wanted, summary.root):
                    if candidate in by_real:
                        if candidate not in done:
                            done.add(candidate)
                            todo.append(by_real[candidate])
                        break
        if not todo:
            return
        for path in todo:
            summary = _summary_only(path, cache)
            if summary is not None:
                summaries[path] = summary


def _summary_only(path: str, cache: SummaryCache | None = None) -> ModuleSummary | None:
    """The fork index's summary of one file, every statement walked (a constructor's
    ``self.x = X()`` too); None where it cannot be read or parsed (its own run reports that).
    Taken from ``cache`` where it holds one for these bytes, and stored there after."""
    from migrator.python.summary import summarize

    module_name = module_name_of(Path(path))
    if module_name is None:
        return None
    try:
        data = read_bytes(path)
    except SourceError:
        return None
    if cache is not None:
        found, cached = cache.get("whole", path, module_name, data)
        if found:
            return cached
    try:
        if len(data) > MAX_ANALYZE_BYTES:
            return None
        source = decode_python(data)
        tree = ast.parse(source, filename=path)
        summary = summarize(analyze(tree, source, Path(path), module_name, skip_cold_functions=False), path)
    except (SourceError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if cache is not None:
        cache.put("whole", path, module_name, data, summary)
    return summary


def any_word_pattern(words: Iterable[str]) -> re.Pattern[bytes]:
    """A pattern that finds any of ``words`` (non-empty), as a trie: the engine tries one
    branch per next byte instead of every word at every position (the index's words are
    often hundreds of class names sharing a prefix, ``Worker0`` ... ``Worker199``: 40% less
    time per file than the plain alternation). Words from hostile code that would nest it
    too deeply get the plain alternation."""
    words = sorted(set(words), key=len, reverse=True)
    if len(words[0]) > TRIE_MAX_WORD:
        return re.compile(b"|".join(re.escape(word.encode()) for word in words))
    trie: dict = {}
    for word in words:
        node = trie
        for byte in word.encode():
            node = node.setdefault(byte, {})
        node[None] = {}

    def branch(node: dict) -> bytes:
        parts = [re.escape(bytes([byte])) + branch(child) for byte, child in sorted(
            (key, value) for key, value in node.items() if key is not None)]
        if not parts:
            return b""
        body = parts[0] if len(parts) == 1 else b"(?:" + b"|".join(parts) + b")"
        return b"(?:" + body + b")?" if None in node else body  # a word ends here: the rest is optional

    try:
        return re.compile(branch(trie))
    except RecursionError:
        return re.compile(b"|".join(re.escape(word.encode()) for word in words))


def _holds_any(path: str, pattern: re.Pattern[bytes], contents: dict[str, bytes]) -> bool:
    """Does the file hold one of the words ``pattern`` matches (one pass, however many words)?"""
    data = contents.get(path)
    if data is None:
        try:
            data = contents[path] = read_bytes(path)
        except SourceError:
            contents[path] = b""
            return False
    return pattern.search(data) is not None
