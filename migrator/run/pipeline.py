"""One file down the pipeline, bytes in and bytes out: read once, the byte prefilter, then
(:func:`process_bytes`, which never raises) its rules through ``migrator.run.dispatch``: the
release it is for, a Python file through ``migrator.run.python_file`` and any other through
its text rule's handler. Runs in the workers (``migrator.run.pool``); never touches the disk
but to read the file it is given."""

from __future__ import annotations

from pathlib import Path

from migrator.base.compat import text_pattern
from migrator.base.fileio import SourceError, read_bytes
from migrator.base.model import FileError, FileResult
from migrator.base.options import Options
from migrator.catalog import guide
from migrator.python.analysis import module_name_for
from migrator.python.fallbacks import known_names
from migrator.relevance.prefilter import _groups, might_match, might_match_python
from migrator.run.files import is_python
from migrator.run.passes import FIRST_PASS, Pass
from migrator.run.target import with_target


def process_bytes(path: str, data: bytes, options: Options, module_name: str | None = None,
                  this_pass: Pass = FIRST_PASS) -> FileResult:
    """Findings (and, unless linting, the fixed bytes) for one file's content.

    Never raises for bad input: whatever goes wrong becomes the result's ``error`` and the
    caller moves on to the next file.
    """
    from migrator.run.dispatch import process  # seam: own releases, the analysis and the rules

    options = with_target(options)
    guide.use(options.guide)  # one address a run, in every worker
    try:
        return process(path, data, options, module_name, this_pass)
    except Exception as error:  # noqa: BLE001 - one file's failure must not stop the run
        return FileResult(path, error=FileError(path, f"internal error ({type(error).__name__}: {error}); file left unchanged"))


def module_name_of(path: Path) -> str | None:
    return module_name_for(path)


def analyze_path(path: Path | str, options: Options, this_pass: Pass = FIRST_PASS) -> FileResult:
    """Read and process one file; nothing is written (``write_result`` does that)."""
    shown = str(path)
    try:
        data = read_bytes(shown)
    except SourceError as error:
        return FileResult(shown, error=FileError(shown, error.message))
    python = is_python(shown)
    fork = this_pass.fork
    if not (might_match_python(data) if python else might_match(data)) and not (options.parse_all and python) and not (
            fork is not None and python and fork.mentions(data)):
        return FileResult(shown)
    path = Path(path)
    result = process_bytes(shown, data, options, module_name_of(path) if python else None, this_pass)
    if options.mode in ("fix", "diff") and result.new_bytes is not None:
        result.original = data  # the write refuses a file that changed since; a diff starts from it
    return result


def warm_up() -> None:
    """The imports and tables every candidate needs: run once before the workers fork (they
    inherit it), or in each worker where they are not forked (``migrator.run.pool``). Among them
    ``tokenize`` (the coding cookie of every Python file the byte prefilter rejects): imported
    in each worker, it costs twice."""
    import tokenize  # noqa: F401

    from migrator.run import dispatch, python_file  # noqa: F401  (seam: own releases, the analysis and the rules)

    python_file.build_tables()
    _groups()
    known_names()
    text_pattern()


def process_chunk(task: tuple[list[str], Options, Pass]) -> list[FileResult]:
    paths, options, this_pass = task
    return [analyze_path(path, options, this_pass) for path in paths]
