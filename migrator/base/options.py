"""What a run does (:class:`Options`) and the one matcher that decides, per file, whether it
is excluded and which rule codes are on (:class:`Selection`).

A leaf module: it imports nothing of the project but the record decorator and, where a
glob is compiled, :mod:`migrator.base.ignore`, so the engine, the text rules, the
configuration and the commands all share it without import cycles. ``Options`` are built
for every command by :func:`migrator.cli.runs.options.build_options` (command line over
``[tool.dflash-migrate]``); code that drives the engine directly builds them by hand.

Patterns are gitignore-style (pathspec's git semantics), and each carries the folder it
is relative to: ``exclude`` and ``per-file-ignores`` from ``pyproject.toml`` are relative to
that file's folder, ``--exclude`` on the command line to the current folder (as in ruff).
A pattern without a slash (``vendor/``, ``*.gen.py``) matches at any depth. Every glob
(these and ``.gitignore`` files, which discovery reads) is compiled by :func:`compile_ignore`
(:mod:`migrator.base.ignore`), whose matching takes linear time whatever a hostile tree writes.
"""

from __future__ import annotations

import os
from functools import lru_cache

from migrator.base.records import NamedTuple, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Iterable, Literal, Sequence

    Mode = Literal["fix", "check", "diff", "lint"]


def parse_codes(values: Iterable[str] | None) -> frozenset[str] | None:
    """``--select DFM1,DFM201 --select dfm3`` -> {"DFM1", "DFM201", "DFM3"}; None when empty."""
    if not values:
        return None
    codes = frozenset(code.strip().upper() for value in values for code in value.split(",") if code.strip())
    return codes or None


@record
class Options(NamedTuple):
    """What the user asked a run to do; ``options._replace(field=value)`` for a changed copy.
    What the run learns as it goes (the files holding uncommitted work, the fork index) is
    passed beside it (``migrator.run.passes.Pass``, ``write_result``'s ``dirty``), never inside.

    * ``mode``: "fix", "check", "diff" or "lint"; ``target_version``: the newest sglang
      release migrated to (None: the newest release the catalog knows); ``target_releases``:
      every release migrated to, oldest first (empty: ``target_version`` alone; a fix is
      kept only where its result serves each of them, ``migrator.catalog.target``);
      ``target_source``: where they came from, for the summary and reports;
    * ``select`` (code prefixes, None: all) and ``ignore``;
    * ``exclude``: (folder, pattern) pairs; ``per_file_ignores``: (folder, pattern, codes);
      ``force_exclude``: excludes also apply to paths named on the command line;
    * ``unsafe_fixes``, ``jobs`` (None: CPU count), ``allow_dirty``, ``respect_gitignore``;
    * ``parse_all``: every shortcut off: parse every Python file, also those the byte
      prefilter proves cannot match (syntax errors anywhere are reported), whole (no
      partial parsing), and analyse every statement, cold ones included; the findings are
      those of a run with the shortcuts (``tests/test_shortcuts.py``), slower (BENCHMARKS.md);
    * ``config``: the ``pyproject.toml`` the settings came from (None: none), for reports;
    * ``write_read_only``: also rewrite files without write permission bits;
    * ``own_outputs``: absolute paths of the files this run writes or keeps its state in
      (``--output``, baselines): never scanned (``migrator.run.files.OWN_OUTPUT``);
    * ``cache_dir``: where the fork index's summaries are kept between runs (None: the user's
      cache folder), ``no_cache``: neither read nor written (``migrator.run.summary_cache``).
    * ``line_length``: the scanned project's line length (ruff's ``line-length``, else 88),
      which the TODO comments a fix writes are wrapped to (``migrator.edit.comments``).
    * ``target_from_flag``: the target came from ``--target-version`` (it wins over a file's own
      V2 release, never over a V1-era one); ``pin_folder``: where the run's own sglang pin is read
      from; ``release_scopes``: the parts of the tree the repository pins a release for, set by
      the engine after discovery (``migrator.run.own_release``).
    * ``guide``: the migration guide's address the TODOs point at ("": the relative
      ``MIGRATION.md``; ``"package metadata"``: the installed package's, if it has one;
      ``migrator.catalog.guide``).

    A ``@record`` named tuple (``migrator.base.records``, the one module of the project this one
    imports): equal only to options.
    """

    mode: Mode = "fix"
    target_version: str | None = None
    target_releases: tuple[str, ...] = ()
    target_source: str = ""
    select: frozenset[str] | None = None
    ignore: frozenset[str] = frozenset()
    unsafe_fixes: bool = False
    jobs: int | None = None
    exclude: tuple[tuple[str, str], ...] = ()
    allow_dirty: bool = False
    respect_gitignore: bool = True
    per_file_ignores: tuple[tuple[str, str, frozenset[str]], ...] = ()
    parse_all: bool = False
    force_exclude: bool = False
    config: str | None = None
    write_read_only: bool = False
    own_outputs: frozenset[str] = frozenset()
    cache_dir: str | None = None
    no_cache: bool = False
    line_length: int = 88
    target_from_flag: bool = False
    pin_folder: str = ""
    release_scopes: tuple = ()  # tuple[migrator.run.own_release.ReleaseScope, ...]
    guide: str = ""

    @property
    def writes(self) -> bool:
        return self.mode == "fix"

    @property
    def fixes(self) -> bool:
        return self.mode != "lint"

    def enabled(self, code: str) -> bool:
        """Whether ``code`` is on by --select/--ignore (per-file-ignores aside: :func:`selection`)."""
        code = code.upper()
        if self.select is not None and not any(code.startswith(s) for s in self.select):
            return False
        return not any(code.startswith(i) for i in self.ignore)


class Selection:
    """The one matcher: is a path excluded, which codes are on for a file. Built once per
    process for a set of options (:func:`selection`); paths are matched relative to the
    folder each pattern belongs to."""

    __slots__ = ("options", "exclude", "per_file", "cwd")

    def __init__(self, options: Options) -> None:
        self.options = options
        self.cwd = os.getcwd()
        self.exclude = [(folder, compile_ignore(patterns)) for folder, patterns in _by_folder(options.exclude, self.cwd)]
        self.per_file = [(folder, compile_ignore((pattern,)), frozenset(codes))
                         for folder, pattern, codes in _absolute(options.per_file_ignores, self.cwd)]

    def absolute(self, path: str) -> str:
        return path if os.path.isabs(path) else os.path.normpath(os.path.join(self.cwd, path))

    def excluded(self, path: str, is_dir: bool = False, root: str | None = None) -> bool:
        """Whether an exclude pattern matches ``path`` (absolute or relative to the current
        folder). Outside a pattern's folder it is matched relative to ``root`` (the folder
        being walked), so ``vendor/`` still drops ``vendor`` folders of any scanned tree."""
        if not self.exclude:
            return False
        absolute = self.absolute(path)
        suffix = "/" if is_dir else ""
        for folder, spec in self.exclude:
            relative = relative_below(absolute, folder)
            if relative is None and root is not None:
                relative = relative_below(absolute, self.absolute(root))
            if relative and spec.match_file(relative + suffix):
                return True
        return False

    def enabled_for(self, path: str) -> Callable[[str], bool]:
        """Is a rule code on for ``path``: --select/--ignore and per-file-ignores."""
        ignored: set[str] = set()
        if self.per_file:
            absolute = self.absolute(path)
            for folder, spec, codes in self.per_file:
                relative = relative_below(absolute, folder)
                if relative and spec.match_file(relative):
                    ignored |= codes
        enabled = self.options.enabled
        if not ignored:
            return enabled
        return lambda code: enabled(code) and not any(code.upper().startswith(i) for i in ignored)


def selection(options: Options) -> Selection:
    """The matcher for ``options`` (compiled once per process and set of selection fields)."""
    return _selection(Options(select=options.select, ignore=options.ignore, exclude=options.exclude,
                              per_file_ignores=options.per_file_ignores))


@lru_cache(maxsize=8)
def _selection(fields: Options) -> Selection:
    return Selection(fields)


def enabled_for(path: str, options: Options) -> Callable[[str], bool]:
    """Which rule codes are on for ``path`` under ``options``."""
    if not options.per_file_ignores:
        return options.enabled
    return selection(options).enabled_for(path)


def _absolute(rows: Iterable[tuple], cwd: str) -> list[tuple]:
    return [(os.path.normpath(os.path.join(cwd, row[0] or ".")), *row[1:]) for row in rows]


def _by_folder(pairs: Iterable[tuple[str, str]], cwd: str) -> list[tuple[str, tuple[str, ...]]]:
    grouped: dict[str, list[str]] = {}
    for folder, pattern in _absolute(pairs, cwd):
        grouped.setdefault(folder, []).append(pattern)
    return [(folder, tuple(patterns)) for folder, patterns in grouped.items()]


def relative_below(path: str, folder: str) -> str | None:
    """``path`` below ``folder`` with forward slashes ("" for the folder itself), else None."""
    if path == folder:
        return ""
    prefix = folder if folder.endswith(os.sep) else folder + os.sep
    if not path.startswith(prefix):
        return None
    relative = path[len(prefix):]
    return relative if os.sep == "/" else relative.replace(os.sep, "/")


def compile_ignore(lines: Sequence[str]) -> object:
    """A ``pathspec.GitIgnoreSpec`` of ``lines`` whose matching takes linear time
    (:mod:`migrator.base.ignore`: pathspec, imported where a glob is compiled)."""
    from migrator.base.ignore import linear_spec

    return linear_spec(lines)
