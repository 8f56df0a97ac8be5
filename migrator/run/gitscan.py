"""The byte prefilter, done by ``git grep`` where a folder is a git work tree.

The Python prefilter reads every byte of every file (33 MB for sglang 0.5.13's tree:
~0.17 s of CPU on this project's 2-core machines); ``git grep`` does the same scan
on all cores in ~0.04 s while Python discovers the files. It only narrows the set of
files the Python prefilter then looks at, so it never decides a result on its own:

* markers: every trigger token contains one of ``GREP_MARKERS`` in some case, or every cue
  it needs does (``prefilter.markers_of``, checked by a test), so a file without any marker,
  searched case-insensitively, cannot match; files with one go through the exact Python
  prefilter and the analysis as before;
* coverage: ``git ls-files --cached`` (the index only: no walk of the folder) says which
  files ``git grep`` searched (tracked ones). Files it did not search (untracked, inside a
  submodule, marked assume-unchanged or skip-worktree, whose search might read the index
  instead of the file) are not listed as searched and are prefiltered in Python;
* anything unusual (no git, not a work tree, ``GIT_DIR`` and friends set by a hook, git
  failing) turns it off: ``finish`` returns None and every file is prefiltered in Python.

The scanned files are read by git, never executed. The scanned repository's own
``.git/config`` is hostile input too (an archive may carry one): ``core.fsmonitor = <cmd>``
would run a command, ``grep.fullName = true`` would print paths this module does not
expect. So every git command here runs through ``git_command``: no system or user config
(``GIT_CONFIG_NOSYSTEM``, ``GIT_CONFIG_GLOBAL=/dev/null``, ``HOME`` pointing nowhere) and,
on the command line (which beats the repository's config), every setting that runs a
program or changes what the commands used here print. The output is still checked
(``finish`` rejects a listing or match that is not a relative path) and anything odd
falls back to the Python prefilter.

No git command here may fetch. A repository that declares a partial clone
(``extensions.partialClone``, a ``remote.<name>.promisor``) makes git fetch an object it
lacks (an assume-unchanged entry's blob for ``git grep``, HEAD's tree for ``diff-index``)
by starting the repository's own transport: ``remote.<name>.uploadpack``,
``core.sshCommand``, an ``ext::`` URL run commands. Two defences: every command runs with
``protocol.allow=never`` and ``GIT_ALLOW_PROTOCOL`` set to nothing usable (the variable
overrides every ``protocol.<name>.allow`` a repository sets, and reaches the ``git fetch``
git starts for a lazy fetch), and such a repository is not handed to git at all
(:func:`is_partial_clone`): the prefilter reads its files in Python, the dirty check
refuses its files.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Collection, Sequence
from pathlib import Path

from migrator.base.compat import grep_pattern, grep_patterns
from migrator.base.fileio import SourceError, read_bytes
from migrator.base.repository import top_of
from migrator.relevance.prefilter import COARSE_MARKERS, COOKIE_GREP, COOKIE_PCRE
from migrator.text.filetypes import BINARY_SUFFIXES, GENERATED_SUFFIXES

#: Substrings one of which every trigger token (and the TODO marker), or each of its cues,
#: holds in some case: the Python prefilter's coarse markers. ``git grep -i`` scans for each literal pattern in one
#: pass over the bytes, so four of them cost ~10 ms of CPU less than the seven exact-case
#: spellings on sglang 0.5.13's tree.
GREP_MARKERS = tuple(marker.decode() for marker in COARSE_MARKERS)
_GIT_ENV = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR")
#: ``ls-files -t -v`` tag of the files ``git grep`` reads from the work tree: tracked,
#: neither assume-unchanged nor skip-worktree. Untracked files are not listed (that would
#: make git walk the folder, ~10 ms, for the few a checkout has): the Python prefilter
#: reads them.
_SEARCHED_TAGS = ("H ",)
#: Index modes (``ls-files -s``) of the entries ``git grep`` reads as files: regular files.
#: A symbolic link (120000) or gitlink (160000) entry is searched as its link text or not
#: at all, whatever the work tree holds under that name now.
_SEARCHED_MODES = ("100644", "100755")


#: Settings pinned on git's command line. Runs a program: ``core.fsmonitor`` (any command
#: that reads the index), ``diff.external``, ``core.pager``/``pager.*`` (not started with
#: ``--no-pager`` and a pipe, pinned anyway), ``core.hooksPath``; a transport (a lazy
#: fetch: ``protocol.allow``, with ``GIT_ALLOW_PROTOCOL`` in :func:`git_env`, which also
#: beats ``protocol.<name>.allow``), credential helpers and ``core.askPass`` (asked by a
#: transport only, emptied anyway), automatic gc after a fetch. Changes output:
#: ``grep.*``, ``color.*``, ``core.quotePath`` (``-z`` output is never quoted, pinned
#: anyway). ``core.untrackedCache`` would write the index. Text conversion and filters are
#: off by the commands' own flags (``--no-textconv``; ``grep``/``ls-files`` never filter).
#: Changes which files ``ls-files --modified`` calls modified (``migrator.run.repo_map`` trusts its
#: answer): ``core.checkStat=minimal`` and ``core.trustctime=false`` would compare less of
#: each file's stat data, pinned to git's defaults.
_PINNED = (
    "core.fsmonitor=false", "core.untrackedCache=false", "core.quotePath=false", "core.pager=cat",
    "core.checkStat=default", "core.trustctime=true",
    "core.hooksPath=/dev/null", "diff.external=", "color.ui=never", "color.grep=never",
    "grep.fullName=false", "grep.patternType=extended", "grep.extendedRegexp=false",
    "grep.lineNumber=false", "grep.column=false", "grep.fallbackToNoIndex=false", "grep.threads=0",
    "protocol.allow=never", "credential.helper=", "core.askPass=", "gc.auto=0", "maintenance.auto=false",
)
#: Environment variables of git's that change which repository or config is used.
_GIT_CONFIG_ENV = ("GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_EXEC_PATH", "GIT_EXTERNAL_DIFF",
                   "GIT_PAGER", "GIT_ASKPASS", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_TRACE", "GIT_ATTR_SOURCE",
                   "SSH_ASKPASS", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_REPLACE_REF_BASE", "GIT_NAMESPACE")
#: No transport at all: an allow-list naming no protocol (git 2.39 reads an empty value as
#: the one protocol ""), so a lazy fetch fails before it starts anything;
#: ``GIT_NO_LAZY_FETCH`` (git 2.45 and later) stops it earlier where git knows it.
_NO_TRANSPORT = {"GIT_ALLOW_PROTOCOL": "", "GIT_PROTOCOL_FROM_USER": "0", "GIT_NO_LAZY_FETCH": "1",
                 "GIT_NO_REPLACE_OBJECTS": "1"}


def git_env() -> dict[str, str]:
    """The fixed environment every git command of this tool runs in."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("GIT_CONFIG_") and k not in _GIT_CONFIG_ENV and k not in _GIT_ENV}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, HOME=os.devnull, XDG_CONFIG_HOME=os.devnull,
               GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0", LC_ALL="C", **_NO_TRANSPORT)
    return env


def git_command(args: Sequence[str]) -> list[str]:
    """``git <args>`` with every setting of ``_PINNED`` given on the command line."""
    pinned = [arg for setting in _PINNED for arg in ("-c", setting)]
    return ["git", "--no-pager", *pinned, *args]


def run_git(args: Sequence[str], cwd: str, timeout: int) -> subprocess.CompletedProcess[bytes]:
    """``git <args>`` (:func:`git_command`) run to its end in ``cwd`` and :func:`git_env`, its
    output captured, no input; raises OSError (no git) and ``subprocess.TimeoutExpired``."""
    return subprocess.run(git_command(args), cwd=cwd, env=git_env(), capture_output=True, stdin=subprocess.DEVNULL,
                          timeout=timeout, check=False)


#: The settings that make git fetch missing objects from a promisor remote (lower case, as
#: ``git config --get-regexp`` prints names).
_PARTIAL_CLONE_KEYS = r"^(extensions\.partialclone|remote\..*\.promisor)$"
_FALSE = ("false", "no", "off", "0")


def is_partial_clone(folder: str, git_dir: Sequence[str] = ()) -> bool:
    """Does the repository at ``folder`` declare a partial clone (``extensions.partialClone``
    or a ``remote.<name>.promisor`` that is true)? git would fetch any object it lacks from
    that remote, running the repository's transport; such a repository is not handed to
    git. ``git_dir``: ``--git-dir``/``--work-tree`` arguments. True where git cannot tell
    (the safe side); False where git cannot run."""
    if not _config_may_declare_promisor(folder):
        return False
    try:
        answer = run_git([*git_dir, "config", "-z", "--get-regexp", _PARTIAL_CLONE_KEYS], folder, 60)
    except OSError:
        return False  # no git: nothing to fetch with
    except subprocess.TimeoutExpired:
        return True
    if answer.returncode == 1:  # no such setting
        return False
    if answer.returncode != 0:
        # not a repository (lint: the scan falls back anyway; fix: ``ls-files`` says why)
        return False
    for entry in os.fsdecode(answer.stdout).split("\0"):
        key, _, value = entry.partition("\n")
        if key.startswith("extensions.") or (key and value.strip().lower() not in _FALSE):
            return True
    return False


def _config_may_declare_promisor(folder: str) -> bool:
    """False only where the repository's config surely declares no promisor: it spells
    neither name (a key is spelled literally, in any case) and includes no other file.
    Asking git costs a process (~3 ms, 1-2 % of a lint) that a plain repository skips."""
    top = top_of(os.path.abspath(folder))
    if top is None:
        return False  # no repository: git has nothing to fetch into
    try:
        git_dir = os.path.join(top, ".git")
        if not os.path.isdir(git_dir):  # a worktree's or submodule's ``gitdir: <path>`` file
            pointer = read_bytes(git_dir, 1 << 16).decode("utf-8", "surrogateescape").strip()
            if not pointer.startswith("gitdir: "):
                return True
            git_dir = os.path.join(top, pointer.removeprefix("gitdir: "))
            common = os.path.join(git_dir, "commondir")
            if os.path.lexists(common):
                git_dir = os.path.join(git_dir, read_bytes(common, 1 << 16).decode("utf-8", "surrogateescape").strip())
        text = read_bytes(os.path.join(git_dir, "config"), 1 << 20).lower()
    except (SourceError, OSError):  # unreadable, odd: ask git
        return True
    return any(word in text for word in (b"promisor", b"partialclone", b"include", b"worktreeconfig"))


class GitScan:
    """The two git commands running on one root folder (as given), and the grep (git's
    arguments) to run instead where git has no Perl-compatible regular expressions."""

    __slots__ = ("root", "grep", "listing", "listed", "fallback", "answer")

    def __init__(self, root: str, grep: subprocess.Popen, listing: subprocess.Popen,
                 fallback: list[str] | None = None) -> None:
        self.root = root
        self.grep = grep
        self.listing = listing
        self.listed: list[list[str]] | None = None
        self.fallback = fallback
        #: :func:`finish`'s answer once given (a run's first step and its fork pass share one scan)
        self.answer: tuple[set[str], set[str]] | None | bool = False

    def grepped(self) -> bytes | None:
        """``git grep``'s output: the files holding a marker; None if it failed."""
        try:
            output, _ = self.grep.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            self.grep.kill()
            return None
        if self.grep.returncode in (0, 1):
            return output
        if self.fallback is None or self.records() is None:  # not a work tree: no second try
            return None
        try:
            again = run_git(self.fallback, self.root, 300)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return again.stdout if again.returncode in (0, 1) else None

    def records(self) -> list[list[str]] | None:
        """``ls-files``' records, ``[head, path]`` (read once); None if it failed."""
        if self.listed is None:
            try:
                output, _ = self.listing.communicate(timeout=120)
            except subprocess.TimeoutExpired:
                self.listing.kill()
                return None
            if self.listing.returncode != 0:
                return None
            # "<tag> <mode> <object> <stage>\t<path>": the path follows the first tab;
            # the output decoded once, not path by path (3,000 paths: ~2 ms less)
            self.listed = [record.split("\t", 1) for record in os.fsdecode(output).split("\0") if record]
        return self.listed

    def compute_answer(self) -> tuple[set[str], set[str]] | None:
        """:func:`finish`'s answer, computed once."""
        return _answer(self)

    def tracked(self) -> frozenset[str] | None:
        """Every path the index lists under the root (relative, with ``/``)."""
        records = self.records()
        if records is None or any(len(record) != 2 or record[1].startswith(("/", "../")) for record in records):
            return None
        return frozenset(path for _, path in records)


def start(root: Path) -> GitScan | None:
    """Launch ``git grep`` and ``git ls-files`` on folder ``root`` (they run while the
    caller walks the folder); None where git cannot be used."""
    if any(os.environ.get(name) for name in _GIT_ENV):
        return None
    folder = str(root)
    if is_partial_clone(folder):
        return None  # the Python prefilter reads every file; the listing comes from ``tracked_files``

    # The markers are plain lower-case words, so also regular expressions; the cookie
    # pattern finds files whose coding cookie may name an encoding other than UTF-8 (the
    # Python prefilter reads them decoded); the last patterns find files holding a
    # character NFKC turns into ASCII (``ＤFlashWorker``), which the Python prefilter then
    # reads in NFKC form (``migrator.base.compat``). Bytes, not characters: ``LC_ALL=C``.
    markers = [arg for marker in GREP_MARKERS for arg in ("-e", marker)]
    perl = ["-P", *markers, "-e", COOKIE_PCRE, *(arg for nfkc in grep_patterns() for arg in ("-e", os.fsdecode(nfkc)))]
    extended = ["-E", *markers, *(arg for cookie in COOKIE_GREP for arg in ("-e", cookie)),
                "-e", os.fsdecode(grep_pattern())]
    where = pathspec()  # both commands leave out the files no rule reads
    common = {"cwd": folder, "env": git_env(), "stdout": subprocess.PIPE, "stderr": subprocess.DEVNULL,
              "stdin": subprocess.DEVNULL}
    grep_command = ["grep", "--no-textconv", "--no-color", "--no-recurse-submodules", "-l", "-z", "-i", "-a"]
    try:
        grep = subprocess.Popen(git_command([*grep_command, *perl, *where]), **common)
        listing = subprocess.Popen(git_command(["ls-files", "-z", "-s", "-t", "-v", "--cached", *where]), **common)
    except OSError:  # no git on PATH
        return None
    return GitScan(folder, grep, listing, [*grep_command, *extended, *where])


def pathspec() -> list[str]:
    """The files both commands look at: every file under the root but those no rule reads
    (binary formats, minified text: ``text.filetypes``); sglang's tree holds a 7.5 MB
    ``.so``, a sixth of its bytes."""
    return ["--", ".", *(f":(exclude,icase)*{suffix}" for suffix in (*sorted(BINARY_SUFFIXES), *GENERATED_SUFFIXES))]


def finish(scan: GitScan) -> tuple[set[str], set[str]] | None:
    """(files git searched, files holding a marker), as paths relative to the root with
    ``os.sep`` separators; None if either command failed. Asked again, the same answer."""
    if scan.answer is False:
        scan.answer = scan.compute_answer()
    return scan.answer  # type: ignore[return-value]


def _answer(scan: GitScan) -> tuple[set[str], set[str]] | None:
    records = scan.records()
    grepped = scan.grepped()
    if records is None or grepped is None or any(len(record) != 2 for record in records):
        return None
    listed_paths = {path for _, path in records}
    hits = {record for record in os.fsdecode(grepped).split("\0") if record}
    # Both print paths relative to the root; anything else (a config this module does not
    # pin, a git that prints differently) means the answer cannot be trusted.
    if not hits <= listed_paths or any(p.startswith(("/", "../")) for p in listed_paths):
        return None
    searched = {path for head, path in records if head[:2] in _SEARCHED_TAGS and head[2:8] in _SEARCHED_MODES}
    if os.sep != "/":
        searched = {path.replace("/", os.sep) for path in searched}
        hits = {path.replace("/", os.sep) for path in hits}
    return searched, hits


def tracked_among(paths: Collection[str], cwd: str) -> set[str]:
    """Those of ``paths`` (as given, relative to ``cwd`` or absolute) that git tracks in
    ``cwd``'s repository; none where git cannot tell (no git, no work tree, a timeout)."""
    try:
        listed = run_git(["--literal-pathspecs", "ls-files", "-z", "--cached", "--", *sorted(paths)], cwd, 60)
    except (OSError, subprocess.TimeoutExpired):
        return set()
    if listed.returncode != 0:
        return set()
    tracked = {os.path.normpath(name) for name in os.fsdecode(listed.stdout).split("\0") if name}
    return {path for path in paths if os.path.normpath(path) in tracked}


def tracked_files(root: str) -> frozenset[str] | None:
    """The paths git tracks under folder ``root`` (relative, with ``/``); None where git
    cannot tell (not a work tree, no git, ``GIT_DIR`` and friends set)."""
    if any(os.environ.get(name) for name in _GIT_ENV):
        return None
    try:
        listing = run_git(["ls-files", "-z", "--cached", "--", "."], root, 120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if listing.returncode != 0:
        return None
    paths = frozenset(path for path in os.fsdecode(listing.stdout).split("\0") if path)
    return None if any(path.startswith(("/", "../")) for path in paths) else paths
