"""``python -m migrator`` is the ``dflash-migrate`` command."""

import gc
import sys

gc.disable()  # one short run, as the console script (dflash_migrate_console.main) says

from migrator.cli.isolate import drop_current_folder_from_path  # noqa: E402

drop_current_folder_from_path()

from migrator.cli.main import main  # noqa: E402

sys.exit(main())
