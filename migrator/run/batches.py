"""Which files go to the workers, and in what chunks: git's answer first
(``migrator.run.gitscan``), the largest files first, and one pass of the pool over a list
of files whose summaries and results are collected."""

from __future__ import annotations

import os

from migrator.base.model import FileError, FileResult
from migrator.base.options import Options
from migrator.run import gitscan
from migrator.run.files import absolute_path
from migrator.run.passes import Pass


def analyze_files(workers, paths: list[str], options: Options, this_pass: Pass, kind: str, jobs: int,  # noqa: ANN001
             summaries: dict, results: dict | None) -> None:
    """Analyse ``paths`` on the pool in ``this_pass``; their summaries go to ``summaries``,
    their results to ``results`` (None: dropped)."""
    if not paths:
        return
    size = max(1, len(paths) // (jobs * 4)) if kind != "serial" else 1
    chunks = [paths[start:start + size] for start in range(0, len(paths), size)]

    def collect(payload: tuple[list[str], Options, Pass], ok: bool, value: object) -> None:
        for result in (value if ok else ()):  # type: ignore[union-attr]
            if result.module is not None:
                summaries[result.path] = result.module
            if results is not None:
                results[result.path] = result
        if not ok and results is not None:
            for path in payload[0]:
                results[path] = FileResult(path, error=FileError(path, f"internal error: {value}; file left unchanged"))

    workers.run([(chunk, options, this_pass) for chunk in chunks], collect, small=True)


def narrow_with_git(scans: list, files: list[str], results: list[FileResult] | None) -> list[str]:
    """The files the Python prefilter must look at; files git searched and found no marker
    in get their (empty) result here (``results`` None: the fork pass, which keeps none).
    See ``migrator.run.gitscan``."""
    answers = [gitscan.finish(scan) for scan in scans if scan is not None]
    if not scans or None in scans or None in answers:
        return list(files)
    # Discovery joins names onto the root exactly as given, so a file's path relative to
    # its root (what git prints) is a slice of its text.
    roots = [(scan.root.rstrip(os.sep) + os.sep, searched - hits) for scan, (searched, hits) in zip(scans, answers)]
    settled = _clean(files, files, roots)
    known = set(settled)
    todo = [path for path in files if path not in known]
    # a file named on the command line is spelled as given: matched by its absolute path too
    relative = [path for path in todo if not os.path.isabs(path)]
    if relative:  # `abspath` asks for the current folder once per path: pre-commit names thousands
        here = os.getcwd()
        again = _clean(relative, [absolute_path(path, here) for path in relative], roots)
    else:
        again = []
    if again:
        settled += again
        known.update(again)
        todo = [path for path in todo if path not in known]
    if results is not None:
        results.extend(map(FileResult, settled))
    return todo


def _clean(paths: list[str], spellings: list[str], roots: list[tuple[str, set[str]]]) -> list[str]:
    """Those of ``paths`` whose spelling git searched under one of ``roots`` and found no
    marker in, root by root (one test per file in a comprehension: a folder's run names 3,000)."""
    found: list[str] = []
    for prefix, clean in roots:
        cut = len(prefix)
        found += [path for path, spelled in zip(paths, spellings) if spelled[cut:] in clean and spelled.startswith(prefix)]
    return list(dict.fromkeys(found)) if len(roots) > 1 else found  # nested roots find a file twice


def largest_first_chunks(todo: list[str], jobs: int) -> list[list[str]]:
    """Files by decreasing size, grouped into chunks of similar total size: the largest
    files start first, so no worker is left with one big file at the end."""
    sizes = {path: _size(path) for path in todo}
    ordered = sorted(todo, key=lambda path: -sizes[path])
    target = max(sum(sizes.values()) // (jobs * 16), 32 * 1024)
    chunks: list[list[str]] = []
    current: list[str] = []
    current_bytes = 0
    for path in ordered:
        current.append(path)
        current_bytes += sizes[path]
        if current_bytes >= target or len(current) >= 256:
            chunks.append(current)
            current, current_bytes = [], 0
    if current:
        chunks.append(current)
    return chunks


def _size(path: str) -> int:
    """For scheduling only: a file that cannot be read reports its error when analysed."""
    try:
        return os.stat(path).st_size
    except OSError:
        return 0
