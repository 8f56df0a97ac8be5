#!/usr/bin/env bash
# ON THE H200 MACHINE (sourced env from .gpu/device_env.sh): install this project the way a user
# would (wheel built on the CPU side by scripts/gpu/prepare.sh into .gpu/project/), so that the
# shim's .pth hook is in a real site-packages folder. Nothing else is installed.
set -u
if ls .gpu/project/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-deps --no-index --no-compile --force-reinstall .gpu/project/*.whl \
    && python3 -m pip show -f dflash-migrate | sed -n '1,3p;/\.pth/p'
else
  echo "no project wheel in .gpu/project/: shim configurations will not find an installed .pth hook"
fi
