"""The subcommands, one module each: :mod:`.fix` (the default), :mod:`.lint` (alias
``check``), :mod:`.rules` (``rules`` and ``explain``), :mod:`.verify`, :mod:`.doctor`.

Each module declares its parameters (``PARAMS``, :mod:`.params`; :mod:`.common` those they
share) and names the function that runs them (in :mod:`migrator.cli.runs`, imported only when
that command runs). Importing a command module is cheap: it imports declarations only.
"""
