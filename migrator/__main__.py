"""``python -m migrator`` is the ``dflash-migrate`` command."""

import sys

from migrator.cli.isolate import drop_current_folder_from_path

drop_current_folder_from_path()

from migrator.cli.main import main  # noqa: E402

sys.exit(main())
