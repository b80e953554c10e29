"""Batches of jobs: the local runner and a real Dask cluster (issue 13).

The Dask tests run a real ``LocalCluster`` of worker processes: the same
levels give the same records as the local runner, one job a task or
several (chunks), a worker killed in the middle of a task loses no record
(the task runs again on another worker, once; a chunk whose worker dies
twice runs again a job a task), Ctrl-C keeps every finished record, and a
run resumes from its JSON.
"""

from __future__ import annotations

import gc
import json
import logging
import mmap
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from pdbsearch.batch import (
    CRASHED,
    FAILED,
    INTERRUPTED,
    KILLED,
    Job,
    Outcome,
    forkserver,
    run_batch,
)
from pdbsearch.batch import child as child_module
from pdbsearch.batch.child import run_job
from pdbsearch.batch.cluster import (
    CHUNK_ENV,
    JOB_OVERHEAD_SECONDS,
    MAX_CHUNK,
    MIN_SAMPLES,
    TARGET_TASK_SECONDS,
    ChunkSizer,
    _drive,
    chunk_override,
    chunk_size,
)
from pdbsearch.batch.forkserver import (
    FORK_SERVER_ENV,
    ForkServer,
    close_thread_server,
    fork_server_wanted,
)
from pdbsearch.batch.jobs import WarmUp
from pdbsearch.batch.local import CtrlC
from pdbsearch.cli import main
from pdbsearch.errors import PdbsearchError

MICROBAN = "puzzles/sokoban/microban.txt"
#: The Sokoban runs here are under the moves metric: A* alone, without the
#: fast solver it takes a bound from under the pushes metric, whose compile
#: (minutes on a cold cache) these tests of the batch machinery do not need
#: (tests/sokoban/test_incumbent.py tests that path).
MOVES = ("--metric", "moves")


def failure(status, stop_reason, error):
    """The record of a test job that did not end by itself."""
    return {"status": status, "stop_reason": stop_reason, "error": error}


def sleep_then(seconds: float, value):
    """A job body: sleep, then return ``value``."""
    time.sleep(seconds)
    return {"status": "done", "value": value, "pid": os.getpid()}


def raise_error():
    """A job body that raises."""
    raise ValueError("bad job")


def exit_abruptly():
    """A job body whose process dies without a record."""
    os._exit(7)


def parent_of(pid: int) -> int:
    """The parent of process ``pid`` (Linux)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat.rsplit(")", 1)[1].split()[1])


def chunk_runner() -> tuple[int, int | None]:
    """The Dask worker that runs this job's chunk, and the fork server
    between them (None when the worker forked this child itself)."""
    parent = os.getppid()
    if b"pdbsearch.batch.forkserver" in Path(f"/proc/{parent}/cmdline").read_bytes():
        return parent_of(parent), parent
    return parent, None


def gone(pid: int) -> bool:
    """True when process ``pid`` has ended (a zombie nobody reaps counts)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (FileNotFoundError, ProcessLookupError):
        return True


def kill_my_worker(marker: str, always: bool):
    """A job body that kills the Dask worker running it the first time, or
    every time when ``always``; the marker keeps the pids of this child, its
    fork server and its worker."""
    if always or not os.path.exists(marker):
        worker, server = chunk_runner()
        Path(marker).write_text(json.dumps([os.getpid(), server, worker]))
        os.kill(worker, signal.SIGKILL)
        time.sleep(60)
    return {"status": "done", "value": "after a retry", "pid": os.getpid()}


def kill_my_parent():
    """A job body that kills the process that forked it (a fork server)."""
    os.kill(os.getppid(), signal.SIGKILL)
    time.sleep(60)


def stop_my_parent(marker: str):
    """A job body that stops the process that forked it (a fork server that
    no longer answers); the marker keeps this child's pid."""
    Path(marker).write_text(str(os.getpid()))
    os.kill(os.getppid(), signal.SIGSTOP)
    time.sleep(60)


def my_parent():
    """A job body: the pid of the process that forked it."""
    return {"status": "done", "ppid": os.getppid()}


def count_warm_up(path: str):
    """A warm-up that counts its runs in a file."""
    with open(path, "a") as f:
        f.write("x")


def failing_warm_up():
    """A warm-up that raises."""
    raise ValueError("no kernels")


def mark_then_sleep(folder: str, name: str, seconds: float):
    """A job body: leave a file named ``name`` in ``folder``, then sleep."""
    Path(folder, name).write_text("started")
    time.sleep(seconds)
    return {"status": "done", "value": name}


def every_way_a_job_ends() -> list[Job]:
    """Jobs that end in each way: a record, the deadline, an exception, a
    death without a record."""
    return [Job("ok", sleep_then, (0.0, 42), failure),
            Job("slow", sleep_then, (30.0, 0), failure, deadline=0.5),
            Job("raises", raise_error, (), failure),
            Job("dies", exit_abruptly, (), failure)]


def run(jobs, **where) -> dict:
    """Run a batch; the outcomes by key."""
    outcomes: dict = {}

    def take(outcome: Outcome) -> None:
        assert outcome.key not in outcomes
        outcomes[outcome.key] = outcome

    assert run_batch(jobs, take, **where) is False
    return outcomes


# -- the local runner ---------------------------------------------------------------


def test_local_runner_records_every_way_a_job_ends():
    jobs = every_way_a_job_ends()
    started = time.perf_counter()
    outcomes = run(jobs, workers=4)
    assert time.perf_counter() - started < 10   # the slow one was killed, not waited for
    assert outcomes["ok"].record["value"] == 42
    assert outcomes["ok"].record["pid"] != os.getpid()   # in a child
    assert outcomes["slow"].record["status"] == KILLED
    assert outcomes["slow"].wall_seconds >= 0.5
    assert outcomes["raises"].record == failure(CRASHED, None, "ValueError: bad job")
    assert outcomes["dies"].record["status"] == CRASHED
    assert "exit code 7" in outcomes["dies"].record["error"]


def test_a_large_record_comes_through_the_pipe():
    big = "x" * 1_000_000   # far more than a pipe holds: read while the child writes
    outcomes = run([Job(1, sleep_then, (0.0, big), failure)], workers=1)
    assert outcomes[1].record["value"] == big


_HELD: list = []


def hold_memory(megabytes: int):
    """A job body that keeps ``megabytes`` of memory after it returns,
    freshly mapped: an array could reuse memory that the process (or the
    parent it was forked from) freed but still holds, and the resident set
    would not grow (in the full suite, 192 MiB of ``np.ones`` once left a
    worker at 1,062 MiB, as before)."""
    block = mmap.mmap(-1, megabytes << 20)
    np.frombuffer(block, np.uint8)[:] = 1   # touched: resident
    _HELD.append(block)
    return {"status": "done", "pid": os.getpid()}


def my_pid():
    """A job body: the pid of the process it runs in."""
    return {"status": "done", "pid": os.getpid()}


def test_one_worker_runs_jobs_one_after_another_until_one_goes_wrong():
    jobs = [Job(1, my_pid, (), failure), Job(2, my_pid, (), failure),
            Job("raises", raise_error, (), failure), Job(3, my_pid, (), failure),
            Job("slow", sleep_then, (30.0, 0), failure, deadline=0.3),
            Job(4, my_pid, (), failure), Job("dies", exit_abruptly, (), failure),
            Job(5, my_pid, (), failure), Job(6, my_pid, (), failure)]
    outcomes = run(jobs, workers=1)
    pid = {k: o.record.get("pid") for k, o in outcomes.items()}
    assert pid[1] == pid[2] != os.getpid()       # one worker, reused
    assert pid[3] != pid[2]                      # a job that raised: a new worker after it
    assert outcomes["slow"].record["status"] == KILLED
    assert pid[4] != pid[3]                      # killed with its job: a new one
    assert outcomes["dies"].record["status"] == CRASHED
    assert "exit code 7" in outcomes["dies"].record["error"]
    assert pid[5] == pid[6] != pid[4]            # died under its job: a new one
    assert len(set(pid[k] for k in (1, 3, 4, 5))) == 4


def test_a_worker_that_grew_past_its_allowance_is_replaced(monkeypatch):
    monkeypatch.setattr(child_module, "RECYCLE_BYTES", 16 << 20)
    jobs = [Job(1, my_pid, (), failure), Job("small", hold_memory, (1,), failure),
            Job(2, my_pid, (), failure), Job("big", hold_memory, (64,), failure),
            Job(3, my_pid, (), failure)]
    pid = {k: o.record["pid"] for k, o in run(jobs, workers=1).items()}
    assert pid[1] == pid["small"] == pid[2] == pid["big"]   # 1 MiB kept: within it
    assert pid[3] != pid["big"]                             # 64 MiB kept: replaced
    assert gone(pid["big"])


def collect_then_hold_memory(megabytes: int):
    """A job body that collects garbage (the automatic collector may run
    at any allocation), then keeps ``megabytes`` of memory."""
    gc.collect()
    return hold_memory(megabytes)


def test_garbage_inherited_from_the_parent_does_not_hide_what_a_job_kept(monkeypatch):
    """A parent with 64 MiB of uncollected garbage forks its worker: the
    worker's measure must not count that garbage, or a job that frees it
    and keeps as much would stay within the allowance."""
    monkeypatch.setattr(child_module, "RECYCLE_BYTES", 16 << 20)
    enabled = gc.isenabled()
    gc.disable()
    try:
        cycle = [np.ones(64 << 17)]
        cycle.append(cycle)         # unreachable once deleted, freed only by a collection
        del cycle
        jobs = [Job("big", collect_then_hold_memory, (64,), failure), Job(1, my_pid, (), failure)]
        pid = {k: o.record["pid"] for k, o in run(jobs, workers=1).items()}
    finally:
        gc.collect()
        if enabled:
            gc.enable()
    assert pid[1] != pid["big"]


def test_a_job_goes_to_a_new_worker_when_the_idle_one_died():
    first, worker = run_job(Job(1, my_pid, (), failure))
    assert worker is not None and first.record["pid"] == worker.pid
    os.kill(worker.pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while not gone(worker.pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    second, other = run_job(Job(2, my_pid, (), failure), worker)
    try:
        assert second.record["status"] == "done"    # run, not recorded as a crash
        assert other is not worker and second.record["pid"] == other.pid != worker.pid
        assert not worker.alive
    finally:
        other.close()
    assert gone(other.pid)


def test_a_job_that_cannot_be_sent_gets_a_record_and_the_worker_goes_on():
    jobs = [Job(1, my_pid, (), failure), Job("lock", sleep_then, (0.0, threading.Lock()), failure),
            Job(2, my_pid, (), failure)]
    outcomes = run(jobs, workers=1)
    assert outcomes["lock"].record["status"] == CRASHED
    assert "could not be sent to a worker" in outcomes["lock"].record["error"]
    assert outcomes[1].record["pid"] == outcomes[2].record["pid"]


# -- a real Dask cluster ---------------------------------------------------------------


@pytest.fixture(scope="module")
def scheduler():
    """A LocalCluster of two single-threaded worker processes, reached by
    its address as a remote cluster would be, with the scheduler setting
    docs/distributed.md asks for (a task is retried once).  Its workers
    are never taken for lost (KEEP_WORKERS_SETTINGS, for the life of the
    cluster): the tests below kill them again and again, and with Dask's
    default the cluster closed a nanny whose worker was between two
    restarts, until no worker was left and a test waited forever."""
    import dask
    import distributed

    from pdbsearch.batch.cluster import KEEP_WORKERS_SETTINGS, SCHEDULER_SETTINGS
    with dask.config.set(KEEP_WORKERS_SETTINGS):
        with dask.config.set(SCHEDULER_SETTINGS):
            cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1,
                                               processes=True, dashboard_address=None)
        try:
            yield cluster.scheduler_address
        finally:
            cluster.close()


def test_a_local_cluster_never_takes_its_workers_for_lost():
    """The setting that keeps a local cluster's nannies holds while the
    cluster runs (Dask reads it when a worker leaves), and only then."""
    import dask

    from pdbsearch.batch.cluster import KEEP_WORKERS_SETTINGS, dask_client
    (name, wanted), = KEEP_WORKERS_SETTINGS.items()
    assert dask.config.get(name) != wanted
    with dask_client("local:1") as client:
        assert dask.config.get(name) == wanted
        assert len(client.nthreads()) == 1
    assert dask.config.get(name) != wanted


def test_dask_runs_jobs_in_children_of_its_workers(scheduler):
    jobs = [Job(i, sleep_then, (0.1, i * i), failure) for i in range(6)]
    jobs.append(Job("slow", sleep_then, (30.0, 0), failure, deadline=0.5))
    outcomes = run(jobs, dask=scheduler)
    assert {k: o.record.get("value") for k, o in outcomes.items() if k != "slow"} == \
        {i: i * i for i in range(6)}
    assert outcomes["slow"].record["status"] == KILLED


def test_a_worker_killed_mid_task_loses_no_record_and_leaves_no_process(scheduler, tmp_path):
    marker = tmp_path / "killed"
    jobs = [Job(i, sleep_then, (0.2, i), failure) for i in range(6)]
    jobs.append(Job("victim", kill_my_worker, (str(marker), False), failure))
    outcomes = run(jobs, dask=scheduler)
    assert marker.exists()   # a worker did die in the middle of the task
    assert outcomes["victim"].record["value"] == "after a retry"
    assert {k: o.record["value"] for k, o in outcomes.items() if k != "victim"} == \
        {i: i for i in range(6)}
    child, server, worker = json.loads(marker.read_text())
    assert server is not None   # the fork server forked the child
    deadline = time.monotonic() + 10
    while not all(map(gone, (child, server, worker))) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert gone(worker) and gone(server) and gone(child)   # all died with the worker


def test_a_task_whose_worker_dies_twice_is_recorded_as_failed(scheduler, tmp_path):
    jobs = [Job("doomed", kill_my_worker, (str(tmp_path / "m"), True), failure),
            Job("fine", sleep_then, (0.0, 1), failure)]
    outcomes = run(jobs, dask=scheduler)
    assert outcomes["doomed"].record["status"] == FAILED
    assert "worker lost" in outcomes["doomed"].record["error"]
    assert outcomes["fine"].record["value"] == 1


def comparable(outcomes: dict) -> dict:
    """The outcomes' records without what differs from run to run (the
    process that ran them)."""
    return {key: {k: v for k, v in o.record.items() if k != "pid"}
            for key, o in outcomes.items()}


def test_chunks_of_jobs_give_the_local_runners_records(scheduler):
    jobs = [Job(i, sleep_then, (0.01, i * i), failure) for i in range(7)]
    jobs[3:3] = every_way_a_job_ends()   # in the middle of the second chunk
    local = run(jobs, workers=2)
    chunked = run(jobs, dask=scheduler, chunk=4)
    assert comparable(chunked) == comparable(local)
    assert chunked["slow"].record["status"] == KILLED
    assert chunked["slow"].wall_seconds >= 0.5   # its own deadline, inside the chunk
    assert chunked["dies"].record["status"] == CRASHED
    assert chunked[6].record["value"] == 36   # the jobs after the killed one still ran


def test_short_jobs_are_chunked_as_the_run_goes(scheduler, caplog):
    caplog.set_level(logging.DEBUG, logger="pdbsearch.batch.cluster")
    jobs = [Job(i, sleep_then, (0.0, i), failure) for i in range(150)]
    outcomes = run(jobs, dask=scheduler)
    assert {k: o.record["value"] for k, o in outcomes.items()} == {i: i for i in range(150)}
    sizes = [r.args[1] for r in caplog.records if r.name == "pdbsearch.batch.cluster"]
    assert sum(sizes) == 150   # every job in one task, none twice
    assert sizes[:MIN_SAMPLES] == [1] * MIN_SAMPLES   # one a task until the mean is known
    assert max(sizes) > 1 and len(sizes) < 150   # then several a task
    assert sizes[-1] == 1   # and the last tasks small again


def test_a_chunk_whose_worker_dies_twice_runs_again_a_job_a_task(scheduler, tmp_path):
    jobs = [Job(i, sleep_then, (0.05, i), failure) for i in range(7)]
    jobs.insert(2, Job("doomed", kill_my_worker, (str(tmp_path / "m"), True), failure))
    outcomes = run(jobs, dask=scheduler, chunk=4)   # doomed shares a chunk with 0, 1, 2
    assert outcomes["doomed"].record["status"] == FAILED
    assert outcomes["doomed"].record["stop_reason"] == "worker lost"
    assert "worker lost" in outcomes["doomed"].record["error"]
    assert {k: o.record["value"] for k, o in outcomes.items() if k != "doomed"} == \
        {i: i for i in range(7)}


def test_a_cancelled_chunk_starts_no_further_job(scheduler, tmp_path):
    import distributed

    from pdbsearch.batch.cluster import run_chunk_on_worker
    jobs = [Job(i, mark_then_sleep, (str(tmp_path), str(i), 0.5), failure) for i in range(8)]
    with distributed.Client(scheduler) as client:
        future = client.submit(run_chunk_on_worker, jobs, None, pure=False)
        deadline = time.monotonic() + 60
        while not (tmp_path / "0").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        client.cancel(future)
        time.sleep(2.5)   # the whole chunk would be five jobs further by now
    started = sorted(int(p.name) for p in tmp_path.iterdir())
    assert started[0] == 0 and len(started) <= 2   # the job running went on, no other


class CtrlCOnTheFirstOutcome(CtrlC):
    """Ctrl-C as the run takes up its first finished task: the first check
    comes as the first tasks are submitted, the second with that task."""

    def __init__(self):
        super().__init__()
        self.checks = 0

    def check(self) -> None:
        self.checks += 1
        if self.checks == 2:
            raise KeyboardInterrupt


def test_ctrl_c_keeps_the_records_of_a_task_finished_but_not_read(scheduler):
    import distributed
    jobs = [Job(i, sleep_then, (0.05 if i == 0 else 3.0, i), failure) for i in range(3)]
    outcomes = []
    with distributed.Client(scheduler) as client:
        assert _drive(client, jobs, outcomes.append, None, CtrlCOnTheFirstOutcome(), fixed=1)
    by_key = {o.key: o.record for o in outcomes}
    assert sorted(by_key) == [0, 1, 2]    # every job has its record
    assert by_key[0]["status"] == "done" and by_key[0]["value"] == 0   # its own record
    assert by_key[1]["status"] == by_key[2]["status"] == INTERRUPTED


def test_the_fork_server_forks_the_children_with_the_outcomes_of_the_worker(
        scheduler, monkeypatch):
    import distributed
    with distributed.Client(scheduler) as client:
        workers = set(client.run(os.getpid).values())
    jobs = every_way_a_job_ends() + [Job("parent", my_parent, (), failure)]
    by_way = {}
    for setting in ("1", "0"):
        monkeypatch.setenv(FORK_SERVER_ENV, setting)   # the client decides, not the worker
        by_way[setting] = run(jobs, dask=scheduler, chunk=len(jobs))
    served, forked = by_way["1"], by_way["0"]
    assert served["parent"].record["ppid"] not in workers   # a fork server's child
    assert forked["parent"].record["ppid"] in workers       # the worker's own
    del served["parent"], forked["parent"]
    assert comparable(served) == comparable(forked) == comparable(run(jobs[:-1], workers=2))
    assert served["slow"].record["status"] == KILLED and served["slow"].wall_seconds >= 0.5
    for value, wanted in (("", True), ("1", True), ("0", False), ("off", False)):
        monkeypatch.setenv(FORK_SERVER_ENV, value)
        assert fork_server_wanted() is wanted


# -- the fork server, without Dask ------------------------------------------------------


def test_a_fork_server_runs_the_jobs_in_a_job_worker_it_forks():
    server = ForkServer()
    try:
        outcomes = {job.key: server.run(job) for job in every_way_a_job_ends()}
        parent = server.run(Job("parent", my_parent, (), failure)).record["ppid"]
        pids = [server.run(Job(k, my_pid, (), failure)).record["pid"] for k in (1, 2)]
    finally:
        server.close()
    assert parent == server.pid != os.getpid()
    assert comparable(outcomes) == comparable(run(every_way_a_job_ends(), workers=2))
    assert outcomes["ok"].record["pid"] not in (server.pid, os.getpid())
    assert outcomes["slow"].wall_seconds >= 0.5   # killed at its own deadline
    assert pids[0] == pids[1] not in (server.pid, os.getpid())   # one job worker, kept
    assert gone(server.pid) and gone(pids[0])


def test_a_fork_server_warms_up_once_a_name_and_reports_a_failed_warm_up(tmp_path):
    count = tmp_path / "count"
    server = ForkServer()
    try:
        for name in ("a", "a", "b", "a"):
            server.warm(WarmUp(name, count_warm_up, (str(count),)))
        assert count.read_text() == "xx"   # once for a, once for b
        with pytest.raises(RuntimeError, match="ValueError: no kernels"):
            server.warm(WarmUp("bad", failing_warm_up))
        assert server.run(Job(1, sleep_then, (0.0, 1), failure)).record["value"] == 1
    finally:
        server.close()


_WARMED: list = []


def remember_warm_up(name: str):
    """A warm-up that leaves its name in this process."""
    _WARMED.append(name)


def warm_ups_seen():
    """A job body: the warm-ups its process has seen."""
    return {"status": "done", "seen": list(_WARMED), "pid": os.getpid()}


def test_a_fork_server_forks_a_new_job_worker_after_a_new_warm_up():
    server = ForkServer()
    try:
        server.warm(WarmUp("a", remember_warm_up, ("a",)))
        first = server.run(Job(1, warm_ups_seen, (), failure)).record
        again = server.run(Job(2, warm_ups_seen, (), failure)).record
        server.warm(WarmUp("b", remember_warm_up, ("b",)))
        after = server.run(Job(3, warm_ups_seen, (), failure)).record
    finally:
        server.close()
    assert first["seen"] == again["seen"] == ["a"] and first["pid"] == again["pid"]
    assert after["seen"] == ["a", "b"] and after["pid"] != first["pid"]
    assert gone(first["pid"]) and gone(after["pid"])


def test_a_killed_fork_server_costs_its_job_only(tmp_path):
    from pdbsearch.batch.cluster import run_chunk_on_worker
    jobs = [Job("before", my_parent, (), failure), Job("victim", kill_my_parent, (), failure),
            Job("after", my_parent, (), failure)]
    try:
        outcomes = {o.key: o for o in run_chunk_on_worker(jobs, None)}
    finally:
        close_thread_server()
    assert outcomes["victim"].record["status"] == CRASHED
    assert "fork server was killed by SIGKILL" in outcomes["victim"].record["error"]
    before, after = outcomes["before"].record["ppid"], outcomes["after"].record["ppid"]
    assert before != after   # a new server for the job after
    assert gone(before) and gone(after)   # closed


def test_a_fork_server_that_stops_answering_is_killed_with_its_child(monkeypatch, tmp_path):
    monkeypatch.setattr(forkserver, "SERVER_GRACE_SECONDS", 1.0)
    marker = tmp_path / "child"
    server = ForkServer()
    # A first job, with no deadline, waits for the server and its job worker
    # to start: on a loaded machine their start alone could take the 1.2 s,
    # and the server was then killed before the stuck job's child ran.
    assert server.run(Job("first", sleep_then, (0.0, 1), failure)).record["value"] == 1
    outcome = server.run(Job("stuck", stop_my_parent, (str(marker),), failure, deadline=0.2))
    assert outcome.record["status"] == KILLED
    assert "did not answer within 1.2 s" in outcome.record["error"]
    child = int(marker.read_text())
    deadline = time.monotonic() + 10
    while not gone(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert gone(server.pid) and gone(child)


@pytest.mark.parametrize("mean, remaining, threads, expected", [
    (None, 10_000, 2, 1),            # nothing measured yet: one job a task
    (0.030, 10_000, 2, int(TARGET_TASK_SECONDS / (0.030 + JOB_OVERHEAD_SECONDS))),
    (0.0, 10_000, 2, MAX_CHUNK),     # jobs of no time: the cap
    (5.0, 10_000, 2, 1),             # long jobs: one a task
    (0.001, 40, 2, 10),              # near the end: a half of each thread's share
    (0.001, 3, 2, 1),                # the very end
    (0.001, 10_000, 64, MAX_CHUNK),  # many threads, much left: the cap
    (0.001, 1000, 64, 7),            # many threads: shares are small
])
def test_chunk_size_examples(mean, remaining, threads, expected):
    assert chunk_size(mean, remaining, threads) == expected


def test_chunk_size_keeps_its_bounds_over_a_range_of_inputs():
    means = [0.0, 0.0005, 0.002, 0.01, 0.03, 0.1, 0.3, 1.0, 20.0]
    for threads in (1, 2, 8, 64):
        for remaining in (0, 1, 5, 50, 500, 5000, 450_000):
            sizes = [chunk_size(m, remaining, threads) for m in means]
            assert sizes == sorted(sizes, reverse=True)   # longer jobs, smaller chunks
            for mean, size in zip(means, sizes):
                assert 1 <= size <= MAX_CHUNK
                if size > 1:   # a chunk only where it keeps every bound
                    assert size * (mean + JOB_OVERHEAD_SECONDS) <= TARGET_TASK_SECONDS
                    assert size * 2 * threads <= remaining
                assert chunk_size(mean, remaining + 1000, threads) >= size   # more left, no smaller
    assert chunk_size(0.03, 10_000, 2, target=2.0, cap=16) == 16


class FinishedTask:
    """A stand-in for a finished Dask future: its result, or what it raises."""

    def __init__(self, result=None, raises: BaseException | None = None):
        self._result, self._raises = result, raises

    def result(self):
        if self._raises is not None:
            raise self._raises
        return self._result


def test_a_tasks_end_gives_each_job_of_its_chunk_a_record():
    from distributed.client import FutureCancelledError
    from distributed.scheduler import KilledWorker

    from pdbsearch.batch.cluster import _outcomes
    jobs = [Job(i, sleep_then, (0.0, i), failure) for i in range(3)]
    first = Outcome(0, {"status": "done"}, 0.1)
    # a chunk that stopped early (its task cancelled): the rest interrupted
    outcomes = _outcomes(FinishedTask([first]), jobs)
    assert outcomes[0] is first
    assert [(o.key, o.record["status"]) for o in outcomes[1:]] == \
        [(1, INTERRUPTED), (2, INTERRUPTED)]
    lost = KilledWorker("task", SimpleNamespace(address="tcp://gone:1"), 1)
    assert _outcomes(FinishedTask(raises=lost), jobs) is None   # a chunk: each job alone
    alone = _outcomes(FinishedTask(raises=lost), jobs[:1])
    assert [(o.record["status"], o.record["stop_reason"]) for o in alone] == \
        [(FAILED, "worker lost")]
    assert "died twice" in alone[0].record["error"]
    failed = _outcomes(FinishedTask(raises=ValueError("bug")), jobs)
    assert [o.record["error"] for o in failed] == ["the task failed: ValueError: bug"] * 3
    cancelled = _outcomes(FinishedTask(raises=FutureCancelledError("k", "cancelled")), jobs)
    assert [o.record["status"] for o in cancelled] == [INTERRUPTED] * 3


def test_chunk_sizer_waits_for_enough_measured_jobs():
    sizer = ChunkSizer(threads=2)
    sizer.observe(Outcome("lost", failure(FAILED, "worker lost", None), 0.0))
    for i in range(MIN_SAMPLES - 1):
        sizer.observe(Outcome(i, None, 0.01))
    assert sizer.mean_seconds is None and sizer.next_size(10_000) == 1
    sizer.observe(Outcome("last", None, 0.01))
    assert sizer.mean_seconds == pytest.approx(0.01)   # the lost job is not counted
    assert sizer.next_size(10_000) == chunk_size(0.01, 10_000, 2) > 1
    assert ChunkSizer(threads=2, fixed=5).next_size(10_000) == 5


def test_the_chunk_size_can_be_fixed_by_keyword_or_environment(monkeypatch):
    monkeypatch.delenv(CHUNK_ENV, raising=False)
    assert chunk_override() is None
    assert chunk_override(3) == 3
    monkeypatch.setenv(CHUNK_ENV, "auto")
    assert chunk_override() is None
    monkeypatch.setenv(CHUNK_ENV, "12")
    assert chunk_override() == 12
    assert chunk_override(1) == 1   # the keyword wins
    for bad in ("0", "-3", "many", "2.5"):
        monkeypatch.setenv(CHUNK_ENV, bad)
        with pytest.raises(PdbsearchError, match=CHUNK_ENV):
            chunk_override()
    with pytest.raises(PdbsearchError):
        chunk_override(0)


def levels_json(path: Path) -> list[dict]:
    return json.loads(path.read_text())["levels"]


@pytest.mark.parametrize("chunk", ["auto", "5"])
def test_levels_on_dask_match_the_local_runner(scheduler, tmp_path, capsys, monkeypatch, chunk):
    monkeypatch.setenv(CHUNK_ENV, chunk)   # 12 levels: one a task, or in chunks of 5
    local, dask = tmp_path / "local.json", tmp_path / "dask.json"
    common = [MICROBAN, *MOVES, "--first", "12", "--time-limit", "20", "--no-progress"]
    assert main(["levels", *common, "--jobs", "2", "--json", str(local)]) == 0
    assert main(["levels", *common, "--dask", scheduler, "--json", str(dask)]) == 0
    capsys.readouterr()
    a, b = levels_json(local), levels_json(dask)
    assert [r["status"] for r in b] == ["solved"] * 12
    # The same optimal move counts; not the same paths: A* shares its time
    # with the perimeter (beside it) by CPU seconds, so which of several
    # move-optimal solutions it meets first may differ.
    assert [(r["number"], r["steps"], r["optimal"]) for r in a] == \
        [(r["number"], r["steps"], r["optimal"]) for r in b]
    assert json.loads(dask.read_text())["dask"] == scheduler


def test_a_run_resumes_from_its_json(tmp_path, capsys):
    out = tmp_path / "run.json"
    base = ["levels", MICROBAN, *MOVES, "--time-limit", "20", "--no-progress", "--jobs", "2"]
    assert main([*base, "--first", "4", "--json", str(out)]) == 0
    first = levels_json(out)
    capsys.readouterr()
    assert main([*base, "--first", "7", "--resume", str(out)]) == 0
    err = capsys.readouterr().err
    assert "4 of 7 levels already finished" in err
    again = levels_json(out)
    assert [r["status"] for r in again] == ["solved"] * 7
    assert again[:4] == first   # kept as they were (wall times included): not run again


def test_resume_refuses_a_report_of_other_options_or_not_a_report(tmp_path, capsys):
    out = tmp_path / "run.json"
    assert main(["levels", MICROBAN, *MOVES, "--first", "2", "--time-limit", "20",
                 "--no-progress", "--json", str(out)]) == 0
    capsys.readouterr()
    code = main(["levels", MICROBAN, *MOVES, "--first", "2", "--time-limit", "5",
                 "--no-progress", "--resume", str(out)])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1
    assert "time_limit 20.0 there, 5.0 now" in err and str(out) in err
    other = tmp_path / "other.json"
    other.write_text('{"levels": 3}')
    code = main(["levels", MICROBAN, "--first", "2", "--resume", str(other)])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "not a levels report" in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("spec", ["local:0", "local", "local:two", "not an address", ""])
def test_bad_dask_addresses_are_bad_input(spec, capsys):
    code = main(["levels", MICROBAN, "--first", "1", "--dask", spec])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "--dask" in err and len(err.splitlines()) == 1


def test_compare_on_dask_matches_compare_here(scheduler, capsys):
    here = ["compare", "puzzles/hakoiri/paper_6x7.txt", "--weights", "1,3", "--json"]
    assert main(here) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main([*here, "--dask", scheduler]) == 0
    remote = json.loads(capsys.readouterr().out)
    assert [(r["weight"], r["cost"], r["optimal"]) for r in plain] == \
        [(r["weight"], r["cost"], r["optimal"]) for r in remote]


def test_ctrl_c_on_a_local_cluster_keeps_the_finished_levels(tmp_path, repo):
    out = tmp_path / "run.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "pdbsearch", "levels", MICROBAN, *MOVES, "--dask", "local:2",
         "--time-limit", "20", "--no-progress", "--json", str(out)],
        cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True)
    try:
        # Ctrl-C once some levels are recorded: the report is rewritten as they come
        deadline = time.monotonic() + 600   # a cold numba cache compiles first
        while time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.5)
            if out.exists() and any(r["status"] == "solved" for r in levels_json(out)):
                break
        os.killpg(proc.pid, signal.SIGINT)   # as the terminal does: the whole group
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == 3, err
    assert "Traceback" not in err
    report = json.loads(out.read_text())
    assert report["interrupted"] is True
    statuses = [r["status"] for r in report["levels"]]
    assert "solved" in statuses and set(statuses) <= {"solved", "interrupted", "not run"}


def build_slowly(path: str, barrier, queue) -> None:
    """Build one table into ``path``'s folder at the same moment as another
    process (a Dask worker racing on a shared database folder)."""
    from pdbsearch.pdb.store import PdbSpec, find_or_build
    spec = PdbSpec("test", "race", "unit", {"n": 1})

    def build():
        barrier.wait()   # both processes are building now
        return np.arange(200_000, dtype=np.uint8) % 7, 0.1

    table = find_or_build(spec, Path(path).name, build, db_dir=Path(path).parent, log=None)
    queue.put((int(table.sum()), table.shape[0]))


def test_two_processes_building_one_table_both_end_with_a_valid_file(tmp_path):
    from pdbsearch.pdb.store import PdbSpec, load_pdb
    path = str(tmp_path / "race.h5")
    ctx = multiprocessing.get_context("fork")
    barrier, queue = ctx.Barrier(2), ctx.Queue()
    procs = [ctx.Process(target=build_slowly, args=(path, barrier, queue)) for _ in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0, 0]
    expected = np.arange(200_000, dtype=np.uint8) % 7
    assert sorted([queue.get(timeout=5), queue.get(timeout=5)]) == \
        [(int(expected.sum()), 200_000)] * 2
    table, _ = load_pdb(path, PdbSpec("test", "race", "unit", {"n": 1}))
    assert np.array_equal(table, expected)
    assert not list(tmp_path.glob(".*.tmp"))   # no temporary file left behind


def test_live_reports_are_rewritten_as_records_arrive_but_not_too_often(tmp_path):
    from pdbsearch.sokoban.collection import LevelRecord, LiveReports
    blank = [LevelRecord(n, None, 1) for n in (1, 2)]
    eager, lazy = tmp_path / "eager.json", tmp_path / "lazy.json"
    live = LiveReports(blank, str(eager), None, every=0.0, file="x")
    assert [r["status"] for r in levels_json(eager)] == ["not run"] * 2   # written at once
    # rewritten once ten times the last write's duration has passed (a busy
    # machine may slow a write of two records to tens of milliseconds)
    deadline = time.monotonic() + 10
    while levels_json(eager)[0]["status"] != "solved" and time.monotonic() < deadline:
        time.sleep(0.05)
        live.add(LevelRecord(1, None, 1, status="solved"))
    assert [r["status"] for r in levels_json(eager)] == ["solved", "not run"]
    held = LiveReports(blank, str(lazy), None, every=3600.0, file="x")
    held.add(LevelRecord(2, None, 1, status="solved"))
    assert [r["status"] for r in levels_json(lazy)] == ["not run"] * 2   # held back
    held.close([blank[0], LevelRecord(2, None, 1, status="solved")], interrupted=True)
    report = json.loads(lazy.read_text())
    assert [r["status"] for r in report["levels"]] == ["not run", "solved"]
    assert report["interrupted"] is True
