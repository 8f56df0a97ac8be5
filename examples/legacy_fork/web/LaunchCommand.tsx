// Docs widget: the launch command for the legacy_fork deployment.
// (Before 0.5.13 we also exported SGLANG_ENABLE_SPEC_V2=1 here; that was the default.)
import React from "react";

const WORKER_SOURCE =
  "https://github.com/sgl-project/sglang/blob/v0.5.13/python/sglang/srt/speculative/dflash_worker.py";

export function LaunchCommand({ model, sync }: { model: string; sync: boolean }) {
  const env = sync ? "SGLANG_ENABLE_SPEC_V2=0 " : "";
  return (
    <pre title={`worker: sglang.srt.speculative.dflash_worker.DFlashWorker (${WORKER_SOURCE})`}>
      {`${env}python -m sglang.launch_server --model-path ${model} --speculative-algorithm DFLASH`}
    </pre>
  );
}
