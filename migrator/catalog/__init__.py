"""The single source of truth: every DFLASH V1 name, call form, env var and flag that a
fork hits when it moves from sglang 0.5.11-0.5.13 to the V2 worker (0.5.14+).

The codemod, the lint, the runtime shim (``shims``), ``dflash-migrate rules``/``explain``
and the rule table in MIGRATION.md all read the catalog through this package
(``from migrator import catalog``; every name below is re-exported here). Its modules:

* ``versions``: the releases the catalog knows, ``VersionRange``, the default target;
* ``model``: ``Entry`` and its parts, the kinds, the text mirror of an entry, TODO comments;
* ``sglang_names``: the sglang modules, classes and settings the entries and rules spell;
* ``entries``: the data, one ``ENTRIES``; a removed name is spelled there and nowhere else
  in the tool;
* ``lookups``: by code and name, qualified spellings, byte triggers and relevance words.

``tests/test_catalog_docs.py`` fails when MIGRATION.md drifts from the entries and
``tests/test_catalog_truth.py`` checks every entry against the real sglang wheels from PyPI.

This package must stay import-light: the CLI's ``--version`` path and the shim import it.
"""

from __future__ import annotations

from migrator.catalog.entries import (
    ENTRIES,
    ENV_SPEC_V2_MEANING,
    HISTORY_CODE,
    SGLANG_MEANING_CODES,
    SGLANG_MEANING_PARAMETER_CODES,
    TEXT_MIRRORS,
)
from migrator.catalog.lookups import (
    BEHAVIOUR_TOKENS,
    OBJECT_SEPARATOR,
    by_code,
    by_name,
    codes_of_kind,
    dotted,
    entries_of_kind,
    env_meaning,
    followed_names,
    get,
    matching_entry,
    name_word_groups,
    qualified_entry,
    qualified_spellings,
    respelled,
    sglang_bool,
    sglang_meaning_members,
    sglang_meaning_parameters,
    trigger_groups,
    trigger_tokens,
)
from migrator.catalog.model import (
    BEHAVIOUR_KIND,
    DOC,
    EXAMPLE_FILE_MARKER,
    FORK_KIND,
    HISTORY_KIND,
    SPELLING_KINDS,
    TEXT_KIND,
    TODO_MARKER,
    Applicability,
    EnvMeaning,
    Entry,
    Kind,
    Replacement,
    TextMirror,
    example_files,
    todo_comment,
    todo_detail,
)
from migrator.catalog.sglang_names import (
    DFLASH_INFO,
    DFLASH_INFO_V2,
    DFLASH_UTILS,
    DFLASH_WORKER,
    DFLASH_WORKER_V2,
    DISABLE_OVERLAP_ARG,
    DISABLE_OVERLAP_FLAG,
    ENGINE_CALLABLES,
    ENV_SPEC_V2,
    GENERATION_RESULT,
    KERNEL_OPS_DFLASH,
    LAUNCH_SERVER_MODULE,
    MODEL_RUNNER,
    REFLECTION_CALLS,
    SERVER_ARGS,
    SPEC_ALGORITHM,
    SPEC_AUX_CONFIG,
    SPECULATIVE,
    TABLE_QK_NORM_ROPE,
    V1,
    V1_DRAFT_INPUT,
    V1_VERIFY_KEYWORDS,
    V1_WORKER_CLASS,
    V2,
    V2_DRAFT_INPUT,
    V2_WORKER_CLASS,
    VERIFY_INPUT,
)
from migrator.catalog.versions import (
    FIRST_V2_RELEASE,
    NEWEST_RELEASE,
    RELEASES,
    VersionRange,
    default_target_version,
    installed_version,
    next_release,
    parse_version,
    target_release,
)

__all__ = [
    "ENTRIES", "ENV_SPEC_V2_MEANING", "HISTORY_CODE", "SGLANG_MEANING_CODES",
    "SGLANG_MEANING_PARAMETER_CODES", "TEXT_MIRRORS", "BEHAVIOUR_TOKENS", "OBJECT_SEPARATOR", "by_code",
    "by_name", "codes_of_kind", "dotted", "entries_of_kind", "env_meaning", "followed_names", "get",
    "matching_entry", "name_word_groups", "qualified_entry", "qualified_spellings", "respelled",
    "sglang_bool", "sglang_meaning_members", "sglang_meaning_parameters", "trigger_groups", "trigger_tokens",
    "BEHAVIOUR_KIND", "DOC", "EXAMPLE_FILE_MARKER", "FORK_KIND", "HISTORY_KIND", "SPELLING_KINDS",
    "TEXT_KIND", "TODO_MARKER", "Applicability", "EnvMeaning", "Entry", "Kind", "Replacement", "TextMirror",
    "example_files", "todo_comment", "todo_detail", "DFLASH_INFO", "DFLASH_INFO_V2", "DFLASH_UTILS",
    "DFLASH_WORKER", "DFLASH_WORKER_V2", "DISABLE_OVERLAP_ARG", "DISABLE_OVERLAP_FLAG", "ENGINE_CALLABLES",
    "ENV_SPEC_V2", "GENERATION_RESULT", "KERNEL_OPS_DFLASH", "LAUNCH_SERVER_MODULE", "MODEL_RUNNER",
    "REFLECTION_CALLS", "SERVER_ARGS", "SPEC_ALGORITHM", "SPEC_AUX_CONFIG", "SPECULATIVE",
    "TABLE_QK_NORM_ROPE", "V1", "V1_DRAFT_INPUT", "V1_VERIFY_KEYWORDS", "V1_WORKER_CLASS", "V2",
    "V2_DRAFT_INPUT", "V2_WORKER_CLASS", "VERIFY_INPUT", "FIRST_V2_RELEASE", "NEWEST_RELEASE", "RELEASES",
    "VersionRange", "default_target_version", "installed_version", "next_release", "parse_version",
    "target_release",
]
