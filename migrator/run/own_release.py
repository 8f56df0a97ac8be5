"""A file's own release: what the repository says about the one sglang release a file is for.

Repositories keep recipes, images and scripts per release: ``recipes/v0.5.6/model.yaml``,
``deploy/sglang-0.5.12/run.sh``, a Dockerfile ``FROM lmsysorg/sglang:v0.5.6``, a compose
file naming that image. The run's target (a pin, ``--target-version``) speaks for the
repository; such a file speaks for itself, and a V2-era fix in a file for 0.5.6 changes
what it does there (removing ``SGLANG_ENABLE_SPEC_V2: "1"`` turns V2 off on 0.5.6, where it
defaults to off). :func:`own_release` reads it from the file's path (the innermost folder
or file name that is a release: ``v0.5.6``, ``0.5.6``, ``sglang-0.5.12``,
``sglang_v0.5.12``) or, first, from the file itself (an ``lmsysorg/sglang`` image tag, a
Dockerfile ``ARG SGLANG_VERSION=``): one release named there, or none where it names several.

``migrator.run.pipeline`` then narrows the file's target to that release when it is a V2
release the catalog knows; a file for a release before the V2 worker gets no V2-era fix:
its findings stay (a Python file's as TODOs; a text file's TODO-only fixes are written, its
other findings reported), each saying why. The summary lists each such file and what
said so.
"""

from __future__ import annotations

import re
from pathlib import PurePath

from migrator import catalog

_RELEASE = r"v?(0\.\d+\.\d+)(?:\.post\d+)?"
#: a folder or file stem that is a release: ``v0.5.6``, ``0.5.6``, ``sglang-0.5.12``
_NAMED = re.compile(r"(?:^|sglang[-_])" + _RELEASE + r"$", re.IGNORECASE)
#: the image a file runs on, in its own text: a Dockerfile's ``FROM`` or ``ARG SGLANG_VERSION=``,
#: an ``image:`` key (compose, Kubernetes, chart values); a mention in prose or a table is not
_IN_TEXT = re.compile(rb"^[ \t]*(?:FROM[ \t]+(?:--\S+[ \t]+)*|(?:-[ \t]*)?image:[ \t]*[\"']?)lmsysorg/sglang:v?(0\.\d+\.\d+)"
                      rb"|^[ \t]*ARG[ \t]+SGLANG_VERSION[ \t]*=[ \t]*[\"']?v?(0\.\d+\.\d+)", re.MULTILINE)


def own_release(path: str, data: bytes) -> tuple[str, str] | None:
    """(release, what says so) for a file that names its one sglang release, else None."""
    if b"lmsysorg/sglang:" in data or b"SGLANG_VERSION" in data:
        named = {(m.group(1) or m.group(2)).decode() for m in _IN_TEXT.finditer(data)}
        if len(named) == 1:
            release = named.pop()
            return release, f"the image or build argument in the file names sglang {release}"
        if named:
            return None  # several releases in one file: the run's target decides
    parts = PurePath(path).parts
    for index in range(len(parts) - 1, -1, -1):
        name = parts[index] if index < len(parts) - 1 else PurePath(parts[index]).stem
        match = _NAMED.search(name)
        if match:
            where = "file name" if index == len(parts) - 1 else "folder"
            return match.group(1), f"its {where} `{parts[index]}`"
    return None


def is_v1_era(release: str) -> bool:
    return catalog.parse_version(release) < catalog.parse_version(catalog.FIRST_V2_RELEASE)


def is_known_v2(release: str) -> bool:
    return release in catalog.RELEASES and not is_v1_era(release)
