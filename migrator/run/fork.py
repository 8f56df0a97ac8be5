"""The fork pass (``migrator.python.forkindex``): only where the fork's own modules
re-export V1 objects (or another module's types would decide a call), index the project's
modules, find the names they re-export in the files not parsed yet (to a fixed point), and
analyse again, with the index, the files that import from those modules."""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

from migrator.base.fileio import SourceError, decode_python, read_bytes
from migrator.base.model import FileResult
from migrator.base.options import Options, selection
from migrator.relevance.prefilter import might_match
from migrator.run import batches, config
from migrator.run.batches import narrow_with_git
from migrator.run.files import discover, is_python
from migrator.run.pipeline import module_name_of
from migrator.run.python_file import MAX_ANALYZE_BYTES, Pass
from migrator.run.result import RunResult

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterable, Sequence

    from migrator.python.forkindex import ForkIndex, ModuleSummary


TRIE_MAX_WORD = 100  # longer index words: a plain alternation (the trie's nesting follows the length)


def through_the_fork(workers, outcome: RunResult, paths: Sequence[Path], files: list[str],  # noqa: ANN001
                      options: Options, jobs: int, kind: str) -> None:
    """Second step, only where the fork's modules re-export V1 objects (``migrator.python.forkindex``):
    index the project's modules, look for the names they re-export under new names in the
    files not parsed yet (to a fixed point), and analyse again, with the index, the files
    that import from those modules or that other modules import from."""
    # workers answer in the order they finish: everything below reads the results by path,
    # so the index, the rounds and the chunks are the same in every run and for every --jobs
    summaries = {r.path: r.module for r in sorted(outcome.results, key=lambda r: r.path) if r.module is not None}
    scanned = set(files)
    index_only: set[str] = set()
    root = config.project_root(paths[0]) if paths else None  # the folder the index covers
    if root is not None and not all(p.is_dir() and p.resolve() == root for p in paths):
        # The index covers the whole project, so one file gives the findings it has in a run of all.
        found = discover([root], selection(options), options.respect_gitignore)
        from migrator.run import gitscan

        given = {os.path.abspath(f) for f in files}
        extra = [p for p in found.files if is_python(p) and os.path.abspath(p) not in given]
        index_only.update(extra)
        # git narrows them as in the first step: only files holding a marker are read
        narrowed = narrow_with_git([gitscan.start(root)], extra, [])
        batches.analyze_files(workers, narrowed, options, Pass(index_only=True), kind, jobs, summaries, None)
    if not summaries:
        return
    _read_wanted(summaries, (*files, *index_only))
    index = _completed(summaries)
    carriers = index.carriers()
    if not carriers and not any(summary.wanted for summary in summaries.values()):
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
        index = _completed(summaries)
        carriers = index.carriers()
    again = sorted(p for p, summary in summaries.items() if index.touches(summary, carriers) and p in scanned)
    replaced: dict[str, FileResult] = {}
    batches.analyze_files(workers, again, options, Pass(index), kind, jobs, {}, replaced)
    outcome.results[:] = [replaced.get(r.path, r) for r in outcome.results]
    known = {r.path for r in outcome.results}
    outcome.results.extend(r for p, r in replaced.items() if p not in known)


def _completed(summaries: dict[str, ModuleSummary]) -> ForkIndex:
    """The fork index of ``summaries`` once those of masked files (``ModuleSummary.complete``
    False) that import from a module carrying V1 objects, the only ones whose blanked
    statements can matter to it, are the whole files'."""
    from migrator.python.forkindex import ForkIndex

    while True:
        index = ForkIndex([summaries[path] for path in sorted(summaries)], might_match)
        carriers = index.carriers()
        redo = [path for path, summary in summaries.items() if not summary.complete and index.touches(summary, carriers)]
        if not redo:
            return index
        for path in redo:
            masked, whole = summaries[path], _summary_only(path)
            # what its own (hot) analysis wants decided stays wanted
            summaries[path] = masked._replace(complete=True) if whole is None else whole._replace(
                wanted=tuple(sorted({*whole.wanted, *masked.wanted})))


def _read_wanted(summaries: dict, known: Sequence[str]) -> None:
    """Index the modules that would decide a finding of an analysed file (``summary.wanted``:
    the class of a receiver defined in another module), and theirs in turn, if they are
    among the project's files (``known``) and not indexed yet. They are few (one per
    undecided call), hold no V1 word and are analysed here, for their summary only."""
    from migrator.python.forkindex import module_files

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
            summary = _summary_only(path)
            if summary is not None:
                summaries[path] = summary


def _summary_only(path: str) -> ModuleSummary | None:
    """The fork index's summary of one file, every statement walked (a constructor's
    ``self.x = X()`` too); None where it cannot be read or parsed (its own run reports that)."""
    from migrator.python.analysis import analyze
    from migrator.python.summary import summarize

    module_name = module_name_of(Path(path))
    if module_name is None:
        return None
    try:
        data = read_bytes(path)
        if len(data) > MAX_ANALYZE_BYTES:
            return None
        source = decode_python(data)
        tree = ast.parse(source, filename=path)
        return summarize(analyze(tree, source, Path(path), module_name, skip_cold_functions=False), path)
    except (SourceError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None


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
