"""What each command runs, one module each (``fix``, ``lint``, ``rules``, ``explain``,
``verify``, ``doctor``), imported only by the dispatcher
(``migrator.cli.main.run_command``) for the one command that runs: its declaration in
:mod:`migrator.cli.commands` names it (``Command.run``, ``"module:function"``), so ``--help``,
``rules`` and the fast parser never import the engine. A run module imports what it needs at
its top; :mod:`.options` builds the run's options, :mod:`.common` holds what the runs share.
"""
