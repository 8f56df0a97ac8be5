#!/bin/bash
set -u
EXTRA=""
export SGLANG_ENABLE_SPEC_V2=1 2>/dev/null || true
export SGLANG_ENABLE_SPEC_V2=1 $EXTRA
export SGLANG_ENABLE_SPEC_V2=1 "$@"
declare -x SGLANG_ENABLE_SPEC_V2=1 $EXTRA
export SGLANG_ENABLE_SPEC_V2=1 >&2
case "${MODE:-}" in
  fast) export SGLANG_ENABLE_SPEC_V2=1 ;;
  slow)
    export SGLANG_ENABLE_SPEC_V2=0
    ;;
esac
setup() {
  local SGLANG_ENABLE_SPEC_V2=1
  echo "setup"
}
for i in 1 2; do
  export SGLANG_ENABLE_SPEC_V2=1
done
while false; do unset SGLANG_ENABLE_SPEC_V2; done
{ export SGLANG_ENABLE_SPEC_V2=1; }
mkdir -p /tmp/x && export SGLANG_ENABLE_SPEC_V2=1 && echo ok
cat > /tmp/env.sh <<EOF2
export SGLANG_ENABLE_SPEC_V2=1
EOF2
setup
python3 -m sglang.launch_server --model-path m --speculative-dflash-draft-window-size 4
