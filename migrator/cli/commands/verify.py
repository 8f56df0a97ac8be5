"""``dflash-migrate verify [PATH ...]``: check statically that every ``sglang.*`` reference
of a fork exists in the target sglang (the checks: :mod:`migrator.verify`).

Exit codes as ``lint``: 0 clean, 1 unresolved references, 2 a file could not be
processed or the target could not be loaded.
"""

from __future__ import annotations

from migrator.cli.commands.common import EXCLUDE, FORCE_EXCLUDE
from migrator.cli.commands.params import Command, Param
from migrator.report import FORMATS

PARAMS = (
    Param("paths", (), "paths", "PATH", "Files or folders (default: .)."),
    Param("sglang", ("--sglang",), "text", "DIR", "A folder holding the sglang package."),
    Param("target_version", ("--target-version",), "text", "RELEASES",
          "Released sglang wheels from PyPI (each downloaded once, cached): one release, a range "
          "(0.5.14..0.5.23) or a PEP 440 specifier; every reference is resolved on each. Default: the "
          "config's target-version, else the installed sglang."),
    Param("from_version", ("--from-version",), "text", "X.Y.Z",
          "Release the fork was written against, to recognise overrides (default: the last V1 release; "
          "'none': catalog only)."),
    Param("fmt", ("--format",), "choice", "FORMAT", "Report format.", "text", FORMATS),
    Param("skip_todos", ("--skip-todos",), "flag", None, "Do not report lines under a TODO(dflash-migrate) comment."),
    EXCLUDE,
    FORCE_EXCLUDE,
)


COMMAND = Command("verify", "migrator.cli.runs.verify:run", PARAMS,
                  "Check statically that every sglang.* reference exists in the target sglang (DFM900 unresolved, "
                  "DFM901 override of a method the base class no longer has). Default target: the installed sglang.")
