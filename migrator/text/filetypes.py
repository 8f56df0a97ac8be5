"""Which text-rule module reads a file, decided from its name (and, for a file without an
extension, a shell shebang in its first bytes): :func:`module_for`.

A leaf (no project imports), so that discovery can ask without importing any rule.
"""

from __future__ import annotations

import os
import re

#: Every text-rule module (each declares itself: ``migrator.text.text_rules``).
MODULES = ("shell", "dockerfile", "yaml", "dotenv", "toml", "jsonfile", "markdown", "notebook", "fallback")
_SUFFIXES = {
    ".sh": "shell", ".bash": "shell", ".zsh": "shell", ".ksh": "shell",
    ".dockerfile": "dockerfile", ".containerfile": "dockerfile",
    ".yaml": "yaml", ".yml": "yaml",
    ".env": "dotenv",
    ".toml": "toml",
    ".json": "jsonfile", ".jsonc": "jsonfile",
    ".md": "markdown", ".markdown": "markdown", ".mdx": "markdown",
    ".ipynb": "notebook",
}
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
_SHEBANG = re.compile(rb"^#!\s*\S*?(?:/|env\s+)(?:ba|z|k|da)?sh\b")


def accepts(path: str) -> bool:
    """Does some text rule read ``path`` (decided by its name only; Python files aside)?"""
    lower = os.path.basename(path).lower()
    return not lower.endswith((".py", ".pyi", *GENERATED_SUFFIXES)) and os.path.splitext(lower)[1] not in BINARY_SUFFIXES


def is_makefile(path: str) -> bool:
    """A Makefile by name (its recipe lines are shell)."""
    name = os.path.basename(path).lower()
    return name.startswith(("makefile", "gnumakefile")) or name.endswith((".mk", ".make"))


def module_for(path: str) -> str | None:
    """Name of the module that handles ``path``, or None (Python and binary files)."""
    return _structured_module_for(path) or ("fallback" if accepts(path) else None)


def _structured_module_for(path: str) -> str | None:
    name = os.path.basename(path)
    lower = name.lower()
    if lower in ("dockerfile", "containerfile") or lower.startswith(("dockerfile.", "containerfile.")):
        return "dockerfile"
    if lower == ".env" or (lower.startswith(".env.") and not lower.endswith((".py", ".json", ".yaml", ".yml"))):
        return "dotenv"
    if lower == ".envrc":
        return "shell"
    suffix = os.path.splitext(lower)[1]
    if suffix in _SUFFIXES:
        return _SUFFIXES[suffix]
    if not suffix:
        try:
            with open(path, "rb") as fh:
                head = fh.read(64)
        except OSError:
            return None
        if _SHEBANG.match(head):
            return "shell"
    return None
