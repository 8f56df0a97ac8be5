"""One file down the pipeline, bytes in and bytes out: read once, then a Python file through
``migrator.run.python_file`` and any other through its text rule's handler
(``migrator.text``, given ``python_file``'s analyser for embedded Python). Runs in the
workers (``migrator.run.pool``); never touches the disk but to read the file it is given."""

from __future__ import annotations

from pathlib import Path

from migrator import catalog
from migrator.base.fileio import SourceError, read_bytes
from migrator.base.model import FileError, FileResult
from migrator.base.options import Options
from migrator.relevance.prefilter import _groups, might_match, might_match_python
from migrator.run.files import is_history, is_python
from migrator.run.python_file import FIRST_PASS, MAX_ANALYZE_BYTES, Pass, process_python, text_context, too_large

#: A notebook is mostly outputs (images), and its code cells go through the Python limit
#: one by one; but the whole JSON is parsed first (~15x its size in memory, ~0.3 s per MB).
MAX_NOTEBOOK_BYTES = 16 * 1024 * 1024


def process_bytes(path: str, data: bytes, options: Options, module_name: str | None = None,
                  this_pass: Pass = FIRST_PASS) -> FileResult:
    """Findings (and, unless linting, the fixed bytes) for one file's content.

    Never raises for bad input: whatever goes wrong becomes the result's ``error`` and the
    caller moves on to the next file.
    """
    if options.target_version is None:
        options = options._replace(target_version=catalog.NEWEST_RELEASE)
    try:
        return _process_bytes(path, data, options, module_name, this_pass)
    except Exception as error:  # noqa: BLE001 - one file's failure must not stop the run
        return FileResult(path, error=FileError(path, f"internal error ({type(error).__name__}: {error}); file left unchanged"))


def _process_bytes(path: str, data: bytes, options: Options, module_name: str | None, this_pass: Pass) -> FileResult:
    if options.fixes and is_history(path):  # what was stays as it was: reported, never edited
        options = options._replace(mode="lint")
    if is_python(path):
        return process_python(path, data, options, module_name, this_pass)
    from migrator.text import handler_for

    handler = handler_for(path)
    if handler is None:
        return FileResult(path)
    limit = MAX_NOTEBOOK_BYTES if path.endswith(".ipynb") else MAX_ANALYZE_BYTES
    if len(data) > limit:
        return too_large(path, data, True, limit)
    return handler(path, data, text_context(path, options))


def module_name_of(path: Path) -> str | None:
    from migrator.python.analysis import module_name_for

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
    if options.writes and result.new_bytes is not None:
        result.original = data  # the write refuses a file that changed since
    return result


def warm_up() -> None:
    """The imports and tables every candidate needs: run once before the workers fork (they
    inherit it), or in each worker where they are not forked (``migrator.run.pool``). Among them
    ``tokenize`` (the coding cookie of every Python file the byte prefilter rejects) and
    ``unicodedata`` (NFKC): imported in each worker, they cost twice."""
    import tokenize  # noqa: F401
    import unicodedata  # noqa: F401

    from migrator.base.compat import text_pattern
    from migrator.python import analysis, probes  # noqa: F401
    from migrator.python.fallbacks import known_names
    from migrator.python.release_fit import fit  # noqa: F401
    from migrator.python.rules import all_rules
    from migrator.relevance import words

    all_rules()
    words.word_groups()
    words.is_relevant_qualname("")
    _groups()
    known_names()
    text_pattern()


def process_chunk(task: tuple[list[str], Options, Pass]) -> list[FileResult]:
    paths, options, this_pass = task
    return [analyze_path(path, options, this_pass) for path in paths]
