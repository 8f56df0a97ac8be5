"""``python -m migrator`` is the ``dflash-migrate`` command."""

import gc
import sys

collecting = gc.isenabled()
gc.disable()  # imports make no garbage cycles; ``migrator.cli.main.main`` says the rest

from migrator.cli.isolate import drop_current_folder_from_path  # noqa: E402

drop_current_folder_from_path()

from migrator.cli.main import main  # noqa: E402

if collecting:
    gc.enable()
sys.exit(main(exiting=True))
