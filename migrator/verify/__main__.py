"""``python -m migrator.verify``: the ``verify`` command on its own."""

import sys

from migrator.cli.isolate import drop_current_folder_from_path

drop_current_folder_from_path()

from migrator.cli.main import main  # noqa: E402

sys.exit(main(["verify", *sys.argv[1:]]))
