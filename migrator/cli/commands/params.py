"""The command line, declared once as data: each command module lists its ``Param``s.

``migrator.cli.main`` reads these declarations twice: to build the typer app (help, errors,
everything unusual) and to parse plain command lines without importing typer (most of a
run's start-up time; see ``migrator.cli.main.parse_fast``). No option is spelled anywhere else.

The two records are ``collections.namedtuple`` classes with ``@record`` (``migrator.base.records``)
rather than ``typing.NamedTuple``: this module is imported by every command line, and
``typing`` is not (``--version`` and a clean ``--check`` never load it).
"""

from __future__ import annotations

from collections import namedtuple

from migrator.base.records import record


@record
class Param(namedtuple("Param", "name flags kind metavar help default choices", defaults=(None, ()))):
    """One parameter: ``name`` is the keyword of the command's ``run`` function; ``flags``
    the option strings (none for a positional); ``kind``:

    * ``paths``: the positional files or folders (a list of ``Path``, possibly empty);
    * ``argument``: one required positional text;
    * ``flag``: on/off (default False); ``multi``: repeatable text (a list, or None);
    * ``text``/``int``/``path``: one value (None when not given); ``choice``: one of
      ``choices`` (default ``default``).
    """

    __slots__ = ()


@record
class Command(namedtuple("Command", "name run params help fast aliases", defaults=(False, ()))):
    """A subcommand: ``run`` names the function that runs it, ``"module:function"``
    (``function(**keywords) -> exit code``, imported by ``migrator.cli.main.run_command`` only
    when the command runs, :mod:`migrator.cli.runs`); ``fast``: plain command lines of it are
    parsed without typer; ``aliases``: other names that run it (``check`` for ``lint``)."""

    __slots__ = ()

