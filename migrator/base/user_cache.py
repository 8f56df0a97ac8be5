"""The tool's cache folder: ``$DFLASH_MIGRATE_CACHE``, default ``~/.cache/dflash-migrate``.

One home for it: downloaded wheels and their trees (``migrator.releases.wheels``), the test
suite's environments, and the fork index's summaries (``migrator.run.summary_cache``). A
module of its own because a lint over named files asks for it, and ``wheels`` imports
``zipfile`` and ``subprocess`` (~20 ms) that such a run never needs.
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    root = os.environ.get("DFLASH_MIGRATE_CACHE")
    return Path(root).expanduser() if root else Path.home() / ".cache" / "dflash-migrate"
