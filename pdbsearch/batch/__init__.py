"""Batches of independent jobs (the levels of a collection, the weights of a
sweep, the boards of an experiment), run on this machine or on a Dask
cluster, each job in a worker process with its own limits.

:func:`run_batch` is the one entry point; ``where`` picks the runner:
None for this machine's process pool (:mod:`.local`), ``local:N`` or a
scheduler address for Dask (:mod:`.cluster`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .jobs import CRASHED, FAILED, INTERRUPTED, KILLED, NOT_RUN, Job, Outcome, WarmUp


def run_batch(jobs: Sequence[Job], on_outcome: Callable[[Outcome], None], *,
              workers: int = 1, dask: str | None = None,
              warm_up: WarmUp | None = None, chunk: int | None = None) -> bool:
    """Run every job and hand each outcome to ``on_outcome`` as it comes:
    on this machine, ``workers`` at a time, or on the Dask cluster ``dask``
    (``local:N`` or ``tcp://host:port``), ``chunk`` jobs a task if given
    (else as :func:`.cluster.run_dask` sizes them).  Returns True when
    Ctrl-C stopped the run; finished outcomes were all handed on by then."""
    if dask is not None:
        from .cluster import run_dask
        return run_dask(jobs, dask, on_outcome, warm_up, chunk)
    from .local import run_local
    return run_local(jobs, workers, on_outcome, warm_up)


__all__ = [
    "CRASHED",
    "FAILED",
    "INTERRUPTED",
    "KILLED",
    "NOT_RUN",
    "Job",
    "Outcome",
    "WarmUp",
    "run_batch",
]
