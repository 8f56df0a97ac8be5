"""The command line: one declaration of every command and option, the typer app and the fast parser."""
