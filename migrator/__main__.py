"""``python -m migrator`` is the ``dflash-migrate`` command."""

import sys

from .cli import main

sys.exit(main())
