"""``python -m migrator.verify``: the ``verify`` command on its own."""

import sys

from .._isolate import drop_current_folder_from_path

drop_current_folder_from_path()

from ..cli import main  # noqa: E402

sys.exit(main(["verify", *sys.argv[1:]]))
