"""What a pass of a run hands to the work on each file (:class:`Pass`), and the size above
which a file is reported, not parsed. Apart from ``migrator.run.python_file`` so that the
engine, the fork pass and the dispatcher (``migrator.run.pipeline``) know them without
importing the analysis and the rules: those come with ``python_file``, where a file is a
candidate (a lint of one file that holds no V1 name never imports them)."""

from __future__ import annotations

from migrator.base.records import NamedTuple, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from migrator.python.forkindex import ForkIndex


#: Above these sizes a file is reported, not parsed (ast needs ~150x the source in memory
#: and the analysis ~3 s per MB of hot statements; text files ~3 s per MB of settings)
#: or not rewritten (libcst needs minutes per MB): one generated (or hostile) giant must
#: not stall or exhaust the machine; the other files are still processed.
MAX_ANALYZE_BYTES = 2 * 1024 * 1024


@record
class Pass(NamedTuple):
    """What one pass of a run hands to the work on each file beside the options (which hold
    only what the user asked): the fork index once the run built it (its names are
    prefilter words too, and the analysis follows V1 objects through the fork's modules),
    and whether the pass only indexes (findings and module summaries, no fixes: the fork
    pass's first reads). Pickled to every worker chunk with the paths, so it holds nothing
    that grows with the repository but the index the workers need."""

    fork: ForkIndex | None = None
    index_only: bool = False


FIRST_PASS = Pass()
