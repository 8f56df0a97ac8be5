"""The repository map (issue 49): which of a repository's tracked files the byte prefilter
passes, kept between runs in the summary cache, so that a run over named files (pre-commit's)
asks git only for its index, not for a ``git grep`` of the whole tree.

A run over named files needs the fork index of their repository (``migrator.run.fork``):
the summaries of the files holding a V1 word. Finding them took a ``git grep`` of every
tracked file (40-70 ms of wall time on sglang 0.5.13's tree, waited for before the first
file is analysed) and, for the summary cache's key, reading and hashing each of them. The
map keeps, per tracked path, the git blob id of the bytes it was computed from and the
prefilter's answer for them (``might_match_python``/``might_match``: exactly what the
pipeline asks before it analyses a file, so a file the map rules out is one the pipeline
would have left untouched). A run then reads

* ``git ls-files -s -m -d`` (the index: each tracked file's blob id, no walk, no read; and,
  tagged ``C`` or ``R``, the tracked files whose work-tree bytes may differ from the index or
  that are gone: stat only, as ``git diff-files`` tells them), started while the run walks its
  files (one process: starting a second one cost ~4 ms of this process's time);
* the map (one JSON entry of the summary cache per repository top);
* and, in Python, only the files whose blob the map does not hold or that may differ from
  the index; where they are many (a cold cache), one ``git grep`` of the tree first, as a
  folder's run does, so that only the files holding a marker are read.

The answer has ``migrator.run.gitscan``'s shape (files settled, files to analyse), so the
first step and the fork pass narrow with it as they do with git's. The map's entries are
written only for files whose bytes are the index's blob; a map that cannot be read, or
holds anything unexpected, is empty (it costs time, never a finding).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from migrator.base.fileio import SourceError, read_bytes
from migrator.relevance.prefilter import might_match, might_match_python
from migrator.run import gitscan
from migrator.run.files import is_python

TYPE_CHECKING = False
if TYPE_CHECKING:
    from migrator.run.summary_cache import SummaryCache

FORMAT = 1
#: ``ls-files -t`` tags of a tracked file whose work-tree bytes may differ from the index
#: (``--modified``: stat differs) or that is gone (``--deleted``); lower case: assume-unchanged.
_CHANGED_TAGS = ("C ", "R ", "c ", "r ")
#: Above this many files the map does not know, ``git grep`` narrows them first (it scans
#: on all cores; Python reads ~2,400 files of sglang's tree in ~0.2 s of one core).
GREP_ABOVE = 200


class MapScan(gitscan.GitScan):
    """A :class:`gitscan.GitScan` whose answer comes from the index, the map and the few
    files neither settles (see the module docstring); ``blob_of`` gives the summary cache
    the blob id of a file whose bytes are the index's, so it need not read them."""

    __slots__ = ("cache", "blobs")

    def __init__(self, root: str, listing: subprocess.Popen, cache: SummaryCache) -> None:
        super().__init__(root, None, listing)  # type: ignore[arg-type]  # no grep unless needed
        self.cache = cache
        self.blobs: dict[str, str] = {}

    def blob_of(self, path: str) -> str | None:
        """The index's blob id of ``path`` (as discovery spells it under the root) where the
        work tree holds those bytes; None where it may not or the map was not read."""
        prefix = self.root.rstrip(os.sep) + os.sep
        if not path.startswith(prefix):
            path = os.path.abspath(path)
            if not path.startswith(prefix):
                return None
        return self.blobs.get(path[len(prefix):].replace(os.sep, "/"))

    def compute_answer(self) -> tuple[set[str], set[str]] | None:
        records = self.records()
        if records is None or any(len(record) != 2 for record in records):
            scan = gitscan.start(Path(self.root))  # as a folder's run: git searches every file
            return gitscan.finish(scan) if scan is not None else None
        searchable = {path: head.split(" ")[2] for head, path in records  # what git grep reads: regular files
                      if head[:2] in gitscan._SEARCHED_TAGS and head[2:8] in gitscan._SEARCHED_MODES
                      and head.count(" ") == 3 and not path.startswith(("/", "../"))}
        dirty = {path for head, path in records if head[:2] in _CHANGED_TAGS}
        clean = {path: blob for path, blob in searchable.items() if path not in dirty}
        stored = self._load()
        settled: dict[str, bool] = {}
        fresh: list[str] = []  # clean files the map does not hold with these bytes
        for path, blob in clean.items():
            entry = stored.get(path)
            if entry is not None and entry[0] == blob:
                settled[path] = entry[1]
            else:
                fresh.append(path)
        self._settle([*fresh, *sorted(dirty.intersection(searchable))], settled)
        self.blobs = clean
        if fresh or not stored.keys() <= searchable.keys():  # new bytes, or files no longer tracked
            kept = {path: entry for path, entry in stored.items() if path in dirty and path in searchable}
            kept.update((path, (clean[path], settled[path])) for path in settled if path in clean)
            self._store(dict(sorted(kept.items())))
        searched = set(settled)
        hits = {path for path, relevant in settled.items() if relevant}
        if os.sep != "/":
            searched = {path.replace("/", os.sep) for path in searched}
            hits = {path.replace("/", os.sep) for path in hits}
        return searched, hits

    def _settle(self, unknown: list[str], settled: dict[str, bool]) -> None:
        """The prefilter's answer for the ``unknown`` files into ``settled``: read here, after
        one ``git grep`` of the tree where they are many (the files it searched and found no
        marker in are settled without a read), or where one cannot be read (too large, say:
        git settles it as it does in a folder's run). A file neither settles stays unsettled:
        its own analysis says why."""
        grep = _grep_answer(self.root) if len(unknown) > GREP_ABOVE else None
        unread: list[str] = []
        for path in unknown:
            if grep is not None and path in grep[0] and path not in grep[1]:
                settled[path] = False  # git searched the work tree's bytes: no marker
                continue
            try:
                data = read_bytes(os.path.join(self.root, path))
            except SourceError:
                unread.append(path)
                continue
            settled[path] = might_match_python(data) if is_python(path) else might_match(data)
        if unread and grep is None:
            grep = _grep_answer(self.root)
        for path in unread:
            if grep is not None and path in grep[0] and path not in grep[1]:
                settled[path] = False

    def _key(self) -> list:
        return ["repo-map", os.path.abspath(self.root)]

    def _load(self) -> dict[str, tuple[str, bool]]:
        """The stored map ({} where there is none or it cannot be trusted)."""
        try:
            entry = json.loads(self.cache.entry_file(self._key()).read_bytes())
            if not isinstance(entry, dict) or entry.get("format") != FORMAT or entry.get("key") != self._key():
                return {}
            files = entry["files"]
            return {path: (blob, relevant) for path, (blob, relevant) in files.items()
                    if isinstance(path, str) and isinstance(blob, str) and isinstance(relevant, bool)}
        except Exception:  # noqa: BLE001 - whatever a damaged or hostile entry raises: nothing known
            return {}

    def _store(self, files: dict[str, tuple[str, bool]]) -> None:
        self.cache.write_entry(self._key(), {"format": FORMAT, "key": self._key(), "files": files})


def start(root: Path, cache: SummaryCache) -> gitscan.GitScan | None:
    """The scan of the repository at ``root`` for a run over named files: a :class:`MapScan`
    (the index and the dirty check, started now), or a plain ``git grep`` scan where git
    must not be asked so (a partial clone, ``GIT_DIR`` set) or cannot start."""
    if any(os.environ.get(name) for name in gitscan._GIT_ENV) or gitscan.is_partial_clone(str(root)):
        return gitscan.start(root)
    folder = str(root)
    common = {"cwd": folder, "env": gitscan.git_env(), "stdout": subprocess.PIPE, "stderr": subprocess.DEVNULL,
              "stdin": subprocess.DEVNULL}
    where = gitscan.pathspec()
    try:
        listing = subprocess.Popen(gitscan.git_command(["ls-files", "-z", "-s", "-t", "-v", "--cached", "--modified",
                                                        "--deleted", *where]), **common)
    except OSError:
        return None
    return MapScan(folder, listing, cache)


def _grep_answer(root: str) -> tuple[set[str], set[str]] | None:
    """``git grep``'s (searched, holding a marker) for the tree, with ``/`` separators."""
    scan = gitscan.start(Path(root))
    answer = gitscan.finish(scan) if scan is not None else None
    if answer is None or os.sep == "/":
        return answer
    return {p.replace(os.sep, "/") for p in answer[0]}, {p.replace(os.sep, "/") for p in answer[1]}
