"""The subcommands, one module each: :mod:`.fix` (the default), :mod:`.lint` (alias
``check``), :mod:`.rules` (``rules`` and ``explain``), :mod:`.verify`, :mod:`.doctor`.

Each module declares its parameters (``PARAMS``, :mod:`.params`) and a ``run`` function
taking them as keywords and returning the exit code; :mod:`.common` holds what they share
(the one options builder, the progress bar, the usage-error type). Importing a command
module is cheap: what a command needs is imported when it runs.
"""
