"""TOML's reader, chosen once: ``tomllib`` from Python 3.11, its backport ``tomli`` before.

Imported only where a TOML file is read (the configuration and its pins in
``migrator.run.config``, the text-fix guard's comparison in ``migrator.text._guard``):
``tomllib`` costs a run that reads none (~17 M instructions).
"""

from __future__ import annotations

import sys

if sys.version_info >= (3, 11):
    from tomllib import TOMLDecodeError, loads
else:  # pragma: no cover - exercised on 3.10 only
    from tomli import TOMLDecodeError, loads

__all__ = ["TOMLDecodeError", "loads"]
