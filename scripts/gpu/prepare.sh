#!/usr/bin/env bash
# ON THE CPU MACHINE, from the project root, before a device run (docs/gpu-validation.md):
#   - the sglang 0.5.17 bundle (.gpu/site.tar.xz etc.) from ../shared/gpu/build_bundle.sh, if missing;
#   - .gpu/extra/: jsonschema and its deps (sglang's HTTP server imports it; the bundle lacks it);
#   - .gpu/project/: a wheel of this working tree, installed on the device like a user would,
#     so the shim's .pth hook sits in a real site-packages folder.
# Then: run with carry [".gpu"] and `bash scripts/gpu/device_run.sh full`.
set -euo pipefail
SHARED="${SHARED:-$(cd "$(dirname "$0")/../../.." && pwd)/shared/gpu}"
[ -f .gpu/site.tar.xz ] || bash "$SHARED/build_bundle.sh"
mkdir -p .gpu/extra .gpu/project
ls .gpu/extra/python_multipart-*.whl >/dev/null 2>&1 || python3 -m pip download -q --no-deps --only-binary=:all: \
  --python-version 3.12 --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 -d .gpu/extra jsonschema referencing jsonschema-specifications rpds-py soundfile cffi pycparser python-multipart
rm -f .gpu/project/*.whl
python3 -m pip wheel -q --no-deps -w .gpu/project . 2>&1 | grep -v WARNING || true
ls -l .gpu/extra .gpu/project; du -sh .gpu
