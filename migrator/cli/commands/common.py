"""The parameters the commands share (declarations only, as :mod:`.params`); what a command
does with them (the options builder, the run) is in :mod:`migrator.cli.runs`."""

from __future__ import annotations

from migrator.cli.commands.params import Param

SELECT = Param("select", ("--select",), "multi", "CODES",
               "Only these rule codes, comma-separated or repeated (prefixes allowed: DFM1,DFM201).")
IGNORE = Param("ignore", ("--ignore",), "multi", "CODES", "Skip these rule codes (comma-separated or repeated; prefixes allowed).")
EXCLUDE = Param("exclude", ("--exclude",), "multi", "GLOB",
                "Gitignore-style pattern to skip, relative to the current folder (repeatable); "
                "added to the config's `exclude`.")
FORCE_EXCLUDE = Param("force_exclude", ("--force-exclude",), "flag", None,
                      "Apply the exclude patterns also to files named on the command line (as pre-commit passes them).")
TARGET_VERSION = Param("target_version", ("--target-version",), "text", "RELEASES",
                       "sglang releases to migrate to: one (0.5.17), a range (0.5.14..0.5.23) or a PEP 440 specifier "
                       "(>=0.5.16,<0.5.22); a fix is applied only where it serves each of them (default: the fork's "
                       "sglang pin, else every V2 release the catalog knows).")
JOBS = Param("jobs", ("--jobs", "-j"), "int", "N", "Worker processes (default: CPUs; one under pre-commit, which runs a hook per CPU).")
PARSE_ALL = Param("parse_all", ("--parse-all",), "flag", None,
                  "Turn every shortcut off: parse every file whole, also those that cannot match (every syntax error "
                  "is reported), and analyse every statement (slower; same findings).")
EXTEND_SELECT = Param("extend_select", ("--extend-select",), "multi", "CODES",
                      "Rule codes to add to the selection (the config's `select` or --select), as in ruff.")
EXTEND_IGNORE = Param("extend_ignore", ("--extend-ignore",), "multi", "CODES",
                      "Rule codes to skip in addition to the config's and --ignore's, as in ruff.")
CONFIG = Param("config_file", ("--config",), "path", "FILE",
               "Use the settings in FILE (a pyproject.toml with [tool.dflash-migrate], or a TOML file of the same "
               "keys) instead of searching for one.")
NO_RESPECT_GITIGNORE = Param("no_respect_gitignore", ("--no-respect-gitignore",), "flag", None,
                             "Also read the files that .gitignore files name (config: respect-gitignore = false).")
ISOLATED = Param("isolated", ("--isolated",), "flag", None, "Ignore every configuration file (as in ruff).")
SHOW_FILES = Param("show_files", ("--show-files",), "flag", None,
                   "Print the files this command line would read, one per line, and exit (as in ruff).")
SHOW_SETTINGS = Param("show_settings", ("--show-settings",), "flag", None,
                      "Print the settings this command line resolves to (config file, target, rules, excludes) and exit.")
VERBOSE = Param("verbose", ("--verbose", "-v"), "flag", None,
                "Also say on stderr which config and target the run used, how many files it found and how long it took.")
CACHE_DIR = Param("cache_dir", ("--cache-dir",), "path", "DIR",
                  "Keep the fork index's per-module summaries between runs here (default: "
                  "$DFLASH_MIGRATE_CACHE/summaries, ~/.cache/dflash-migrate/summaries).")
NO_CACHE = Param("no_cache", ("--no-cache",), "flag", None,
                 "Neither read nor write the summary cache (the findings are the same, a run over named files slower).")
#: The file-selection and rule-selection parameters of ``fix`` and ``lint``, and ruff's
#: ways of asking what a run would do.
SHARED = (SELECT, IGNORE, EXTEND_SELECT, EXTEND_IGNORE, EXCLUDE, FORCE_EXCLUDE, NO_RESPECT_GITIGNORE, TARGET_VERSION, JOBS,
          PARSE_ALL, CONFIG, ISOLATED, SHOW_FILES, SHOW_SETTINGS, VERBOSE, CACHE_DIR, NO_CACHE)
