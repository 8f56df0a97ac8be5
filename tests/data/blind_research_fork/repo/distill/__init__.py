"""kestrel-dflash: distilling and serving DFLASH block-draft models.

The package is split by stage:

- ``distill.capture_worker``: a serving-side worker that dumps target hidden states;
- ``distill.dataset`` / ``distill.train_draft``: turning shards into a draft model;
- ``distill.hooks`` / ``distill.scheduler_patch``: runtime patches we apply to sglang;
- ``distill.registry``: the names our configs use to pick a worker.
"""

__version__ = "0.7.2"

# Our own model generations, unrelated to sglang's V1/V2 workers.
DRAFT_GENERATIONS = ("kdraft-v1", "kdraft-v2", "kdraft-v2.1")
