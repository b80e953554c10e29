"""A collection's levels as a batch: one job a level, through the hooks of
the run's options.

Each level runs with its own limits in a worker process, on this machine
or on a Dask worker (:mod:`pdbsearch.batch`), so a level that gets stuck
(or uses too much memory) cannot hold up or take down the rest: the search
stops itself at its time limit, and a worker still running the level
``grace`` seconds later is killed.  The kernels are compiled once before
the workers are forked (the options' ``warm_up``), so no worker pays for
compilation.  Ctrl-C stops the run and keeps every level already finished.

The domain supplies the options (``blank_record``, ``solve_level``,
``warm_up`` and ``warm_up_levels``, the few levels it needs, which are all
a Dask run sends each worker for it; ``limits``, ``time_limit``,
``grace``; picklable, for Dask)
and the records (``number``, ``status``, ``error``, ``stop_reason``,
``wall_seconds``, ``solved``, and the search figures
:func:`copy_search_figures` fills): Sokoban's :mod:`pdbsearch.sokoban.collection`,
the sliding tiles' :mod:`pdbsearch.fifteen.collection`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from typing import Any

from ..machine import usable_cores
from ..search import Limits
from ..search.result import default_memory_limit_mb
from . import Job, Outcome, WarmUp, run_batch


def limits_of_one_level(options, jobs: int) -> Limits:
    """The limits of one level when ``jobs`` levels run at once: the options'
    ``time_limit``, ``node_limit`` and ``cpu_limit``, their
    ``memory_mb``, by default an equal share of half the RAM, and their
    ``threads``, by default an equal share of the cores (one job: decided
    where the level runs, by its cores)."""
    memory = options.memory_mb if options.memory_mb is not None else max(
        64, default_memory_limit_mb() // max(1, jobs))
    threads = getattr(options, "threads", None)
    if threads is None and jobs > 1:
        threads = max(1, usable_cores() // jobs)
    return Limits(time_seconds=options.time_limit, nodes=options.node_limit,
                  memory_mb=memory, cpu_seconds=options.cpu_limit, threads=threads)


def copy_search_figures(record, result) -> None:
    """Copy a search result's status and figures into a level's record (the
    fields every domain's record has)."""
    record.status = result.status.value
    record.optimal = result.optimal
    record.cost = result.cost
    shortened = result.extra.get("shortened")
    if shortened and shortened["after"] < shortened["before"]:
        record.found_cost = shortened["before"]
    record.lower_bound = result.lower_bound
    incumbent = result.extra.get("incumbent") or {}
    if not record.solved and incumbent.get("cost") is not None:
        # A fast solver's solution that the optimal search did not prove
        # optimal: the optimum lies between the two bounds.
        record.upper_bound = incumbent["cost"]
    record.expanded, record.generated = result.expanded, result.generated
    record.seconds = round(result.seconds, 4)
    record.cpu_seconds = round(result.cpu_seconds, 4)
    record.stop_reason = result.stop_reason


def cost_or_bounds(record, cost) -> str:
    """A level's ``cost`` for a table when it was solved; when not, where
    its optimum lies: ``>=L`` (the search's lower bound) or ``L..U`` (and
    a solution of cost ``U`` found, not proved optimal); else ``-``."""
    if record.solved or record.lower_bound is None:
        return "-" if cost is None else str(cost)
    low = f"{record.lower_bound:g}"
    return f"{low}..{record.upper_bound}" if record.upper_bound is not None else f">={low}"


def failure_record(blank, status: str, stop_reason: str | None, error: str | None):
    """The record of a level whose run did not end by itself: its blank
    record with the batch's status (see :class:`pdbsearch.batch.Job`)."""
    return replace(blank, status=status, stop_reason=stop_reason, error=error)


def level_job(level, number: int, options, limits: Limits) -> Job:
    """The batch job that solves ``level`` (number ``number`` in its file)
    through the options' hooks."""
    deadline = None if options.time_limit is None else options.time_limit + options.grace
    return Job(number, options.solve_level, (level, number, limits),
               partial(failure_record, options.blank_record(number, level)), deadline)


def run_levels(levels: Sequence, options, jobs: int = 1,
               numbers: Sequence[int] | None = None, progress: bool = True,
               on_record: Callable[[Any], None] | None = None,
               dask: str | None = None, done: dict[int, Any] | None = None
               ) -> tuple[list[Any], bool]:
    """Solve every level, each in a worker process: at most ``jobs`` at a
    time on this machine, or as tasks on the Dask cluster ``dask``
    (``local:N`` or a scheduler address).

    ``numbers`` are the levels' 1-based numbers in their file (default
    1, 2, ...); ``done`` holds records of levels already finished (a resumed
    run): they are kept and not run again.  ``on_record`` hears each new
    record as it arrives.  Returns the records in level order and whether
    the run was interrupted by Ctrl-C (the unfinished levels are then
    marked so).

    ``options`` is a domain's run options (Sokoban's
    :class:`~pdbsearch.sokoban.collection.RunOptions`, the sliding tiles'
    :class:`~pdbsearch.fifteen.collection.FifteenRunOptions`) with the
    hooks ``blank_record``, ``solve_level``, ``warm_up``, ``warm_up_levels``, ``limits``,
    ``time_limit`` and ``grace`` (picklable, for Dask), and records with
    ``number``, ``status``, ``error``, ``stop_reason``, ``wall_seconds``
    and ``solved``.
    """
    numbers = list(numbers) if numbers is not None else list(range(1, len(levels) + 1))
    done = done or {}
    records = {n: done.get(n) or options.blank_record(n, lv) for n, lv in zip(numbers, levels)}
    todo = [(n, lv) for n, lv in zip(numbers, levels) if n not in done]
    if not todo:
        return [records[n] for n in numbers], False
    workers = jobs
    if dask is not None:
        from .cluster import local_workers
        # a remote cluster's workers may each be a machine of their own
        workers = local_workers(dask) or 1
    limits = options.limits(workers)
    batch = [level_job(level, number, options, limits) for number, level in todo]
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=len(levels), initial=len(levels) - len(todo), unit=" level",
                   file=sys.stderr, dynamic_ncols=True)
    solved = sum(r.solved for r in records.values())

    def finish(outcome: Outcome) -> None:
        nonlocal solved
        record = outcome.record
        record.wall_seconds = outcome.wall_seconds
        records[record.number] = record
        solved += record.solved
        if bar is not None:
            bar.update(1)
            bar.set_postfix(solved=solved, refresh=False)
        if on_record is not None:
            on_record(record)

    try:
        interrupted = run_batch(batch, finish, workers=jobs, dask=dask,
                                warm_up=WarmUp(_warm_up_name(options), options.warm_up,
                                               (options.warm_up_levels(
                                                   [lv for _, lv in todo]),)))
    finally:
        if bar is not None:
            bar.close()
    return [records[n] for n in numbers], interrupted


def _warm_up_name(options) -> str:
    """What a worker's warm-up depends on: the options."""
    return f"levels {options!r}"

