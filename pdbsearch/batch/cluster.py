"""Running a batch on a Dask cluster (``--dask ADDRESS`` or ``--dask local:N``).

Each job is one Dask task.  The task runs on a worker exactly as the local
runner runs a job: the worker warms up once (compiles or loads the kernels),
then forks a child for the job and kills it at its deadline.  Dask does the
scheduling; we only submit, collect and account:

* results stream back as they complete (``as_completed``); at most a few
  tasks per worker thread are in flight, so a run of 450,000 levels does
  not put 450,000 tasks on the scheduler at once;
* a task whose worker dies is run again on another worker, once: see
  :data:`SCHEDULER_SETTINGS`, which the documentation asks of a scheduler
  started by hand too; when it dies a second time the job is recorded as
  failed, with the reason;
* Ctrl-C cancels the tasks and keeps every finished record.

``dask[distributed]`` is an optional dependency (``pip install ".[dask]"``),
imported only here.
"""

from __future__ import annotations

import logging
import re
import signal
import threading
import uuid
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
from .jobs import FAILED, INTERRUPTED, Job, Outcome, WarmUp
from .local import CtrlC

#: Tasks submitted ahead per worker thread: enough that the scheduler always
#: has the next task at hand while results travel back (4 left workers idle:
#: 26 ms of wall time a trivial task on two workers, against 11 ms with 16
#: or more), few enough that a run of 450,000 levels is not all on the
#: scheduler at once.
IN_FLIGHT_PER_THREAD = 32

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

_LOCAL = re.compile(r"local:(\d{1,4})")

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
    import dask

    local = _LOCAL.fullmatch(spec)
    if local:
        cluster = client = None
        try:
            with dask.config.set({**SCHEDULER_SETTINGS, **WORKER_SETTINGS}), hold():
                cluster = distributed.LocalCluster(
                    n_workers=int(local.group(1)), threads_per_worker=1, processes=True,
                    dashboard_address=None, silence_logs=logging.ERROR)
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


class _IgnoreSigint(WorkerPlugin):
    """A worker plugin: the worker ignores SIGINT (Ctrl-C is the client's)."""

    def setup(self, worker) -> None:
        """Runs in the worker's event loop, its main thread."""
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.SIG_IGN)

    def teardown(self, worker) -> None:
        """Nothing to undo."""


def run_job_on_worker(job: Job, warm_up: WarmUp | None) -> Outcome:
    """The body of a task: warm this worker up once, then run the job in a
    child of the worker, killed at its deadline (as the local runner does)."""
    _warm(warm_up)
    return run_in_child(job)


def _warm(warm_up: WarmUp | None) -> None:
    """Do ``warm_up`` unless this process has done it already."""
    if warm_up is None:
        return
    with _WARMING:  # a worker with several threads warms up once
        if warm_up.name not in _WARMED:
            warm_up.run(*warm_up.args)
            _WARMED.add(warm_up.name)


def run_dask(jobs: Sequence[Job], spec: str, on_outcome: Callable[[Outcome], None],
             warm_up: WarmUp | None = None) -> bool:
    """Run ``jobs`` as Dask tasks on ``spec``'s cluster; ``on_outcome`` hears
    each job's outcome as it completes.  Returns True when Ctrl-C stopped
    the run (the tasks are cancelled; the jobs in flight are reported as
    interrupted, those never submitted are not reported)."""
    if not jobs:
        return False
    ctrl_c = CtrlC()
    with sigint_handler(ctrl_c.handler):
        try:
            if warm_up is not None and _LOCAL.fullmatch(spec):
                # Compiled here once, the kernels go to numba's disk cache,
                # where this machine's workers find them instead of each
                # compiling its own.
                _warm(warm_up)
            with dask_client(spec, hold=ctrl_c.held) as client:
                return _drive(client, jobs, on_outcome, warm_up, ctrl_c)
        except KeyboardInterrupt:
            return True


def _drive(client, jobs: Sequence[Job], on_outcome: Callable[[Outcome], None],
           warm_up: WarmUp | None, ctrl_c: CtrlC) -> bool:
    """Submit the jobs a few at a time and hand on their outcomes."""
    from distributed import as_completed
    from distributed.client import FutureCancelledError
    from distributed.scheduler import KilledWorker

    threads = max(1, sum(client.nthreads().values()))
    if warm_up is not None:
        # Sent to each worker once, not with every task: a warm-up may carry
        # much (the levels of the run to choose from), and 3,332 tasks each
        # pickling it kept this process busier than the workers.
        warm_up = client.scatter(warm_up, broadcast=True, hash=False)
    window = IN_FLIGHT_PER_THREAD * threads
    pending = iter(enumerate(jobs))
    run = uuid.uuid4().hex[:8]   # task keys unique to this run
    in_flight: dict = {}   # future -> job
    done = as_completed()

    def submit_more() -> None:
        while len(in_flight) < window:
            index, job = next(pending, (None, None))
            if job is None:
                return
            future = client.submit(run_job_on_worker, job, warm_up, pure=False,
                                   key=f"pdbsearch-{run}-{index}")
            in_flight[future] = job
            done.add(future)

    try:
        submit_more()
        for future in done:
            ctrl_c.check()
            job = in_flight.pop(future)
            try:
                outcome = future.result()
            except KilledWorker as exc:
                outcome = Outcome(job.key, job.failure(
                    FAILED, "worker lost", f"worker lost: its worker died twice ({exc})"))
            except FutureCancelledError:
                outcome = Outcome(job.key, job.failure(INTERRUPTED, "interrupted"))
            except Exception as exc:  # noqa: BLE001 - the task raised: a bug, kept as a record
                outcome = Outcome(job.key, job.failure(
                    FAILED, None, f"the task failed: {type(exc).__name__}: {exc}"))
            on_outcome(outcome)
            submit_more()
    except KeyboardInterrupt:
        client.cancel(list(in_flight))
        for job in in_flight.values():
            on_outcome(Outcome(job.key, job.failure(INTERRUPTED, "interrupted")))
        return True
    return False
