"""The command line: one declaration of every command and option, the typer app and the fast parser."""


class UsageError(Exception):
    """A command line or configuration that cannot run: nothing was read or written. Here,
    in the package, so that ``migrator.cli.main`` knows it before any command module loads
    (``--version`` imports nothing more)."""
