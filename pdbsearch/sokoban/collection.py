"""Solving every level of a collection, each in its own process.

Each level runs in a child process with its own limits, so a level that
gets stuck (or uses too much memory) cannot hold up or take down the rest:
the search stops itself at its time limit, and a child still running
``grace`` seconds later is killed.  The kernels are compiled once in the
parent before the children are forked, so no child pays for compilation.
Ctrl-C stops the run and keeps every level already finished.
"""

from __future__ import annotations

import csv
import io
import json
import multiprocessing
import os
import sys
import time
from collections import deque
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from multiprocessing.connection import wait
from typing import Callable, Sequence

from ..interrupts import sigint_handler
from ..io import atomic_write_text
from ..search import Limits, Status, solve
from ..search.result import default_memory_limit_mb
from .model import Level
from .puzzle import Rules, SokobanPuzzle
from .vocabulary import GROUPINGS, HEURISTICS, METRICS

#: Statuses a level record can have besides the search statuses.
KILLED = "killed"            #: still running past its limit + grace
CRASHED = "error"            #: the child died or raised
INTERRUPTED = "interrupted"  #: Ctrl-C
NOT_RUN = "not run"          #: never started (Ctrl-C came first)


@dataclass(frozen=True)
class RunOptions:
    """How every level of a run is solved."""

    metric: str = METRICS.default
    heuristic: str = HEURISTICS.default
    rules: Rules = Rules()
    algo: str = "astar"
    weight: float = 1.0
    time_limit: float | None = 60.0
    node_limit: int | None = None
    memory_mb: int | None = None     #: per level (default: half the RAM / jobs)
    grace: float = 10.0              #: seconds past the time limit before a kill
    pattern_boxes: int | None = None  #: largest pattern of ``pdb`` (None: as many as fit)
    grouping: str = GROUPINGS.default  #: how ``pdb`` groups the boxes per state
    db_dir: str | None = None        #: pattern PDB folder (None: the default one)
    cpu_limit: float | None = None   #: CPU seconds of search per level (benchmarks)

    def puzzle(self, level: Level) -> SokobanPuzzle:
        """The puzzle of ``level`` under these options (its pattern PDB is
        found in the database folder, or built and saved there)."""
        return SokobanPuzzle(level, self.metric, self.heuristic, self.rules,
                             pattern_boxes=self.pattern_boxes, grouping=self.grouping,
                             db_dir=self.db_dir)

    def limits(self, jobs: int = 1) -> Limits:
        """The limits of one level when ``jobs`` levels run at once."""
        memory = self.memory_mb if self.memory_mb is not None else max(
            64, default_memory_limit_mb() // max(1, jobs))
        return Limits(time_seconds=self.time_limit, nodes=self.node_limit, memory_mb=memory,
                      cpu_seconds=self.cpu_limit)

    def describe(self) -> dict:
        """The options as a JSON-ready dict."""
        d = asdict(self)
        d["rules"] = self.rules.describe()
        return d

    # -- the hooks the runner calls (another domain's options provide the same) --

    def blank_record(self, number: int, level: Level) -> "LevelRecord":
        """The record of a level not run yet."""
        return LevelRecord(number, level.title, len(level.boxes))

    def solve_level(self, level: Level, number: int, limits: Limits) -> "LevelRecord":
        """Solve one level in this process (:func:`solve_level`)."""
        return solve_level(level, number, self, limits)

    def warm_up(self, levels: Sequence[Level]) -> None:
        """Load the kernels before the children fork (:func:`warm_up`)."""
        warm_up(levels, self)


@dataclass
class LevelRecord:
    """The outcome of one level of a run."""

    number: int
    title: str | None
    boxes: int
    status: str = NOT_RUN
    optimal: bool = False
    cost: int | None = None
    pushes: int | None = None
    steps: int | None = None
    lower_bound: float | None = None
    expanded: int = 0
    generated: int = 0
    seconds: float = 0.0          #: search time (compile excluded)
    cpu_seconds: float = 0.0      #: CPU time of the search (see SearchResult)
    wall_seconds: float = 0.0     #: the child's whole life, as the parent saw it
    stop_reason: str | None = None
    error: str | None = None
    lurd: str | None = None

    @property
    def solved(self) -> bool:
        """True when a checked solution was found."""
        return self.status == Status.SOLVED.value


def solve_level(level: Level, number: int, options: RunOptions, limits: Limits) -> LevelRecord:
    """Solve one level in this process and describe the outcome."""
    record = LevelRecord(number, level.title, len(level.boxes))
    result = solve(options.puzzle(level), options.algo, options.weight, limits)
    sol = result.extra
    record.status = result.status.value
    record.optimal = result.optimal
    record.cost = result.cost
    record.pushes, record.steps, record.lurd = sol["pushes"], sol["steps"], sol["lurd"]
    record.lower_bound = result.lower_bound
    record.expanded, record.generated = result.expanded, result.generated
    record.seconds = round(result.seconds, 4)
    record.cpu_seconds = round(result.cpu_seconds, 4)
    record.stop_reason = result.stop_reason
    return record


def _child(conn, level, number: int, options, limits: Limits) -> None:
    """Body of a child process: solve, send the record, exit."""
    try:
        os.setpgrp()  # Ctrl-C at the terminal goes to the parent only
    except OSError:
        pass
    try:
        record = options.solve_level(level, number, limits)
    except BaseException as exc:  # reported to the parent, never lost
        record = replace(options.blank_record(number, level), status=CRASHED,
                         error=f"{type(exc).__name__}: {exc}")
    conn.send(record)
    conn.close()


class _CtrlC:
    """Ctrl-C in the parent of a run: noted at once, acted on where it is safe.

    SIGINT is never blocked: a signal blocked in the main thread goes to
    another thread (tqdm's monitor), and CPython 3.11 can then lose it.  The
    handler instead notes the request and raises KeyboardInterrupt, except
    inside :meth:`held` (starting a child), where it waits for the block to
    end.  A KeyboardInterrupt raised inside a ctypes callback (numba loading
    its cache) is swallowed by Python, so the loop also calls :meth:`check`.
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


def warm_up(levels: Sequence[Level], options: RunOptions) -> None:
    """Compile (or load) the kernels and the engine in this process, so the
    forked children start with them ready (the solve loads every kernel a
    run calls before it searches)."""
    # The smallest level of two boxes or more: a one-box level needs no
    # pattern tables, and each child would then import h5py and load the
    # tables' kernels again (0.1 to 0.15 s a level on Microban: most of a
    # small level's time).
    several = [lv for lv in levels if len(lv.boxes) >= 2] or list(levels)
    smallest = min(several, key=lambda lv: len(lv.boxes))
    result = solve(options.puzzle(smallest), options.algo, options.weight, Limits(nodes=1))
    if result.stop_reason == "interrupted":  # the search caught Ctrl-C: pass it on
        raise KeyboardInterrupt


def run_levels(levels: Sequence, options, jobs: int = 1,
               numbers: Sequence[int] | None = None, progress: bool = True,
               on_record: Callable[[LevelRecord], None] | None = None
               ) -> tuple[list[LevelRecord], bool]:
    """Solve every level, at most ``jobs`` at a time, each in its own process.

    ``numbers`` are the levels' 1-based numbers in their file (default
    1, 2, ...).  Returns the records in level order and whether the run was
    interrupted by Ctrl-C (the unfinished levels are then marked so).
    ``options`` is a :class:`RunOptions`, or another domain's options with
    the same hooks (``blank_record``, ``solve_level``, ``warm_up``,
    ``limits``, ``time_limit``, ``grace``) and records with the same
    ``status``, ``error``, ``stop_reason``, ``wall_seconds`` and ``solved``.
    """
    numbers = list(numbers) if numbers is not None else list(range(1, len(levels) + 1))
    records = {n: options.blank_record(n, lv) for n, lv in zip(numbers, levels)}
    if not levels:
        return [], False
    limits = options.limits(jobs)
    deadline = None if options.time_limit is None else options.time_limit + options.grace
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    pending = deque(zip(numbers, levels))
    running: dict = {}   # connection -> (process, number, start time)
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=len(levels), unit=" level", file=sys.stderr, dynamic_ncols=True)
    solved = 0

    def finish(record: LevelRecord) -> None:
        nonlocal solved
        records[record.number] = record
        solved += record.solved
        if bar is not None:
            bar.update(1)
            bar.set_postfix(solved=solved, refresh=False)
        if on_record is not None:
            on_record(record)

    interrupted = False
    ctrl_c = _CtrlC()
    try:
        with sigint_handler(ctrl_c.handler):
            options.warm_up(levels)
            while pending or running:
                ctrl_c.check()
                while pending and len(running) < jobs:
                    number, level = pending.popleft()
                    with ctrl_c.held():
                        # A Ctrl-C between the fork and this bookkeeping would
                        # leave a child nobody stops: it waits until both are done.
                        parent_end, child_end = ctx.Pipe(duplex=False)
                        proc = ctx.Process(target=_child,
                                           args=(child_end, level, number, options, limits),
                                           daemon=True)
                        proc.start()
                        child_end.close()
                        running[parent_end] = (proc, number, time.perf_counter())
                for conn in wait(list(running), timeout=0.2):
                    proc, number, start = running.pop(conn)
                    try:
                        record = conn.recv()
                    except (EOFError, OSError):
                        proc.join(1.0)
                        record = replace(records[number], status=CRASHED,
                                         error=f"the child died (exit code {proc.exitcode})")
                    conn.close()
                    proc.join(5.0)
                    record.wall_seconds = round(time.perf_counter() - start, 3)
                    finish(record)
                now = time.perf_counter()
                for conn, (proc, number, start) in list(running.items()):
                    if deadline is not None and now - start > deadline:
                        proc.kill()
                        proc.join(5.0)
                        conn.close()
                        del running[conn]
                        finish(replace(records[number], status=KILLED,
                                       stop_reason="time", wall_seconds=round(now - start, 3),
                                       error=f"still running {options.grace:g} s past "
                                             f"its limit"))
    except KeyboardInterrupt:
        interrupted = True
        for conn, (proc, number, start) in running.items():
            proc.kill()
            proc.join(5.0)
            conn.close()
            records[number] = replace(records[number], status=INTERRUPTED,
                                      stop_reason="interrupted")
    finally:
        if bar is not None:
            bar.close()
    return [records[n] for n in numbers], interrupted


# -- reports ------------------------------------------------------------------


def totals(records: Sequence[LevelRecord]) -> dict:
    """Counts and sums over a run."""
    seconds = sum(r.seconds for r in records)
    cpu_seconds = sum(r.cpu_seconds for r in records)
    expanded = sum(r.expanded for r in records)
    return {
        "levels": len(records),
        "solved": sum(r.solved for r in records),
        "optimal": sum(r.solved and r.optimal for r in records),
        "unsolvable": sum(r.status == Status.UNSOLVABLE.value for r in records),
        "unfinished": sum(not r.solved and r.status != Status.UNSOLVABLE.value
                          for r in records),
        "pushes": sum(r.pushes or 0 for r in records if r.solved),
        "steps": sum(r.steps or 0 for r in records if r.solved),
        "expanded": expanded,
        "generated": sum(r.generated for r in records),
        "seconds": round(seconds, 3),
        "wall_seconds": round(sum(r.wall_seconds for r in records), 3),
        "cpu_seconds": round(cpu_seconds, 3),
        "nodes_per_second": round(expanded / seconds) if seconds > 0 else None,
        # expanded per second of CPU: the rate per core, even on a busy machine
        "nodes_per_cpu_second": round(expanded / cpu_seconds) if cpu_seconds > 0 else None,
    }


def summary_table(records: Sequence[LevelRecord]) -> str:
    """A text table of the run, one line per level, then the totals."""
    head = f"{'level':>5} {'boxes':>5} {'status':<11} {'optimal':<7} {'pushes':>6} " \
           f"{'steps':>6} {'expanded':>12} {'seconds':>9}  title"
    lines = [head, "-" * len(head)]
    for r in records:
        lines.append(f"{r.number:>5} {r.boxes:>5} {r.status:<11} "
                     f"{'yes' if r.solved and r.optimal else '-':<7} "
                     f"{_num(r.pushes):>6} {_num(r.steps):>6} {r.expanded:>12,} "
                     f"{r.seconds:>9.2f}  {r.title or ''}")
    t = totals(records)
    rate = (f"{t['nodes_per_second']:,} nodes/s, {t['nodes_per_cpu_second']:,} per CPU second"
            if t["nodes_per_second"] and t["nodes_per_cpu_second"] else "-")
    lines.append("-" * len(head))
    lines.append(f"solved {t['solved']}/{t['levels']} (proven optimal {t['optimal']}, "
                 f"proved unsolvable {t['unsolvable']}, unfinished {t['unfinished']}); "
                 f"expanded {t['expanded']:,} in {t['seconds']:.1f} s of search ({rate})")
    return "\n".join(lines)


def _num(value) -> str:
    return "-" if value is None else str(value)


def records_json(records: Sequence[LevelRecord], **meta) -> str:
    """The run as JSON: ``meta`` keys, ``summary`` and ``levels``."""
    return json.dumps({**meta, "summary": totals(records),
                       "levels": [asdict(r) for r in records]}, indent=1) + "\n"


def records_csv(records: Sequence[LevelRecord]) -> str:
    """The run as CSV, one row per level."""
    out = io.StringIO()
    names = list(LevelRecord.__dataclass_fields__)
    writer = csv.DictWriter(out, fieldnames=names)
    writer.writeheader()
    for r in records:
        writer.writerow(asdict(r))
    return out.getvalue()


def write_outputs(records: Sequence[LevelRecord], json_path: str | None,
                  csv_path: str | None, **meta) -> None:
    """Write the JSON and CSV reports (atomically) where asked."""
    if json_path:
        atomic_write_text(json_path, records_json(records, **meta))
    if csv_path:
        atomic_write_text(csv_path, records_csv(records))
