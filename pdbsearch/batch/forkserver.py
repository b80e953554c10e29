"""A lean process that forks a Dask worker's job workers: the fork server.

A fork costs more the more memory the forking process holds: the kernel
copies its page tables into the child and tears them down when the child
ends, and the child copies on write every page it touches (measured: 30 MB
more in a plain parent made each fork and exit some 3 ms dearer).  A Dask
worker holds Dask, tornado and the scattered warm-up besides our kernels
(125 to 145 MB of anonymous memory on Boxoban hard, against 90 MB for a
process that holds only pdbsearch), and a Boxoban level forked from it
cost about 9 ms more CPU (3 ms in the worker, 6 ms in the child) than one
forked from a plain process.  The worker's activity (its event loop and
threads) is not what costs: a server *forked from the worker* inherits
its memory and saved nothing (measured).  So the server is a fresh
interpreter, started once per worker thread, which imports only what the
jobs need, warms up, and forks the worker process that runs the jobs
(:mod:`.child`), as the local runner does (measured on chunks of 100
Boxoban levels, the same worker alternating, when each job had a child of
its own: 33 to 38 ms of CPU a level, against 39 to 44 ms when the worker
forks).  Its job worker runs one job after another, as the local runner's
do, and is kept from chunk to chunk.  Its price: one more
process per worker thread, with its own copy of the kernels (about 90 MB
of memory of its own, and the warm-up the worker no longer does).

The worker and its server speak through two pipes, one message at a time:
the worker sends a warm-up or a job and waits for the answer (the job's
outcome).  So the worker still decides, between jobs, whether to start the
next one (a cancelled task starts no further job), and every outcome is
the worker's as soon as its job ends.

* **Limits.** The server kills the job worker at a job's deadline, exactly
  as the local runner does; the search enforces its own time and memory limits.
* **Deaths.** The server dies with the thread of the worker that started it
  (Linux's parent-death signal; elsewhere, at the end of its pipe once its
  job is done), and its job worker dies with the server: a worker that
  dies leaves no process behind.  A server that dies while a job runs
  (killed from outside) costs that job only: it is recorded as crashed,
  and the next job starts a new server.  A server that does not answer
  well past its job's deadline is killed, and the job recorded as killed.
* **Switching it off.** The client decides (:data:`FORK_SERVER_ENV`), so
  that a run's workers all do the same; off, the worker forks a child for
  each job itself.  A worker thread whose server cannot start or warm up
  does the same, with a warning in the worker's log.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import pickle
import select
import signal
import subprocess
import sys
import threading
import time

from .child import die_with_parent, run_job
from .jobs import CRASHED, KILLED, Job, Outcome, WarmUp
from .messages import receive as _receive
from .messages import send as _send

#: The client's environment variable that switches the fork server off
#: (``0``) or on (``1``, the default).
FORK_SERVER_ENV = "PDBSEARCH_DASK_FORK_SERVER"

#: Seconds a worker waits for its server beyond a job's deadline before it
#: deems the server stuck: the server itself kills the job worker at the
#: deadline and reaps it within seconds; this only catches a server that
#: stopped answering.
SERVER_GRACE_SECONDS = 30.0

#: Seconds a worker waits for a new server to start and answer its first
#: message (the warm-up: importing numba and loading the kernels from its
#: disk cache, or compiling them on a machine's first run).
START_TIMEOUT_SECONDS = 600.0

#: How the worker passes its ``sys.path`` to the server: the jobs' functions
#: must import there as they do in the worker (a test module, a script's
#: folder).
_PATH_ENV = "PDBSEARCH_FORK_SERVER_PATH"

#: The server's first lines: the worker's import path, then the server loop.
_BOOT = ("import json, os, sys; "
         f"sys.path[:] = json.loads(os.environ.pop({_PATH_ENV!r})); "
         "from pdbsearch.batch.forkserver import serve; "
         "serve(*map(int, sys.argv[1:]))")

_log = logging.getLogger(__name__)


def fork_server_wanted() -> bool:
    """Whether this client's runs use fork servers (:data:`FORK_SERVER_ENV`)."""
    return os.environ.get(FORK_SERVER_ENV, "1").strip().lower() not in ("0", "no", "off", "false")


class ServerLost(Exception):
    """The fork server died or stopped answering."""


class ForkServer:
    """The worker's side of one fork server: its process and two pipes.

    :meth:`run` runs a job and returns its outcome, whatever happens to the
    server; :meth:`warm` passes on a warm-up the server has not done yet."""

    def __init__(self):
        requests_read, self._requests = os.pipe()
        self._replies, replies_write = os.pipe()
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-c", _BOOT, str(requests_read), str(replies_write),
                 str(os.getpid())],
                pass_fds=(requests_read, replies_write), stdin=subprocess.DEVNULL,
                env={**os.environ, _PATH_ENV: json.dumps(sys.path)})
        except BaseException:
            for fd in (requests_read, replies_write, self._requests, self._replies):
                os.close(fd)
            raise
        os.close(requests_read)
        os.close(replies_write)
        self._warmed: set[str] = set()
        self._closed = False

    @property
    def pid(self) -> int:
        """The server's process id."""
        return self.process.pid

    def alive(self) -> bool:
        """True while the server process runs."""
        return self.process.poll() is None

    def warm(self, warm_up: WarmUp | None, timeout: float = START_TIMEOUT_SECONDS) -> None:
        """Have the server do ``warm_up`` unless it did already; raises
        RuntimeError when the warm-up raised there, ServerLost when the
        server died or did not answer within ``timeout`` seconds."""
        if warm_up is None or warm_up.name in self._warmed:
            return
        kind, payload = self._ask("warm", warm_up, timeout)
        if kind == "error":
            raise RuntimeError(f"the warm-up failed in the fork server: {payload}")
        self._warmed.add(warm_up.name)

    def run(self, job: Job) -> Outcome:
        """Run ``job`` in the server's job worker and return its outcome: the
        job's own; a crash record when the server died under it; a killed
        record when the server stopped answering (it is then killed)."""
        started = time.perf_counter()
        timeout = None if job.deadline is None else job.deadline + SERVER_GRACE_SECONDS
        try:
            kind, payload = self._ask("job", job, timeout)
        except ServerLost as lost:
            wall = round(time.perf_counter() - started, 3)
            self.close()
            status = KILLED if lost.args[0] == "timeout" else CRASHED
            return Outcome(job.key, job.failure(status, "time" if status == KILLED else None,
                                                lost.args[1]), wall)
        except BaseException:
            self.close()   # the server takes its job worker with it
            raise
        if kind == "error":   # the job did not reach the job worker (it did not unpickle)
            return Outcome(job.key, job.failure(CRASHED, None, f"fork server: {payload}"))
        return payload

    def close(self) -> None:
        """End the server (and its job worker, which dies with it)."""
        with _OPEN_LOCK:
            _OPEN.discard(self)
        if self._closed:   # closed once: the descriptors' numbers may be another's now
            return
        self._closed = True
        for fd in (self._requests, self._replies):
            os.close(fd)
        try:   # an idle server leaves at the end of its pipe
            self.process.wait(timeout=1.0)
        except subprocess.TimeoutExpired:   # a busy one is killed, and its job worker with it
            self.process.kill()
            self.process.wait()

    def _ask(self, kind: str, obj, timeout: float | None) -> tuple[str, object]:
        """Send one message, return the answer; ServerLost("timeout" or
        "died", why) when there is none."""
        try:
            _send(self._requests, (kind, _dumps(obj)))
        except OSError as exc:
            raise ServerLost("died", self._death(f"its pipe broke: {exc}")) from None
        end = None if timeout is None else time.monotonic() + timeout
        while True:
            left = None if end is None else max(0.0, end - time.monotonic())
            try:
                ready, _, _ = select.select([self._replies], [], [], left)
            except InterruptedError:
                continue
            if ready:
                break
            if end is not None and time.monotonic() >= end:
                raise ServerLost("timeout", f"the fork server did not answer within "
                                            f"{timeout:g} s: killed")
        message = _receive(self._replies)
        if message is None:
            raise ServerLost("died", self._death("it closed its pipe"))
        return message

    def _death(self, fallback: str) -> str:
        """How the server ended, in words."""
        try:
            code = self.process.wait(timeout=5.0)
        except subprocess.TimeoutExpired:
            return f"the fork server stopped answering ({fallback})"
        if code < 0:
            name = signal.Signals(-code).name if -code in signal.Signals.__members__.values() \
                else str(-code)
            return f"the fork server was killed by {name} while the job ran"
        return f"the fork server died (exit code {code}) while the job ran"


# -- a server for each worker thread ------------------------------------------------

_SERVERS = threading.local()

#: Every server this process started and has not closed: closed when the
#: process exits, so that each server ends as the worker's waited-for child
#: (its CPU, and its children's, then count in the worker's ``getrusage``
#: of children, as the benchmarks measure; a server killed by the
#: parent-death signal is reaped by init, its CPU lost to the count).
_OPEN: set[ForkServer] = set()
_OPEN_LOCK = threading.Lock()


def thread_server() -> ForkServer | None:
    """This thread's fork server, started if it has none or its own died;
    None when no server can start here, or one failed to (see
    :func:`give_up_thread_server`): the worker then forks itself."""
    if getattr(_SERVERS, "given_up", False):
        return None
    server = getattr(_SERVERS, "server", None)
    if server is not None and server.alive():
        return server
    if server is not None:
        server.close()
    try:
        server = ForkServer()
    except OSError as exc:
        _log.warning("no fork server (%s): this worker thread forks its jobs itself", exc)
        give_up_thread_server()
        return None
    with _OPEN_LOCK:
        _OPEN.add(server)
    _SERVERS.server = server
    return server


def close_all_servers() -> None:
    """End every fork server this process started (at its exit)."""
    with _OPEN_LOCK:
        servers = list(_OPEN)
    for server in servers:
        server.close()


atexit.register(close_all_servers)


def close_thread_server() -> None:
    """End this thread's fork server, if it has one (the next job starts
    another)."""
    server = getattr(_SERVERS, "server", None)
    if server is not None:
        server.close()
        _SERVERS.server = None


def give_up_thread_server() -> None:
    """End this thread's fork server and start no other: one that cannot
    start or warm up once would cost a new interpreter a job."""
    close_thread_server()
    _SERVERS.given_up = True


# -- the server ---------------------------------------------------------------------


def serve(requests: int, replies: int, parent: int) -> None:  # pragma: no cover - server only
    """The server's loop: warm up or run a job for each message, answer
    each one, and leave when the worker closes the pipe or dies."""
    die_with_parent()
    if os.getppid() != parent:   # the worker died before the line above
        return
    # Ctrl-C is the client's to act on, and a worker's death ends us anyway.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    warmed: set[str] = set()
    worker = None   # the jobs' worker process, kept from job to job (see .child)
    while True:
        message = _receive(requests)
        if message is None:
            if worker is not None:
                worker.close()
            return
        kind, payload = message
        try:
            obj = pickle.loads(payload)
        except Exception as exc:  # noqa: BLE001 - told to the worker, which records it
            _send(replies, ("error", f"{type(exc).__name__}: {exc}"))
            continue
        del payload
        if kind == "warm":
            fresh = obj.name not in warmed
            _send(replies, _warm(obj, warmed))
            if fresh and worker is not None:
                # Forked before this warm-up, it lacks what it loaded: the
                # next job gets a worker forked after it.
                worker.close()
                worker = None
        else:
            outcome, worker = run_job(obj, worker, close_in_child=(requests, replies))
            _send(replies, ("outcome", outcome))
        del obj   # a warm-up may carry a whole collection: not kept, so not forked


def _warm(warm_up: WarmUp, warmed: set[str]) -> tuple[str, object]:  # pragma: no cover
    """Do ``warm_up`` once; the answer to send back."""
    if warm_up.name not in warmed:
        try:
            warm_up.run(*warm_up.args)
        except BaseException as exc:  # noqa: BLE001 - the task fails in the worker
            return "error", f"{type(exc).__name__}: {exc}"
        warmed.add(warm_up.name)
    return "warmed", None


# -- what the worker sends: a job or a warm-up, pickled as Dask would ----------------


def _dumps(obj) -> bytes:
    """``obj`` pickled as Dask pickles a task's arguments (cloudpickle: a
    function of a script's ``__main__`` travels by value)."""
    try:
        import cloudpickle
    except ImportError:  # pragma: no cover - distributed brings it
        return pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    return cloudpickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
