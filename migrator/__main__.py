"""``python -m migrator`` is the ``dflash-migrate`` command."""

import os
import sys

# ``python -m`` puts the current folder first on sys.path. Run from inside the repository
# being migrated, that folder's own ``typer.py``, ``libcst/``, ``ast.py``... would then be
# imported -- executed -- instead of the real ones. Scanned code is never imported: drop it.
if sys.path and not sys.flags.safe_path and os.path.realpath(sys.path[0] or os.curdir) == os.path.realpath(os.curdir):
    del sys.path[0]

from .cli import main  # noqa: E402

sys.exit(main())
