"""What a batch is made of: jobs, and the outcome each one ends with.

A :class:`Job` is one unit of independent work (a level of a collection,
one weight of a sweep, one board of an experiment): a picklable function
and its arguments, run in a worker process (:mod:`.child`) that is killed
if the job outlives its deadline.  Whatever happens, the job ends with one
record: the function's own, or the one its ``failed`` callable makes for a
job whose process crashed, was killed, never ran it, or whose Dask worker
was lost.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

#: Statuses a record can get from the batch rather than from the search.
KILLED = "killed"            #: still running past its deadline
CRASHED = "error"            #: the child died or raised
INTERRUPTED = "interrupted"  #: Ctrl-C
NOT_RUN = "not run"          #: never started (Ctrl-C came first)
FAILED = "failed"            #: its worker was lost twice (Dask)


@dataclass(frozen=True)
class Job:
    """One unit of a batch.

    ``solve(*args)`` returns the job's record; it runs in a worker
    process, killed ``deadline`` seconds after the job starts (None: never).
    ``failed(status, stop_reason, error)`` returns the record of a job that
    did not end by itself: ``status`` is one of :data:`KILLED`,
    :data:`CRASHED`, :data:`INTERRUPTED`, :data:`NOT_RUN` or :data:`FAILED`.
    Both callables and ``args`` must pickle (top-level functions,
    ``functools.partial`` of them): a Dask worker receives them.
    """

    key: Hashable
    solve: Callable[..., Any]
    args: tuple
    failed: Callable[[str, str | None, str | None], Any]
    deadline: float | None = None

    def failure(self, status: str, stop_reason: str | None = None,
                error: str | None = None) -> Any:
        """The record of this job when it did not end by itself."""
        return self.failed(status, stop_reason, error)


@dataclass
class Outcome:
    """How a job ended: its record and the seconds it ran in its worker."""

    key: Hashable
    record: Any
    wall_seconds: float = 0.0


@dataclass(frozen=True)
class WarmUp:
    """Work a process does once before it forks its first child, so that
    every child starts with the kernels compiled or loaded: ``run(*args)``,
    done once per process for each distinct ``name``."""

    name: str
    run: Callable[..., Any]
    args: tuple = ()
