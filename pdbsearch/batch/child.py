"""A job run in a forked child process that can be killed.

Each job runs in a child of its own, so a job that gets stuck or uses too
much memory cannot hold up or take down the process that runs the batch
(the local runner, or a Dask worker's fork server: :mod:`.forkserver`):
the search stops itself at its limits, and a child that outlives its
deadline is killed.

The child is made with ``os.fork`` rather than ``multiprocessing``: a Dask
worker is a daemonic process, which ``multiprocessing`` forbids to have
children, and a fork starts the child with everything the parent has
loaded (numba's compiled kernels among them) without loading it again.
The fork is not free, though: the kernel copies the parent's page tables
and the child copies on write each page it touches, so a parent that
holds less memory forks for less (the reason for the fork server).  The
record comes back pickled through a pipe.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import sys
import time
from collections.abc import Sequence

from .jobs import CRASHED, KILLED, Job, Outcome

#: Bytes read from a child's pipe at a time.
_CHUNK = 1 << 16


class Child:
    """A running job: its process, the pipe its record comes through, and
    what has been read of it so far."""

    def __init__(self, job: Job, close_in_child: Sequence[int] = ()):
        """Fork the job's child; it closes ``close_in_child`` (descriptors of
        the parent's that are none of its business: a fork server's pipes)."""
        self.job = job
        self.started = time.perf_counter()
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the child, which never returns
            os.close(read_end)
            for fd in close_in_child:
                _close_quietly(fd)
            _child_body(job, write_end)
        os.close(write_end)
        os.set_blocking(read_end, False)
        self.pid = pid
        self.fd = read_end
        self._data = bytearray()
        self._done = False
        self._exit_status: int | None = None

    def fileno(self) -> int:
        """The pipe's descriptor (so that ``select`` can wait on children)."""
        return self.fd

    @property
    def age(self) -> float:
        """Seconds since the child started."""
        return time.perf_counter() - self.started

    @property
    def overdue(self) -> bool:
        """True when the child has outlived its job's deadline."""
        return self.job.deadline is not None and self.age > self.job.deadline

    def read_available(self) -> bool:
        """Read what the pipe holds without blocking; True once the child
        has closed it (its record is complete, or it died)."""
        while not self._done:
            try:
                chunk = os.read(self.fd, _CHUNK)
            except BlockingIOError:
                return False
            except InterruptedError:
                continue
            if not chunk:
                self._done = True
                break
            self._data += chunk
        return True

    def outcome(self) -> Outcome:
        """The job's outcome, once :meth:`read_available` said it is done:
        its record, or a crash record when the child died without one."""
        self._reap(timeout=5.0)
        wall = round(self.age, 3)
        try:
            record = pickle.loads(bytes(self._data))
        except Exception:  # noqa: BLE001 - a truncated or foreign record: the child died
            record = self.job.failure(CRASHED, None, self._death())
        self._close()
        return Outcome(self.job.key, record, wall)

    def kill(self, status: str = KILLED, stop_reason: str | None = "time",
             error: str | None = None) -> Outcome:
        """Kill the child; the job's outcome is a record of ``status``."""
        wall = round(self.age, 3)
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self._reap(timeout=5.0)
        self._close()
        return Outcome(self.job.key, self.job.failure(status, stop_reason, error), wall)

    def expire(self) -> Outcome:
        """Kill a child that outlived its deadline; its job is recorded as killed."""
        return self.kill(error=f"still running {self.age:.0f} s after it started "
                               f"(its deadline: {self.job.deadline:g} s)")

    def _reap(self, timeout: float) -> None:
        """Collect the child's exit status (waiting up to ``timeout`` s)."""
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
            time.sleep(0.005)

    def _death(self) -> str:
        """How the child ended, in words."""
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

    def _close(self) -> None:
        try:
            os.close(self.fd)
        except OSError:
            pass


def wait_any(children: Sequence[Child], timeout: float) -> list[Child]:
    """The children whose records are complete, waiting up to ``timeout``
    seconds for one of them to say something."""
    if not children:
        return []
    try:
        ready, _, _ = select.select(children, [], [], timeout)
    except InterruptedError:
        ready = []
    return [child for child in ready if child.read_available()]


def run_in_child(job: Job, poll: float = 0.2, close_in_child: Sequence[int] = ()) -> Outcome:
    """Run one job in a child and wait for it, killing it at its deadline
    (``close_in_child``: see :class:`Child`)."""
    child = Child(job, close_in_child)
    try:
        while True:
            if wait_any([child], poll):
                return child.outcome()
            if child.overdue:
                return child.expire()
    except BaseException:
        child.kill()
        raise


def _child_body(job: Job, write_end: int) -> None:  # pragma: no cover - child only
    """Run the job, write its pickled record to the pipe, and leave."""
    code = 0
    try:
        try:
            os.setpgrp()  # Ctrl-C at the terminal goes to the runner only
        except OSError:
            pass
        signal.signal(signal.SIGINT, signal.default_int_handler)
        die_with_parent()
        try:
            record = job.solve(*job.args)
        except BaseException as exc:  # noqa: BLE001 - reported to the runner, never lost
            record = job.failure(CRASHED, None, f"{type(exc).__name__}: {exc}")
        data = pickle.dumps(record)
        view = memoryview(data)
        while view:
            written = os.write(write_end, view)
            view = view[written:]
    except BaseException:  # noqa: BLE001 - the runner sees a child without a record
        code = 1
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _close_quietly(fd: int) -> None:  # pragma: no cover - child only
    try:
        os.close(fd)
    except OSError:
        pass


def die_with_parent() -> None:  # pragma: no cover - runs in children
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
