"""Running a batch on this machine: at most N jobs at once, each in a worker
process (:mod:`.child`), which runs one job after another.

The kernels are compiled (or loaded) once in this process by the batch's
warm-up before the workers are forked, so no worker pays for it.  Ctrl-C
stops the run: the busy workers are killed and their jobs recorded as
interrupted; what finished is kept.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from contextlib import contextmanager

from ..interrupts import sigint_handler
from .child import Worker, start_job, wait_any
from .jobs import INTERRUPTED, Job, Outcome, WarmUp


class CtrlC:
    """Ctrl-C in a process that runs a batch: noted at once, acted on where
    it is safe.

    SIGINT is never blocked: a signal blocked in the main thread goes to
    another thread (tqdm's monitor), and CPython 3.11 can then lose it.  The
    handler instead notes the request and raises KeyboardInterrupt, except
    inside :meth:`held` (starting a child), where it waits for the block to
    end.  A KeyboardInterrupt raised inside a ctypes callback (numba loading
    its cache) is swallowed by Python, so loops also call :meth:`check`.
    """

    def __init__(self):
        self.requested = False
        self._holding = False

    def handler(self, signum, frame) -> None:
        """The SIGINT handler: note the request, raise unless held."""
        self.requested = True
        if not self._holding:
            raise KeyboardInterrupt

    def check(self) -> None:
        """Raise KeyboardInterrupt if Ctrl-C came and was not acted on."""
        if self.requested:
            raise KeyboardInterrupt

    @contextmanager
    def held(self):
        """Hold Ctrl-C back until the block ends, then act on it."""
        self._holding = True
        try:
            yield
        finally:
            self._holding = False
        self.check()


def run_local(jobs: Sequence[Job], workers: int, on_outcome: Callable[[Outcome], None],
              warm_up: WarmUp | None = None, poll: float = 0.2) -> bool:
    """Run ``jobs``, at most ``workers`` at a time, each in a worker process;
    ``on_outcome`` hears each job's outcome as it ends.  Returns True when
    Ctrl-C stopped the run (the running jobs are then reported as
    interrupted; the jobs never started are not reported)."""
    pending = deque(jobs)
    busy: list[Worker] = []
    idle: list[Worker] = []
    ctrl_c = CtrlC()
    try:
        with sigint_handler(ctrl_c.handler):
            if warm_up is not None and pending:
                warm_up.run(*warm_up.args)
            while pending or busy:
                ctrl_c.check()
                while pending and len(busy) < workers:
                    with ctrl_c.held():
                        # A Ctrl-C between a fork and this bookkeeping would
                        # leave a worker nobody stops: it waits until both are done.
                        busy.append(start_job(pending.popleft(), idle.pop() if idle else None))
                for worker in wait_any(busy, poll):
                    busy.remove(worker)
                    idle.append(worker)
                    on_outcome(worker.outcome())
                for worker in [w for w in busy if w.overdue]:
                    busy.remove(worker)
                    on_outcome(worker.expire())
                idle = [w for w in idle if w.alive]
    except KeyboardInterrupt:
        for worker in busy:
            if worker.job is not None:
                on_outcome(worker.kill(INTERRUPTED, "interrupted"))
        return True
    finally:
        for worker in busy + idle:
            worker.close()
    return False
