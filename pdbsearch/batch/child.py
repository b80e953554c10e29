"""Job workers: forked processes that run a batch's jobs one after another,
and can be killed.

Each job runs in a worker process, never in the process that runs the
batch (the local runner, or a Dask worker's fork server:
:mod:`.forkserver`), so a job that gets stuck or uses too much memory
cannot hold up or take down the rest: the search stops itself at its
limits, and a worker whose job outlives its deadline is killed (the next
job gets a new worker).

**One worker, many jobs.**  A process forked for each job cost a small
level more than its search: on Microban's levels 20 to 59 (``--algo
fess``, 5 s, unshortened), 48.5 ms a level in a child of its own, 22 ms of
it system time for 6,175 page faults, against 19.2 ms and 92 page faults
in one process.  A forked child copies on write every page of the parent
it touches (Python's reference counts write to every object it reads) and
maps fresh memory for its arrays; a worker pays that once.  So that one
job's leftovers cannot weigh on the next for long, a worker leaves after
a job that raised, and after a job that left its resident memory more
than :data:`RECYCLE_BYTES` above what it held when it started; the next
job then gets a new worker.

Workers are made with ``os.fork`` rather than ``multiprocessing``: a Dask
worker is a daemonic process, which ``multiprocessing`` forbids to have
children, and a fork starts the worker with everything the parent has
loaded (numba's compiled kernels among them) without loading it again.
Jobs and records travel pickled through two pipes (:mod:`.messages`).
"""

from __future__ import annotations

import gc
import os
import pickle
import select
import signal
import sys
import time
from collections.abc import Sequence

from ..machine import resident_bytes
from .jobs import CRASHED, KILLED, Job, Outcome
from .messages import complete_message, frame, receive, write_all

#: Bytes read from a worker's pipe at a time.
_CHUNK = 1 << 16

#: A worker leaves after a job that left it holding this many bytes more
#: than when it started (see the module doc).
RECYCLE_BYTES = 256 << 20


class Worker:
    """A forked process that runs jobs one at a time: its pipes, the job it
    runs, and what has come back of that job's record so far."""

    def __init__(self, close_in_child: Sequence[int] = ()):
        """Fork the worker; it closes ``close_in_child`` (descriptors of the
        parent's that are none of its business: a fork server's pipes)."""
        requests_read, self._requests = os.pipe()
        self._replies, replies_write = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the worker, which never returns
            os.close(self._requests)
            os.close(self._replies)
            for fd in close_in_child:
                _close_quietly(fd)
            _worker_body(requests_read, replies_write)
        os.close(requests_read)
        os.close(replies_write)
        os.set_blocking(self._replies, False)
        self.pid = pid
        #: The job running now (None: idle).
        self.job: Job | None = None
        self.started = 0.0
        #: False once the worker left, died or was killed.
        self.alive = True
        self._data = bytearray()
        self._ended = False            # its pipe ended: it left or died
        self._not_sent: str | None = None
        self._exit_status: int | None = None

    def fileno(self) -> int:
        """The replies' descriptor (so that ``select`` can wait on workers)."""
        return self._replies

    def start(self, job: Job) -> bool:
        """Hand ``job`` to this idle worker.  False when the worker is gone
        (its pipe broke); a job that does not pickle is started all the
        same, and its outcome says so."""
        self.job, self.started = job, time.perf_counter()
        self._data.clear()
        self._not_sent = None
        try:
            message = frame(job)
        except Exception as exc:  # noqa: BLE001 - becomes the job's record
            self._not_sent = f"the job could not be sent to a worker: {type(exc).__name__}: {exc}"
            return True
        try:
            write_all(self._requests, message)
        except OSError:
            self._ended = True
            return False
        return True

    @property
    def age(self) -> float:
        """Seconds since the current job started."""
        return time.perf_counter() - self.started

    @property
    def overdue(self) -> bool:
        """True when the current job has outlived its deadline."""
        return (self.job is not None and self.job.deadline is not None
                and self.age > self.job.deadline)

    def read_available(self) -> bool:
        """Read what the pipe holds without blocking; True once the job's
        record is complete, or the pipe ended (the worker died)."""
        while self._not_sent is None and complete_message(self._data) is None:
            if self._ended:
                break
            try:
                chunk = os.read(self._replies, _CHUNK)
            except BlockingIOError:
                return False
            except InterruptedError:
                continue
            if not chunk:
                self._ended = True
                break
            self._data += chunk
        return True

    def outcome(self) -> Outcome:
        """The job's outcome, once :meth:`read_available` said it is done:
        its record, or a crash record when the worker died without one."""
        wall = round(self.age, 3)
        job, self.job = self.job, None
        if self._not_sent is not None:
            return Outcome(job.key, job.failure(CRASHED, None, self._not_sent), wall)
        payload = complete_message(self._data)
        self._data.clear()
        if payload is None:   # the pipe ended first: the worker died
            self._finish(kill=False)
            return Outcome(job.key, job.failure(CRASHED, None, self._death()), wall)
        try:
            record, leaving = pickle.loads(payload)
        except Exception as exc:  # noqa: BLE001 - a record that does not unpickle here
            record, leaving = job.failure(CRASHED, None, f"its record did not unpickle: "
                                                         f"{type(exc).__name__}: {exc}"), True
        if leaving:
            self.close()
        return Outcome(job.key, record, wall)

    def kill(self, status: str = KILLED, stop_reason: str | None = "time",
             error: str | None = None) -> Outcome:
        """Kill the worker; its job's outcome is a record of ``status``."""
        wall = round(self.age, 3)
        job, self.job = self.job, None
        self._finish(kill=True)
        return Outcome(job.key, job.failure(status, stop_reason, error), wall)

    def expire(self) -> Outcome:
        """Kill a worker whose job outlived its deadline; the job is
        recorded as killed."""
        return self.kill(error=f"still running {self.age:.0f} s after it started "
                               f"(its deadline: {self.job.deadline:g} s)")

    def close(self) -> None:
        """End the worker: an idle one leaves at the end of its pipe, a busy
        one (or one that does not leave within a second) is killed."""
        self._finish(kill=self.job is not None)

    def _finish(self, kill: bool) -> None:
        if not self.alive:
            return
        self.alive = False
        os.close(self._requests)   # an idle worker leaves at the end of its pipe
        if not kill:
            self._reap(timeout=1.0)
        if self._exit_status is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self._reap(timeout=5.0)
        os.close(self._replies)

    def _reap(self, timeout: float) -> None:
        """Collect the worker's exit status (waiting up to ``timeout`` s)."""
        end = time.perf_counter() + timeout
        while self._exit_status is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                self._exit_status = -1
                return
            if pid:
                self._exit_status = status
                return
            if time.perf_counter() > end:
                return
            time.sleep(0.002)

    def _death(self) -> str:
        """How the worker ended, in words."""
        status = self._exit_status
        if status is None or status == -1:
            return "the child died"
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            name = signal.Signals(sig).name if sig in signal.Signals.__members__.values() \
                else str(sig)
            hint = " (out of memory?)" if sig == signal.SIGKILL else ""
            return f"the child was killed by {name}{hint}"
        return f"the child died (exit code {os.WEXITSTATUS(status)})"


def start_job(job: Job, idle: Worker | None = None,
              close_in_child: Sequence[int] = ()) -> Worker:
    """Start ``job`` on the ``idle`` worker if it is still there, else on a
    new one (``close_in_child``: see :class:`Worker`); returns the worker
    that runs it.  A new worker that is gone at once gives the job a crash
    record."""
    if idle is not None and idle.alive:
        if idle.start(job):
            return idle
        idle.close()   # it died while idle: the job was never run, so it gets another
    worker = Worker(close_in_child)
    worker.start(job)
    return worker


def wait_any(workers: Sequence[Worker], timeout: float) -> list[Worker]:
    """The workers whose job's record is complete, waiting up to
    ``timeout`` seconds for one of them to say something."""
    if not workers:
        return []
    done = [w for w in workers if w.read_available()]
    if done:
        return done
    try:
        ready, _, _ = select.select(workers, [], [], timeout)
    except InterruptedError:
        ready = []
    return [w for w in ready if w.read_available()]


def run_job(job: Job, worker: Worker | None = None, poll: float = 0.2,
            close_in_child: Sequence[int] = ()) -> tuple[Outcome, Worker | None]:
    """Run one job on ``worker`` (or a new one) and wait for it, killing the
    worker at the job's deadline; returns the outcome and the worker, None
    when it is gone."""
    worker = start_job(job, worker, close_in_child)
    try:
        while True:
            if wait_any([worker], poll):
                outcome = worker.outcome()
                return outcome, (worker if worker.alive else None)
            if worker.overdue:
                return worker.expire(), None
    except BaseException:
        worker.close()
        raise


def run_in_child(job: Job, poll: float = 0.2) -> Outcome:
    """Run one job in a worker of its own, and end the worker."""
    outcome, worker = run_job(job, None, poll)
    if worker is not None:
        worker.close()
    return outcome


def _worker_body(requests: int, replies: int) -> None:  # pragma: no cover - worker only
    """Run jobs as they come, answer each with its pickled record, and leave
    at the end of the requests' pipe (or to be replaced: see the module doc)."""
    code = 0
    try:
        try:
            os.setpgrp()  # Ctrl-C at the terminal goes to the runner only
        except OSError:
            pass
        signal.signal(signal.SIGINT, signal.default_int_handler)
        die_with_parent()
        # The parent's garbage came along with the fork: collected during a
        # job, it would hide what the job left (the resident set shrinks),
        # so it goes before the measure.
        gc.collect()
        held_at_start = resident_bytes()
        while True:
            job = receive(requests)
            if job is None:
                break
            try:
                record, leaving = job.solve(*job.args), False
            except BaseException as exc:  # noqa: BLE001 - reported to the runner, never lost
                record, leaving = job.failure(CRASHED, None, f"{type(exc).__name__}: {exc}"), True
            leaving = leaving or resident_bytes() - held_at_start > RECYCLE_BYTES
            try:
                message = frame((record, leaving))
            except Exception as exc:  # noqa: BLE001 - a record that does not pickle
                leaving = True
                message = frame((job.failure(CRASHED, None, f"its record did not pickle: "
                                                            f"{type(exc).__name__}: {exc}"),
                                 leaving))
            write_all(replies, message)
            del job, record, message
            if leaving:
                break
    except BaseException:  # noqa: BLE001 - the runner sees a worker without a record
        code = 1
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _close_quietly(fd: int) -> None:  # pragma: no cover - worker only
    try:
        os.close(fd)
    except OSError:
        pass


def die_with_parent() -> None:  # pragma: no cover - runs in workers
    """On Linux, ask the kernel to kill this process when the thread that
    started it ends (a Dask worker, or its fork server, that is closed or
    dies), so that no search outlives the run that started it."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):
        pass
