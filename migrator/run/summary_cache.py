"""A persistent cache of the fork index's per-module summaries (issue 49).

A run over named files indexes the fork's other modules (``migrator.run.fork``); their
summaries (``migrator.python.forkindex.ModuleSummary``) depend only on a file's bytes, its
path and module name, the tool's code and catalog, and the options that shape an analysis.
So they are kept between runs, as ruff keeps ``.ruff_cache``:

* where: ``--cache-dir`` / the ``cache-dir`` setting (``Options.cache_dir``), else
  ``$DFLASH_MIGRATE_CACHE/summaries`` (default ``~/.cache/dflash-migrate/summaries``): never
  inside the scanned tree unless asked; ``--no-cache`` neither reads nor writes it;
* the key: the kind of summary, the file's absolute path, its module name, the git blob id
  of the bytes read now (computed here, so an edited file that git's index does not know
  yet is a miss too; a blob id alone is not enough: every empty ``__init__.py`` shares one)
  and the options that shape an analysis; entries live in a folder named after the tool's
  fingerprint (its version and the name, size and modification time of each file of its
  code, the catalog included), so they are never trusted across tool versions or catalogs;
* one file per entry, written to a temporary file and renamed over (``os.replace``):
  concurrent runs each see a whole entry or none;
* bounded (:meth:`SummaryCache.tidy`, after a run that wrote entries): the folders of other
  fingerprints not used for ``STALE_SECONDS`` are removed (renamed aside first, so two runs
  never remove one folder at once; a run of that other version meanwhile only misses), and
  past ``MAX_ENTRIES`` entries in this fingerprint's folder the oldest written go first;
  an entry removed while another run reads it is a miss for that run;
* an entry is JSON (never pickle: a hostile cache must not run code), and it repeats its
  key: a file that cannot be read, parsed or checked, or holds another key, is a miss. A
  corrupt or hostile entry costs time, never a finding.
"""

from __future__ import annotations

import json
import os
import time
from functools import lru_cache
from pathlib import Path

from migrator import __version__
from migrator.base.fileio import SourceError, create_or_replace, remove_folder_aside
from migrator.base.options import Options
from migrator.base.user_cache import cache_dir
from migrator.python.forkindex import ModuleSummary

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

try:  # CPython's own SHA-1: importing hashlib starts OpenSSL, 20-40 ms on 2 cores (BENCHMARKS.md)
    from _sha1 import sha1
except ImportError:  # pragma: no cover - another Python
    from hashlib import sha1

FORMAT = 1
#: Another fingerprint's folder unused this long (its modification time, set by each run that
#: uses it) is removed: a tool upgraded, or an edited checkout, leaves one behind per version.
STALE_SECONDS = 24 * 3600
#: Entries kept per fingerprint (each a few kB; sglang's tree needs ~120 with its map): past
#: it, the oldest written are removed down to three quarters of it.
MAX_ENTRIES = 20_000
#: What an entry says when the file has no summary (no module, no V1 word, unreadable).
NO_SUMMARY = None


def blob_id(data: bytes) -> str:
    """git's object id of a blob holding ``data`` (``git hash-object``)."""
    return sha1(b"blob %d\0" % len(data) + data).hexdigest()


@lru_cache(maxsize=1)
def tool_fingerprint() -> str:
    """The tool's version and the name, size and modification time of each file of its code
    (the catalog is code): a changed rule, catalog entry or summary format gives another
    fingerprint, so no entry carries over. Stat, not read: ~1 ms, against ~35 ms to hash
    the package's bytes on every run (BENCHMARKS.md, issue 49)."""
    signature = [f"{FORMAT} {__version__}"]
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    folders = [package]
    while folders:
        folder = folders.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError:
            signature.append(f"{folder}: unreadable")
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False) and entry.name != "__pycache__":
                folders.append(entry.path)
            elif entry.name.endswith((".py", ".toml", ".json")):
                stat = entry.stat()
                signature.append(f"{os.path.relpath(entry.path, package)} {stat.st_size} {stat.st_mtime_ns}")
    return sha1("\n".join(signature).encode("utf-8", "surrogateescape")).hexdigest()


def default_folder() -> Path:
    return cache_dir() / "summaries"


def _options_key(options: Options) -> str:
    """The options an analysis depends on (the paths it reports and the run's own state aside)."""
    return repr((options.mode, options.target_version, options.target_releases, options.parse_all,
                 sorted(options.select) if options.select is not None else None, sorted(options.ignore),
                 options.per_file_ignores, options.unsafe_fixes))


def _blob(data: bytes | None, blob: str | None) -> str:
    if blob is not None:
        return blob
    if data is None:
        raise ValueError("an entry's key needs the file's bytes or its blob id")
    return blob_id(data)


class SummaryCache:
    """The cache of one run (see the module docstring); ``hits`` and ``misses`` for ``-v``."""

    def __init__(self, options: Options) -> None:
        folder = getattr(options, "cache_dir", None)
        self.folder = (Path(folder).expanduser() if folder else default_folder()) / tool_fingerprint()
        self.options_key = _options_key(options)
        self.hits = 0
        self.misses = 0
        self.written = 0

    def _key(self, kind: str, path: str, module: str | None, blob: str) -> list[str | None]:
        return [kind, os.path.abspath(path), module, blob, self.options_key]

    def close(self) -> None:
        """At the end of a run: mark the folder used (another version's :func:`tidy` keeps it)
        and, where this run wrote entries, :func:`tidy` the cache."""
        if self.written:
            tidy(self.folder)
            return
        try:
            os.utime(self.folder)
        except OSError:
            pass

    def entry_file(self, key: list) -> Path:
        """Where the entry of ``key`` (JSON values) is kept."""
        name = sha1(json.dumps(key).encode()).hexdigest()  # the entry repeats its key: a collision is a miss
        return self.folder / name[:2] / name[2:]

    def get(self, kind: str, path: str, module: str | None, data: bytes | None,
            blob: str | None = None) -> tuple[bool, ModuleSummary | None]:
        """(found, summary): ``found`` False is a miss (any read error or mismatch is one).
        ``blob``: the blob id of the file's bytes where git's index says it (then ``data``
        need not be read); else computed from ``data``."""
        key = self._key(kind, path, module, _blob(data, blob))
        try:
            entry = json.loads(self.entry_file(key).read_bytes())
            if not isinstance(entry, dict) or entry.get("format") != FORMAT or entry.get("key") != key:
                self.misses += 1
                return False, None
            stored = entry["summary"]
            summary = NO_SUMMARY if stored is None else decode(stored, path)
        except Exception:  # noqa: BLE001 - whatever a damaged or hostile entry raises: a miss
            self.misses += 1
            return False, None
        self.hits += 1
        return True, summary

    def put(self, kind: str, path: str, module: str | None, data: bytes | None, summary: ModuleSummary | None,
            blob: str | None = None) -> None:
        """Store an entry (``blob`` as in :meth:`get`)."""
        key = self._key(kind, path, module, _blob(data, blob))
        self.write_entry(key, {"format": FORMAT, "key": key, "summary": None if summary is None else encode(summary)})

    def write_entry(self, key: list, entry: dict) -> None:
        """Store ``entry`` under ``key`` through the one write path
        (``base.fileio.create_or_replace``: a temporary file renamed over the entry, so
        concurrent runs read a whole entry or none); a cache that cannot be written is no
        error (the run goes on)."""
        target = self.entry_file(key)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            create_or_replace(target, json.dumps(entry).encode("utf-8"))
        except (OSError, SourceError):
            return
        self.written += 1


def encode(summary: ModuleSummary) -> dict:
    """A summary as JSON values (its path is the entry's key)."""
    return {
        "root": summary.root, "module": summary.module,
        "binds": {name: list(bound) for name, bound in summary.binds.items()},
        "classes": {name: [list(bases), line] for name, (bases, line) in summary.classes.items()},
        "attributes": {name: {attribute: sorted(types) for attribute, types in by_name.items()}
                       for name, by_name in summary.attributes.items()},
        "star_imports": list(summary.star_imports),
        "all_names": None if summary.all_names is None else list(summary.all_names),
        "fallbacks": summary.fallbacks,
        "imported": [list(pair) for pair in summary.imported],
        "returns": {name: sorted(types) for name, types in summary.returns.items()},
        "wanted": list(summary.wanted),
        "complete": summary.complete,
        "own_members": [list(triple) for triple in summary.own_members],
        "member_uses": list(summary.member_uses),
    }


def decode(stored: dict, path: str) -> ModuleSummary:
    """The summary :func:`encode` stored; raises on anything else."""
    def text(value: object) -> str:
        if not isinstance(value, str):
            raise ValueError("not a string")
        return value

    def number(value: object) -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise ValueError("not a number")
        return value

    def texts(value: object) -> tuple[str, ...]:
        if not isinstance(value, list):
            raise ValueError("not a list")
        return tuple(text(item) for item in value)

    def pair(value: object) -> list:
        if not isinstance(value, list) or len(value) != 2:
            raise ValueError("not a pair")
        return value

    all_names = stored["all_names"]
    complete = stored["complete"]
    if not isinstance(complete, bool):
        raise ValueError("not a flag")
    return ModuleSummary(
        path=path, root=text(stored["root"]), module=text(stored["module"]),
        binds={text(name): (text(pair(bound)[0]), number(bound[1])) for name, bound in stored["binds"].items()},
        classes={text(name): (texts(pair(value)[0]), number(value[1])) for name, value in stored["classes"].items()},
        attributes={text(name): {text(attribute): frozenset(texts(types)) for attribute, types in by_name.items()}
                    for name, by_name in stored["attributes"].items()},
        star_imports=texts(stored["star_imports"]),
        all_names=None if all_names is None else texts(all_names),
        fallbacks={text(name): number(line) for name, line in stored["fallbacks"].items()},
        imported=tuple((text(pair(item)[0]), text(item[1])) for item in stored["imported"]),
        returns={text(name): frozenset(texts(types)) for name, types in stored["returns"].items()},
        wanted=texts(stored["wanted"]),
        complete=complete,
        own_members=tuple(_triple(item, text, number) for item in stored["own_members"]),
        member_uses=texts(stored["member_uses"]),
    )


def _triple(value: object, text: Callable[[object], str], number: Callable[[object], int]) -> tuple[str, str, int]:
    """(text, text, number) from a stored list of three (``decode``'s checks for each)."""
    if not isinstance(value, list) or len(value) != 3:
        raise ValueError("not a triple")
    return text(value[0]), text(value[1]), number(value[2])


def _is_fingerprint(name: str) -> bool:
    return len(name) == 40 and all(char in "0123456789abcdef" for char in name)


def tidy(folder: Path, now: float | None = None) -> int:
    """Bound the cache whose fingerprint folder is ``folder`` (see the module docstring);
    returns the number of entries and folders removed. Never raises: a cache that cannot
    be tidied is no error."""
    now = time.time() if now is None else now
    removed = 0
    try:
        os.utime(folder)  # in use: another version's run must not take it for stale
        siblings = list(os.scandir(folder.parent))
    except OSError:
        return 0
    for sibling in siblings:
        try:
            stale = now - sibling.stat(follow_symlinks=False).st_mtime > STALE_SECONDS
        except OSError:
            continue
        if sibling.name != folder.name and _is_fingerprint(sibling.name) and sibling.is_dir(follow_symlinks=False) and stale:
            removed += remove_folder_aside(sibling.path, str(folder.parent / f".removing-{os.getpid()}-{sibling.name}"))
    return removed + _bound_entries(folder)


def _bound_entries(folder: Path) -> int:
    """Past ``MAX_ENTRIES`` entries under ``folder``, remove the oldest written."""
    entries: list[tuple[float, str]] = []
    try:
        for bucket in os.scandir(folder):
            if bucket.is_dir(follow_symlinks=False):
                entries.extend((entry.stat(follow_symlinks=False).st_mtime, entry.path) for entry in os.scandir(bucket.path))
    except OSError:
        return 0
    if len(entries) <= MAX_ENTRIES:
        return 0
    entries.sort()
    removed = 0
    for _, path in entries[:len(entries) - MAX_ENTRIES * 3 // 4]:
        try:
            os.remove(path)
            removed += 1
        except OSError:
            pass  # gone already (another run tidied it)
    return removed
