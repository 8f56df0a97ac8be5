"""The one place a run's default target is set (issue 43): the entries of a run (the pipeline's
``process_bytes``, ``migrator.run.engine.run``, the text rules' context) pass their options
through :func:`with_target`."""

from __future__ import annotations

from migrator import catalog
from migrator.base.options import Options


def with_target(options: Options) -> Options:
    """``options`` with a target: the one place a run's default target is set. The command line
    always names one (``migrator.cli.runs.options.build_options``: the flag, the config, the
    fork's sglang pin, else every V2 release); a library caller's ``Options()`` without one
    gets the newest release here, at the entries (``migrator.run.pipeline.process_bytes``,
    ``migrator.run.engine.run``, ``migrator.run.python_file.text_context``), so nothing below
    them meets a run without a target."""
    if options.target_version is None:
        return options._replace(target_version=catalog.NEWEST_RELEASE)
    return options

