#!/usr/bin/env bash
# ON THE H200 MACHINE, after `source .gpu/device_env.sh`: add .gpu/extra wheels to /tmp/site and
# install this project's wheel (.gpu/project, built by scripts/gpu/prepare.sh) into the device
# interpreter's site-packages, as a user would, so that the shim's .pth hook is processed.
set -u
if ls .gpu/extra/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site --upgrade .gpu/extra/*.whl 2>&1 | grep -v WARNING
fi
if ls .gpu/project/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-deps --no-index --no-compile --force-reinstall .gpu/project/*.whl 2>&1 | grep -v WARNING
  SP=$(python3 -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
  if [ -f "$SP/dflash_migrate_shim.pth" ]; then
    echo "shim .pth installed by the wheel: $SP/dflash_migrate_shim.pth"
  elif [ -f "$SP/shims/dflash_migrate_shim.pth" ]; then
    cp "$SP/shims/dflash_migrate_shim.pth" "$SP/" && echo "NOTE: the wheel ships the .pth inside shims/ only; copied it to $SP/ by hand"
  fi
  python3 -m pip show dflash-migrate 2>/dev/null | sed -n '1,2p'
else
  echo "no project wheel in .gpu/project/: shim configurations will not find an installed .pth hook"
fi
