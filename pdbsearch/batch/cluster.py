"""Running a batch on a Dask cluster (``--dask ADDRESS`` or ``--dask local:N``).

A Dask task carries a *chunk* of jobs: one or several.  The task runs on a
worker as the local runner runs jobs: each job of the chunk in turn in a
job worker process (:mod:`.child`), killed at that job's deadline, so every
job keeps its own limits.  The job worker is forked by the worker thread's
*fork server* (:mod:`.forkserver`): a lean process, started once and warmed
up once (the kernels compiled or loaded), that forks for less CPU than the
Dask worker itself would (a Dask worker's memory makes its forks dear);
without a fork server, the Dask worker forks a child for each job.  Dask
does the scheduling; we only size the chunks, submit, collect and account:

* chunks are sized as the run goes (:class:`ChunkSizer`): Dask costs about
  17 ms of CPU a task (scheduler, worker, client), half as much as a
  Boxoban level, so when levels are short several ride in one task
  of about :data:`TARGET_TASK_SECONDS`; long levels stay one a task; and
  near the end of the run the chunks shrink so that no worker waits idle
  while another works through a large one.  :data:`CHUNK_ENV` (or the
  ``chunk`` argument of :func:`run_dask`) fixes the size instead;
* results stream back as tasks complete (``as_completed``), each job's
  outcome handed on by itself; at most :data:`IN_FLIGHT_PER_THREAD` tasks
  (not jobs) per worker thread are in flight, so a run of 450,000 levels
  does not put them all on the scheduler at once;
* a task whose worker dies is run again on another worker, once: see
  :data:`SCHEDULER_SETTINGS`, which the documentation asks of a scheduler
  started by hand too.  When it dies a second time, a chunk of several jobs
  is split and each of its jobs runs again as a task of its own (so that
  only the job that kills its worker is lost); a task of one job is then
  recorded as failed, with the reason;
* Ctrl-C cancels the tasks and keeps every finished record; every job of
  the chunks in flight is recorded as interrupted.  A chunk already running
  starts no further child once its task is cancelled;
* :data:`.forkserver.FORK_SERVER_ENV` (``0``) on the client makes the
  workers fork the children themselves, as before fork servers.

``dask[distributed]`` is an optional dependency (``pip install ".[dask]"``),
imported only here.
"""

from __future__ import annotations

import logging
import os
import re
import signal
import threading
import uuid
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext

from ..errors import PdbsearchError

try:  # an optional dependency: without it, --dask says what to install
    import distributed
    from distributed.diagnostics.plugin import WorkerPlugin
except ImportError:  # pragma: no cover - the test extra has it
    distributed = None
    WorkerPlugin = object
from ..interrupts import sigint_handler
from .child import run_in_child
from .forkserver import (
    ForkServer,
    ServerLost,
    fork_server_wanted,
    give_up_thread_server,
    thread_server,
)
from .jobs import FAILED, INTERRUPTED, Job, Outcome, WarmUp
from .local import CtrlC

#: Tasks (not jobs) submitted ahead per worker thread: enough that the
#: scheduler always has the next task at hand while results travel back (4
#: left workers idle: 26 ms of wall time a trivial task on two workers,
#: against 11 ms with 16 or more), few enough that a run of 450,000 levels
#: is not all on the scheduler at once.  Counted in tasks because the
#: round trip it hides and the scheduler's load are per task; the jobs in
#: flight are at most :data:`MAX_CHUNK` times as many.
IN_FLIGHT_PER_THREAD = 32

#: Seconds of work a chunked task aims at.  Dask costs about 17 ms of CPU
#: a task (measured: trivial levels on local:2, one a task, against the
#: local runner), so a task of 1 s pays 1.7 % for it (0.5 s: 3.4 %, on a
#: two-core machine where that CPU is taken from the searches); a task of
#: 1 s is still short enough that a worker's death makes little run again
#: and the progress bar moves every second.
TARGET_TASK_SECONDS = 1.0

#: The most jobs in one task: bounds what a worker's death makes run again
#: and a task's size when jobs take next to no time (below 15 ms a job;
#: at 64 a task, Dask's share is under 0.3 ms a job).
MAX_CHUNK = 64

#: Outcomes measured before chunks grow past one job: the mean of fewer is
#: too much at the mercy of one odd level.
MIN_SAMPLES = 8

#: Seconds a job costs a worker beyond its child's lifetime (the loop of
#: the chunk, the job's and the outcome's trips through the fork server's
#: pipes): measured at 0.5 to 0.9 ms of CPU on Boxoban levels; rounded up.
JOB_OVERHEAD_SECONDS = 0.002

#: Seconds to fetch the records of a finished task after Ctrl-C.
READ_AFTER_CTRL_C_SECONDS = 5.0

#: The environment variable that overrides the chunk size: a number of
#: jobs a task (1: one job a task, as before chunks), or ``auto``.
CHUNK_ENV = "PDBSEARCH_DASK_CHUNK"

#: Seconds to wait for a scheduler given by address.
CONNECT_TIMEOUT = 10.0

#: How the schedulers we start are set (docs/distributed.md asks the same of
#: one started by hand): a task whose worker dies runs again once; and each
#: worker holds only the task it runs, so a worker that dies takes no
#: bystander task with it (a task queued on it would count a death too).
SCHEDULER_SETTINGS = {"distributed.scheduler.allowed-failures": 1,
                      "distributed.scheduler.worker-saturation": 1.0}

#: How the workers we start are set: no sampling of their stacks every 10 ms
#: for Dask's profiler (2 % of a core a worker, idle or not; the searches run
#: in child processes the profiler does not see anyway).
WORKER_SETTINGS = {"distributed.worker.profile.enabled": False}

#: How every process of the clusters we start keeps quiet when it has
#: nothing to do: the event-loop watchdog ticks every 500 ms, not every
#: 20 ms; the system monitor samples every 2 s, not 0.5 s; no work
#: stealing (with a worker saturation of 1.0 the tasks wait on the
#: scheduler, not on a worker, so there is nothing to steal).  Measured on
#: an idle local:2 cluster: 1.85 s of CPU in 20 s by default, 0.57 s with
#: these; a cost that a two-core machine otherwise takes from the searches.
QUIET_SETTINGS = {"distributed.admin.tick.interval": "500ms",
                  "distributed.admin.system-monitor.interval": "2s",
                  "distributed.scheduler.work-stealing": False}

#: What the local clusters we start keep set for as long as they run (read
#: when a worker leaves, not when the cluster starts): a local cluster's
#: worker killed by a job is restarted by its nanny, and must not be taken
#: for lost.  Dask's default (15 s) makes the cluster close, for good, the
#: nanny of a worker that left 15 s earlier if that worker happens to be
#: between two restarts just then (killed again and not yet back): two
#: jobs killing their workers a few seconds apart on a loaded machine, and
#: the cluster shrank to one worker, then none, and the batch waited
#: forever (seen in the test suite, tests/test_batch.py).
KEEP_WORKERS_SETTINGS = {"distributed.deploy.lost-worker-timeout": "365 days"}

_LOCAL = re.compile(r"local:(\d{1,4})")

_log = logging.getLogger(__name__)

#: The warm-ups this process (a worker) has done, by name.
_WARMED: set[str] = set()
_WARMING = threading.Lock()


def check_dask_spec(spec: str) -> str:
    """``spec`` if it is ``local:N`` (N >= 1) or a scheduler address, else
    a PdbsearchError saying what is expected."""
    local = _LOCAL.fullmatch(spec)
    if local:
        if int(local.group(1)) < 1:
            raise PdbsearchError(f"--dask {spec}: local:N needs N >= 1 workers")
        return spec
    if spec.startswith("local"):
        raise PdbsearchError(f"--dask {spec}: expected local:N, N a number of workers")
    if not re.fullmatch(r"(tcp|tls|inproc|ucx|ws|wss)://\S+|[\w.\-]+:\d+", spec):
        raise PdbsearchError(f"--dask {spec!r}: expected local:N or a scheduler address "
                             f"such as tcp://host:8786")
    return spec


def _require_distributed() -> None:
    if distributed is None:
        raise PdbsearchError("--dask needs Dask distributed: pip install "
                             "'pdbsearch[dask]' (or 'dask[distributed]')")


def local_workers(spec: str) -> int | None:
    """N for ``local:N``, None for a scheduler's address."""
    local = _LOCAL.fullmatch(spec)
    return int(local.group(1)) if local else None


@contextmanager
def dask_client(spec: str, hold: Callable[[], AbstractContextManager] = nullcontext) -> Iterator:
    """A ``distributed.Client`` for ``spec``: a ``LocalCluster`` of N
    single-threaded worker processes for ``local:N`` (closed at the end),
    else the scheduler at that address.  ``hold()`` wraps the start of a
    local cluster (the runner holds Ctrl-C back until the workers ignore it)."""
    check_dask_spec(spec)
    _require_distributed()
    local = _LOCAL.fullmatch(spec)
    if local:
        yield from _local_client(int(local.group(1)), hold)
        return
    try:
        client = distributed.Client(spec, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError) as exc:
        raise PdbsearchError(f"--dask {spec}: no Dask scheduler answers there "
                             f"({exc})") from None
    try:
        yield client
    finally:
        client.close()


def _local_client(workers: int, hold: Callable[[], AbstractContextManager]) -> Iterator:
    """The body of :func:`dask_client` for ``local:N``: the cluster and its
    client, closed at the end, with :data:`KEEP_WORKERS_SETTINGS` held
    all along."""
    import dask

    with dask.config.set(KEEP_WORKERS_SETTINGS):
        cluster = client = None
        try:
            with dask.config.set({**SCHEDULER_SETTINGS, **WORKER_SETTINGS,
                                  **QUIET_SETTINGS}), hold():
                cluster = distributed.LocalCluster(
                    n_workers=workers, threads_per_worker=1, processes=True,
                    dashboard_address=None, silence_logs=logging.CRITICAL)
                client = distributed.Client(cluster)
                # A Ctrl-C at the terminal reaches every process of its group,
                # and only this one should act on it (cancel, keep the records).
                client.register_plugin(_IgnoreSigint(), name="pdbsearch-ignore-sigint")
            yield client
        finally:
            if client is not None:
                client.close()
            if cluster is not None:
                cluster.close()


class _IgnoreSigint(WorkerPlugin):
    """A worker plugin: the worker ignores SIGINT (Ctrl-C is the client's)."""

    def setup(self, worker) -> None:
        """Runs in the worker's event loop, its main thread."""
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.SIG_IGN)

    def teardown(self, worker) -> None:
        """Nothing to undo."""


def run_chunk_on_worker(jobs: Sequence[Job], warm_up: WarmUp | None,
                        fork_server: bool = True) -> list[Outcome]:
    """The body of a task: run the chunk's jobs one after another, each in
    a child killed at its own deadline (as the local runner does), forked
    by this thread's fork server, or by the worker itself when
    ``fork_server`` is False (or no server works here); whichever forks
    warms up first, once.  Once the task is cancelled (Ctrl-C), the jobs
    not started yet are left out: nobody awaits them."""
    outcomes = []
    for job in jobs:
        if outcomes and _cancelled():
            break
        outcomes.append(_run_job(job, warm_up, fork_server))
    return outcomes


def _run_job(job: Job, warm_up: WarmUp | None, fork_server: bool) -> Outcome:
    """One job of a chunk, in the job worker of this thread's fork server (a
    new server if the last died under its job), else in a child of the
    Dask worker."""
    server = _warm_server(warm_up) if fork_server else None
    if server is None:
        _warm(warm_up)
        return run_in_child(job)
    return server.run(job)


def _warm_server(warm_up: WarmUp | None) -> ForkServer | None:
    """This thread's fork server, warmed up with ``warm_up``; None when no
    server starts or warms up here (the worker then forks its jobs itself:
    a run goes on without the server, only dearer).  A warm-up that raises
    fails the task, as it does in the worker."""
    server = thread_server()
    if server is None:
        return None
    try:
        server.warm(warm_up)
    except ServerLost as lost:
        _log.warning("the fork server failed to warm up (%s): this worker thread "
                     "forks its jobs itself from now on", lost.args[1])
        give_up_thread_server()
        return None
    return server


def _cancelled() -> bool:
    """True when the task this worker thread runs has been cancelled.

    Dask cannot stop a running task, so a chunk asks between its jobs; the
    worker's own record of the task says it (a best effort: the state is
    the worker's, read from the task's thread, and any surprise counts as
    not cancelled, which only means running on as before)."""
    try:
        from distributed.worker import get_worker, thread_state
        task = get_worker().state.tasks.get(thread_state.key)
        return task is not None and task.state == "cancelled"
    except Exception:  # noqa: BLE001 - not on a worker, or another Dask: run on
        return False


def _warm(warm_up: WarmUp | None) -> None:
    """Do ``warm_up`` unless this process has done it already."""
    if warm_up is None:
        return
    with _WARMING:  # a worker with several threads warms up once
        if warm_up.name not in _WARMED:
            warm_up.run(*warm_up.args)
            _WARMED.add(warm_up.name)


def chunk_size(mean_seconds: float | None, remaining: int, threads: int,
               target: float = TARGET_TASK_SECONDS, cap: int = MAX_CHUNK) -> int:
    """Jobs in the next task: as many as fill ``target`` seconds at
    ``mean_seconds`` a job (None: not known yet, one job), at most ``cap``,
    and at most a half of the ``remaining`` jobs' share of each of the
    ``threads`` worker threads, so that near the end of the run the last
    tasks are small and no worker waits idle while another works through a
    large one.  Never less than one."""
    if mean_seconds is None:
        return 1
    by_time = int(target / (max(0.0, mean_seconds) + JOB_OVERHEAD_SECONDS))
    by_tail = remaining // (2 * max(1, threads))
    return max(1, min(cap, by_time, by_tail))


class ChunkSizer:
    """The size of each new chunk, from the outcomes seen so far: the mean
    seconds of a job, once :data:`MIN_SAMPLES` outcomes are in (see
    :func:`chunk_size`); or ``fixed`` jobs a task when the user chose it."""

    def __init__(self, threads: int, fixed: int | None = None):
        self.threads = threads
        self.fixed = fixed
        self._seconds = 0.0
        self._count = 0

    def observe(self, outcome: Outcome) -> None:
        """Count one job's seconds; a job that never had a child (its
        worker lost, interrupted) says nothing of how long jobs take."""
        if outcome.wall_seconds > 0:
            self._seconds += outcome.wall_seconds
            self._count += 1

    @property
    def mean_seconds(self) -> float | None:
        """The mean seconds of a job, None until enough are measured."""
        return self._seconds / self._count if self._count >= MIN_SAMPLES else None

    def next_size(self, remaining: int) -> int:
        """Jobs in the next task, ``remaining`` jobs being left to submit."""
        if self.fixed is not None:
            return self.fixed
        return chunk_size(self.mean_seconds, remaining, self.threads)


def chunk_override(chunk: int | None = None) -> int | None:
    """The chunk size the caller or the environment (:data:`CHUNK_ENV`)
    fixes, None for adaptive chunks; a PdbsearchError for a bad value."""
    if chunk is not None:
        if chunk < 1:
            raise PdbsearchError(f"a Dask chunk needs at least 1 job, not {chunk}")
        return chunk
    value = os.environ.get(CHUNK_ENV, "").strip()
    if value in ("", "auto"):
        return None
    if not value.isdigit() or int(value) < 1:
        raise PdbsearchError(f"{CHUNK_ENV}={value!r}: expected a number of jobs "
                             f"a task (1 or more) or 'auto'")
    return int(value)


def run_dask(jobs: Sequence[Job], spec: str, on_outcome: Callable[[Outcome], None],
             warm_up: WarmUp | None = None, chunk: int | None = None) -> bool:
    """Run ``jobs`` as Dask tasks on ``spec``'s cluster; ``on_outcome`` hears
    each job's outcome as it completes.  ``chunk`` fixes the jobs a task
    (default: :data:`CHUNK_ENV`, else sized as the run goes).  Returns True
    when Ctrl-C stopped the run (the tasks are cancelled; the jobs in flight
    are reported as interrupted, those never submitted are not reported)."""
    if not jobs:
        return False
    fixed = chunk_override(chunk)
    ctrl_c = CtrlC()
    with sigint_handler(ctrl_c.handler), _quiet_library_logs():
        try:
            if warm_up is not None and _LOCAL.fullmatch(spec):
                # Compiled here once, the kernels go to numba's disk cache,
                # where this machine's workers find them instead of each
                # compiling its own.
                _warm(warm_up)
            with dask_client(spec, hold=ctrl_c.held) as client:
                return _drive(client, jobs, on_outcome, warm_up, ctrl_c, fixed)
        except KeyboardInterrupt:
            return True


@contextmanager
def _quiet_library_logs() -> Iterator[None]:
    """Dask's and tornado's own error logs kept off the terminal while a
    batch runs here.  A Ctrl-C interrupts Dask's calls wherever they are,
    and the loop thread then logs the broken callback with a traceback
    (tornado.application), as a worker logs its lost heartbeat when the
    scheduler closes first: noise after "interrupted", not news.  What
    matters comes back through the tasks' results and becomes records."""
    loggers = [logging.getLogger(name) for name in ("tornado.application", "distributed")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels):
            lg.setLevel(level)


def _drive(client, jobs: Sequence[Job], on_outcome: Callable[[Outcome], None],
           warm_up: WarmUp | None, ctrl_c: CtrlC, fixed: int | None = None) -> bool:
    """Submit the jobs a few chunks at a time and hand on their outcomes."""
    from distributed import as_completed

    threads = max(1, sum(client.nthreads().values()))
    fork_server = fork_server_wanted()   # one choice for the run, whatever the workers' settings
    if warm_up is not None:
        # Sent to each worker once, not with every task: 3,332 tasks each
        # pickling it kept this process busier than the workers (when a
        # warm-up carried the whole collection; now only the levels it uses).
        warm_up = client.scatter(warm_up, broadcast=True, hash=False)
    sizer = ChunkSizer(threads, fixed)
    window = IN_FLIGHT_PER_THREAD * threads
    pending = deque(enumerate(jobs))
    alone: deque = deque()   # (index, job) of split chunks: one a task, first
    run = uuid.uuid4().hex[:8]   # task keys unique to this run
    tasks = 0
    in_flight: dict = {}   # future -> the jobs of its chunk
    done = as_completed()

    def submit_more() -> None:
        nonlocal tasks
        while len(in_flight) < window and (alone or pending):
            if alone:
                chunk = [alone.popleft()]
            else:
                size = sizer.next_size(len(pending))
                chunk = [pending.popleft() for _ in range(min(size, len(pending)))]
            key = f"pdbsearch-{run}-{tasks}-jobs-{chunk[0][0]}-{chunk[-1][0]}"
            future = client.submit(run_chunk_on_worker, [job for _, job in chunk], warm_up,
                                   fork_server, pure=False, key=key)
            tasks += 1
            _log.debug("%s: %d job(s)", key, len(chunk))
            in_flight[future] = chunk
            done.add(future)

    try:
        with ctrl_c.held():   # a task submitted is one kept track of
            submit_more()
        for future in done:
            ctrl_c.check()
            chunk = in_flight[future]
            outcomes = _outcomes(future, [job for _, job in chunk])
            with ctrl_c.held():
                # The chunk leaves the books only with all its outcomes
                # handed on: a Ctrl-C meanwhile waits, and loses none.
                del in_flight[future]
                if outcomes is None:   # its worker died twice: each job alone
                    alone.extend(chunk)
                else:
                    for outcome in outcomes:
                        sizer.observe(outcome)
                        on_outcome(outcome)
                submit_more()
    except KeyboardInterrupt:
        # A chunk that finished but was not read yet (Ctrl-C came between
        # its end and its turn) keeps its records; the others are cancelled
        # and their jobs recorded as interrupted.
        finished = {f for f in in_flight if f.status == "finished"}
        client.cancel([f for f in in_flight if f not in finished])
        for future, chunk in in_flight.items():
            jobs_of_chunk = [job for _, job in chunk]
            outcomes = _read_finished(future, jobs_of_chunk) if future in finished else None
            if outcomes is None:
                outcomes = _failures(jobs_of_chunk, INTERRUPTED, "interrupted")
            for outcome in outcomes:
                on_outcome(outcome)
        return True
    return False


def _read_finished(future, jobs: list[Job]) -> list[Outcome] | None:
    """The outcomes of a task that finished, read after Ctrl-C; None when
    they cannot be had at once (a second Ctrl-C, a worker gone)."""
    try:
        outcomes = future.result(timeout=READ_AFTER_CTRL_C_SECONDS)
    except (Exception, KeyboardInterrupt):  # noqa: BLE001 - the jobs count as interrupted
        return None
    return outcomes + _failures(jobs[len(outcomes):], INTERRUPTED, "interrupted")


def _outcomes(future, jobs: list[Job]) -> list[Outcome] | None:
    """The outcomes of a finished task's ``jobs``; the failure records when
    the task raised or was cancelled, or when its worker died twice under a
    single job; None when its worker died twice under a chunk of several
    (which of them killed it is unknown: each must run alone)."""
    from distributed.client import FutureCancelledError
    from distributed.scheduler import KilledWorker

    try:
        outcomes = future.result()
        # A chunk stops early only once its task is cancelled (Ctrl-C): the
        # jobs it left out were interrupted before they started.
        return outcomes + _failures(jobs[len(outcomes):], INTERRUPTED, "interrupted")
    except KilledWorker as exc:
        if len(jobs) > 1:
            return None
        status, reason, error = FAILED, "worker lost", \
            f"worker lost: its worker died twice ({exc})"
    except FutureCancelledError:
        status, reason, error = INTERRUPTED, "interrupted", None
    except Exception as exc:  # noqa: BLE001 - the task raised: a bug, kept as a record
        status, reason, error = FAILED, None, \
            f"the task failed: {type(exc).__name__}: {exc}"
    return _failures(jobs, status, reason, error)


def _failures(jobs: Sequence[Job], status: str, reason: str | None,
              error: str | None = None) -> list[Outcome]:
    """The outcome of each of ``jobs`` when none ran to its end: its failure
    record of ``status`` (see :class:`.jobs.Job`)."""
    return [Outcome(job.key, job.failure(status, reason, error)) for job in jobs]
