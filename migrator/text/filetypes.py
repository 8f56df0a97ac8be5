"""The file types the text rules read, each declared once (:class:`FileType`), and which
one reads a file, decided from its name (and, for a file without an extension, a shell
shebang in its first bytes): :func:`filetype_for`, :func:`module_for`.

Every table about file types is derived from the declarations: discovery's (here), the
suppression comments' syntax and quoting (``migrator.text._core``, ``migrator.text.quoting``),
``--add-noqa``'s own-line types and statement starts (``migrator.run.add_noqa``), and
Markdown's fence languages, analysers and write guards (``migrator.text.markdown``).
:func:`register` adds a type at run time (a test's toy type, say): nothing else changes.

Nearly a leaf (only ``migrator.base.records``), so that discovery can ask without importing
any rule: the declarations are data, read once; a handler module is imported only when a
file needs it.
"""

from __future__ import annotations

import os
from migrator.base.patterns import on_first_use
from migrator.base.records import NamedTuple, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal


@record
class FileType(NamedTuple):
    """One file type, declared once. Every field must be given (no defaults: a declaration
    that forgets one fails where it is written, and ``tests/test_filetype_declarations.py``
    checks each value).

    * ``name``: the type (``makefile`` is read by the ``fallback`` module);
    * ``module``: the module that reads it (``handle``, ``analyze``, ``RULE``), by its full name;
    * ``suffixes``, ``names``, ``prefixes``: lower-case file-name suffixes, whole names and
      name starts; a prefix does not count for a name ending in one of ``prefix_unless``.
      Whole names are matched first, then prefixes, then suffixes, each in declaration order;
    * ``shebang``: an extensionless file whose first bytes are a ``sh``/``bash``/... shebang;
    * ``late``: matched only after every other type, and only for names some text rule
      accepts (:func:`accepts`); a late type with the prefix ``""`` takes every such name;
    * ``comments``: the syntax of its suppression comments (``migrator.base.suppressions``):
      ``hash`` (``#``), ``json`` (``//``), ``markdown`` (HTML comments, fence comments),
      ``python`` (``tokenize``);
    * ``quoting``: how its lines quote, for where a comment starts (``migrator.text.quoting``);
    * ``reader``: where its reader ends lines (``migrator.base.lines.split_lines``);
    * ``statement_start``: a pattern for a line that starts a statement, above which
      ``--add-noqa`` may write a comment on its own line; None: it writes none;
    * ``comment_in_continuation``: such a comment may go inside a statement continued with
      ``\\`` (Dockerfiles drop comment lines before joining lines);
    * ``fence_languages``: Markdown fence languages whose blocks its rules read;
    * ``guard``: ``"module:function"``, its text-fix guard (``migrator.text._guard``), or None.
    """

    name: str
    module: str
    suffixes: tuple[str, ...]
    names: tuple[str, ...]
    prefixes: tuple[str, ...]
    prefix_unless: tuple[str, ...]
    shebang: bool
    late: bool
    comments: Literal["hash", "json", "markdown", "python"]
    quoting: str
    reader: str
    statement_start: str | None
    comment_in_continuation: bool
    fence_languages: tuple[str, ...]
    guard: str | None


_SHELL_FENCES = ("bash", "sh", "shell", "zsh", "console", "terminal", "shell-session")
#: The built-in declarations, in the order a name is matched (``late`` ones last).
DECLARATIONS: list[FileType] = [
    FileType("dockerfile", "migrator.text.dockerfile", (".dockerfile", ".containerfile"), ("dockerfile", "containerfile"),
             ("dockerfile.", "containerfile."), (), False, False, "hash", "shell", "shell", r"^\s*\S", True,
             ("dockerfile", "docker", "containerfile"), "migrator.text.dockerfile:guard"),
    FileType("dotenv", "migrator.text.dotenv", (".env",), (".env",), (".env.",), (".py", ".json", ".yaml", ".yml"),
             False, False, "hash", "dotenv", "python", r"^\s*(export\s+)?[A-Za-z_][A-Za-z0-9_.]*\s*=", False,
             ("env", "dotenv"), None),
    FileType("shell", "migrator.text.shell", (".sh", ".bash", ".zsh", ".ksh"), (".envrc",), (), (), True, False,
             "hash", "shell", "shell", r"^\s*\S", False, _SHELL_FENCES, "migrator.text._guard:shell"),
    FileType("yaml", "migrator.text.yaml", (".yaml", ".yml"), (), (), (), False, False, "hash", "yaml", "yaml",
             r"^\s*(-\s+)?[^\s#'\"][^:]*:(\s|$)|^\s*-\s", False, ("yaml", "yml"), "migrator.text._guard:yaml"),
    FileType("toml", "migrator.text.toml", (".toml",), (), (), (), False, False, "hash", "toml", "shell",
             r"^\s*(\[|[A-Za-z0-9_\"'.-]+\s*=)", False, ("toml",), "migrator.text._guard:toml"),
    FileType("jsonfile", "migrator.text.jsonfile", (".json", ".jsonc"), (), (), (), False, False, "json", "backslash",
             "python", None, False, (), None),
    FileType("markdown", "migrator.text.markdown", (".md", ".markdown", ".mdx"), (), (), (), False, False, "markdown",
             "none", "markdown", None, False, (), "migrator.text.markdown:guard"),
    FileType("notebook", "migrator.text.notebook", (".ipynb",), (), (), (), False, False, "python", "none", "python",
             None, False, (), "migrator.text.notebook:guard"),
    FileType("makefile", "migrator.text.fallback", (".mk", ".make"), (), ("makefile", "gnumakefile"), (), False, True,
             "hash", "make", "shell", None, False, (), "migrator.text.fallback:guard"),
    FileType("fallback", "migrator.text.fallback", (), (), ("",), (), False, True, "hash", "text", "shell", None, False,
             (), None),
]


def _module_name(filetype: FileType) -> str:
    return filetype.module.rsplit(".", 1)[-1]


#: Every built-in text-rule module (each declares itself: ``migrator.text.text_rules``).
MODULES = tuple(dict.fromkeys(_module_name(filetype) for filetype in DECLARATIONS))
#: Names the fallback scanner never reads: binary formats, and generated one-line text.
BINARY_SUFFIXES = frozenset((
    ".png", ".jpg", ".jpeg", ".gif", ".bmp", ".ico", ".webp", ".tif", ".tiff", ".pdf", ".psd",
    ".zip", ".gz", ".tgz", ".bz2", ".xz", ".zst", ".tar", ".7z", ".rar", ".whl", ".egg", ".jar", ".class",
    ".so", ".dylib", ".dll", ".a", ".o", ".obj", ".lib", ".exe", ".pyc", ".pyo", ".pyd",
    ".bin", ".pt", ".pth", ".ckpt", ".safetensors", ".onnx", ".gguf", ".npy", ".npz", ".pkl", ".pickle",
    ".parquet", ".arrow", ".feather", ".h5", ".hdf5", ".tflite", ".engine", ".plan", ".db", ".sqlite", ".sqlite3",
    ".mp3", ".mp4", ".wav", ".flac", ".ogg", ".webm", ".mov", ".avi", ".mkv",
    ".ttf", ".otf", ".woff", ".woff2", ".eot", ".map",
))
#: Generated one-line text the fallback scanner never reads either.
GENERATED_SUFFIXES = (".min.js", ".min.css")
_SHEBANG = on_first_use(rb"^#!\s*\S*?(?:/|env\s+)(?:ba|z|k|da)?sh\b")


@record
class _Tables(NamedTuple):
    """What :func:`filetype_for` looks up, derived from the declarations once (and again
    after :func:`register`)."""

    early: tuple[FileType, ...]
    names: dict[str, FileType]  # the early ones' whole names
    prefixed: tuple[FileType, ...]  # the early ones with prefixes
    suffixes: dict[str, FileType]
    shebang: FileType | None
    late: tuple[FileType, ...]
    fence_types: dict[str, FileType]
    fences: dict[str, str]  # fence language -> quoting, Python's included
    module_names: dict[str, str]  # a module's full name -> its last part


#: Python fences whose ``#`` comments count for suppressions (Python is no text type).
PYTHON_FENCES = ("python", "py", "python3")


def _tables() -> _Tables:
    early = tuple(f for f in DECLARATIONS if not f.late)
    suffixes: dict[str, FileType] = {}
    for filetype in early:
        for suffix in filetype.suffixes:
            suffixes.setdefault(suffix, filetype)
    fence_types: dict[str, FileType] = {}
    for filetype in DECLARATIONS:
        for language in filetype.fence_languages:
            fence_types.setdefault(language, filetype)
    fences = {**{language: f.quoting for language, f in fence_types.items()}, **dict.fromkeys(PYTHON_FENCES, "backslash")}
    names: dict[str, FileType] = {}
    for filetype in early:
        for name in filetype.names:
            names.setdefault(name, filetype)
    return _Tables(early, names, tuple(f for f in early if f.prefixes), suffixes,
                   next((f for f in early if f.shebang), None),
                   tuple(f for f in DECLARATIONS if f.late), fence_types, fences,
                   {f.module: _module_name(f) for f in DECLARATIONS})


_TABLES = _tables()


def register(filetype: FileType) -> None:
    """Add ``filetype`` before the late types (or before the last one, if it is late):
    discovery, suppressions, ``--add-noqa`` and Markdown read it from now on."""
    global _TABLES
    DECLARATIONS.insert(len(DECLARATIONS) - 1 if filetype.late else len(_TABLES.early), filetype)
    _TABLES = _tables()


def unregister(name: str) -> None:
    """Remove the type ``name`` (added by :func:`register`)."""
    global _TABLES
    DECLARATIONS[:] = [f for f in DECLARATIONS if f.name != name]
    _TABLES = _tables()


def accepts(path: str) -> bool:
    """Does some text rule read ``path`` (decided by its name only; Python files aside)?"""
    lower = os.path.basename(path).lower()
    return not lower.endswith((".py", ".pyi", *GENERATED_SUFFIXES)) and os.path.splitext(lower)[1] not in BINARY_SUFFIXES


def _named(filetype: FileType, lower: str) -> bool:
    return lower in filetype.names or (lower.startswith(filetype.prefixes) and not lower.endswith(filetype.prefix_unless))


def is_makefile(path: str) -> bool:
    """A Makefile by name (its recipe lines are shell)."""
    lower = os.path.basename(path).lower()
    makefile = next(f for f in DECLARATIONS if f.name == "makefile")
    return _named(makefile, lower) or lower.endswith(makefile.suffixes)


def filetype_for(path: str) -> FileType | None:
    """The declaration of the type of ``path``, or None (Python and binary files)."""
    tables = _TABLES
    lower = os.path.basename(path).lower()
    if lower in tables.names:
        return tables.names[lower]
    for filetype in tables.prefixed:
        if lower.startswith(filetype.prefixes) and not lower.endswith(filetype.prefix_unless):
            return filetype
    suffix = os.path.splitext(lower)[1]
    if suffix in tables.suffixes:
        return tables.suffixes[suffix]
    if not suffix and tables.shebang is not None and _has_shebang(path):
        return tables.shebang
    if not accepts(path):
        return None
    for filetype in tables.late:
        if _named(filetype, lower) or lower.endswith(filetype.suffixes):
            return filetype
    return None


def _has_shebang(path: str) -> bool:
    try:
        with open(path, "rb") as fh:
            return _SHEBANG().match(fh.read(64)) is not None
    except OSError:
        return False


def of_module(module: str) -> FileType:
    """The first declaration read by the module ``module`` (its short name)."""
    return next(f for f in DECLARATIONS if _module_name(f) == module)


def fence_quoting(language: str) -> str | None:
    """The quoting of a Markdown fence language whose ``#`` comments count, or None."""
    return _TABLES.fences.get(language)


def fence_type(language: str) -> FileType | None:
    """The type whose rules read a Markdown fence of ``language``, or None."""
    return _TABLES.fence_types.get(language)


def module_for(path: str) -> str | None:
    """Name of the module that handles ``path``, or None (Python and binary files)."""
    filetype = filetype_for(path)
    return None if filetype is None else _TABLES.module_names[filetype.module]
