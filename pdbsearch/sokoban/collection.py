"""Solving every level of a Sokoban collection: the options, the records,
the hooks the level runner (:func:`pdbsearch.batch.levels.run_levels`)
calls, and the reports.

The reports are rewritten as records arrive (:class:`LiveReports`), and a
run can be resumed from its JSON (:func:`read_resume`).
"""

from __future__ import annotations

import csv
import io
import json
import os
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from ..batch import KILLED, NOT_RUN
from ..batch.levels import copy_search_figures, cost_or_bounds, limits_of_one_level
from ..io import atomic_write_text
from ..search import DEFAULT_SHORTCUT_DEPTH, Limits, Status, solve
from ..search import warm_up as warm_up_search
from .model import Level
from .puzzle import Rules, SokobanPuzzle, solution_fields
from .vocabulary import GROUPINGS, HEURISTICS, METRICS

#: Status of a level that breaks a rule of the model (its ``error`` says
#: which, with its line): never run; the other levels of its file are.
INVALID = "invalid"


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
    threads: int | None = None       #: per level (default: the cores shared among the jobs)
    members: tuple[str, ...] | None = None  #: ``--algo fess``: only these portfolio members
    shorten: int = DEFAULT_SHORTCUT_DEPTH  #: shortcut depth of a non-optimal solution (0: off)

    def puzzle(self, level: Level) -> SokobanPuzzle:
        """The puzzle of ``level`` under these options (its pattern PDB is
        found in the database folder, or built and saved there)."""
        return SokobanPuzzle(level, self.metric, self.heuristic, self.rules,
                             pattern_boxes=self.pattern_boxes, grouping=self.grouping,
                             db_dir=self.db_dir, members=self.members)

    def limits(self, jobs: int = 1) -> Limits:
        """The limits of one level when ``jobs`` levels run at once."""
        return limits_of_one_level(self, jobs)

    def describe(self) -> dict:
        """The options as a JSON-ready dict."""
        d = asdict(self)
        d["rules"] = self.rules.describe()
        if self.members is not None:   # as JSON gives it back, so that a resume compares
            d["members"] = list(self.members)
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

    def warm_up_levels(self, levels: Sequence[Level]) -> list[Level]:
        """The levels :meth:`warm_up` needs of ``levels`` (one: all a batch
        must carry to each worker, not the whole collection)."""
        return [warm_up_level(levels)] if levels else []


@dataclass
class LevelRecord:
    """The outcome of one level of a run."""

    number: int
    title: str | None
    boxes: int
    status: str = NOT_RUN
    optimal: bool = False
    cost: int | None = None
    found_cost: int | None = None  #: the search's cost, when shortening lowered it
    pushes: int | None = None
    steps: int | None = None
    lower_bound: float | None = None
    #: the cost of a fast solver's solution the search did not prove optimal
    upper_bound: int | None = None
    expanded: int = 0
    generated: int = 0
    seconds: float = 0.0          #: search time (compile excluded)
    cpu_seconds: float = 0.0      #: CPU time of the search (see SearchResult)
    wall_seconds: float = 0.0     #: the child's whole life, as the parent saw it
    stop_reason: str | None = None
    error: str | None = None
    lurd: str | None = None
    winner: str | None = None     #: the portfolio member that solved it (``--algo fess``)
    #: the moves of the solution of cost ``upper_bound`` (replayed): nothing found is lost
    upper_bound_lurd: str | None = None

    @property
    def solved(self) -> bool:
        """True when a checked solution was found."""
        return self.status == Status.SOLVED.value


def invalid_record(number: int, invalid) -> LevelRecord:
    """The record of a level that could not be built (an
    :class:`~.formats.InvalidLevel`): status :data:`INVALID`, its error."""
    return LevelRecord(number, invalid.title, 0, status=INVALID, error=str(invalid.error))


def solve_level(level: Level, number: int, options: RunOptions, limits: Limits) -> LevelRecord:
    """Solve one level in this process and describe the outcome."""
    record = LevelRecord(number, level.title, len(level.boxes))
    result = solve(options.puzzle(level), options.algo, options.weight, limits,
                   shorten=options.shorten)
    sol = result.extra
    copy_search_figures(record, result)
    record.pushes, record.steps, record.lurd = sol["pushes"], sol["steps"], sol["lurd"]
    record.winner = result.winner
    kept = result.kept_solution()
    if kept is not None:
        record.upper_bound_lurd = solution_fields(kept)["lurd"]
    return record


def warm_up_level(levels: Sequence[Level]) -> Level:
    """The level a warm-up solves: the smallest of two boxes or more.  A
    one-box level needs no pattern tables, and each child would then import
    h5py and load the tables' kernels again (0.1 to 0.15 s a level on
    Microban: most of a small level's time)."""
    several = [lv for lv in levels if len(lv.boxes) >= 2] or list(levels)
    return min(several, key=lambda lv: len(lv.boxes))


def warm_up(levels: Sequence[Level], options: RunOptions) -> None:
    """Compile (or load) the kernels and the engine in this process, so the
    forked children start with them ready (the solve loads every kernel a
    run calls before it searches)."""
    result = warm_up_search(options.puzzle(warm_up_level(levels)), options.algo,
                            options.weight, options.shorten)
    if result.stop_reason == "interrupted":  # the search caught Ctrl-C: pass it on
        raise KeyboardInterrupt


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
        "unfinished": sum(not r.solved and r.status not in (Status.UNSOLVABLE.value, INVALID)
                          for r in records),
        "invalid": sum(r.status == INVALID for r in records),
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
        "winners": winner_counts(records),
    }


def winner_counts(records: Sequence[LevelRecord]) -> dict[str, int]:
    """How many solved levels each portfolio member won, most first (empty
    when no portfolio ran)."""
    counts = Counter(r.winner for r in records if r.solved and r.winner)
    return dict(counts.most_common())


def summary_table(records: Sequence[LevelRecord]) -> str:
    """A text table of the run, one line per level, then the totals."""
    head = f"{'level':>5} {'boxes':>5} {'status':<11} {'optimal':<7} {'pushes':>8} " \
           f"{'steps':>6} {'expanded':>12} {'seconds':>9}  title"
    lines = [head, "-" * len(head)]
    for r in records:
        lines.append(f"{r.number:>5} {r.boxes:>5} {r.status:<11} "
                     f"{'yes' if r.solved and r.optimal else '-':<7} "
                     f"{cost_or_bounds(r, r.pushes):>8} {_num(r.steps):>6} {r.expanded:>12,} "
                     f"{r.seconds:>9.2f}  {r.title or ''}")
    t = totals(records)
    rate = (f"{t['nodes_per_second']:,} nodes/s, {t['nodes_per_cpu_second']:,} per CPU second"
            if t["nodes_per_second"] and t["nodes_per_cpu_second"] else "-")
    lines.append("-" * len(head))
    lines.append(f"solved {t['solved']}/{t['levels']} (proven optimal {t['optimal']}, "
                 f"proved unsolvable {t['unsolvable']}, unfinished {t['unfinished']}"
                 f"{', invalid ' + str(t['invalid']) if t['invalid'] else ''}); "
                 f"expanded {t['expanded']:,} in {t['seconds']:.1f} s of search ({rate})")
    if t["winners"]:
        lines.append("won by: " + ", ".join(f"{name} {count}"
                                            for name, count in t["winners"].items()))
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


class LiveReports:
    """The JSON and CSV reports of a run, kept up to date while it runs.

    Written at once (so a path that cannot be written is refused before any
    level runs), then rewritten atomically as records arrive, at most every
    ``every`` seconds and every ten times as long as a write takes (a run of
    450,000 levels must not rewrite its report 450,000 times), and a last
    time by :meth:`close`.  A run stopped in any
    way leaves a complete report of what finished.
    """

    def __init__(self, records: Sequence[LevelRecord], json_path: str | None,
                 csv_path: str | None, every: float = 2.0, **meta):
        self.records = {r.number: r for r in records}
        self.json_path, self.csv_path = json_path, csv_path
        self.meta = meta
        self.every = every
        self._written = self._interval = 0.0
        self.write(interrupted=False)

    def add(self, record: LevelRecord) -> None:
        """Take a new record; rewrite the reports if the last write is old."""
        self.records[record.number] = record
        if time.monotonic() - self._written >= self._interval:
            self.write(interrupted=False)

    def write(self, interrupted: bool) -> None:
        """Rewrite both reports now."""
        start = time.monotonic()
        write_outputs(list(self.records.values()), self.json_path, self.csv_path,
                      **self.meta, interrupted=interrupted)
        self._written = time.monotonic()
        # A report of 450,000 records takes seconds to write: rewriting it
        # every two seconds would leave no time for the run.  At most a tenth
        # of the time goes to rewriting.
        self._interval = max(self.every, 10 * (self._written - start))

    def close(self, records: Sequence[LevelRecord], interrupted: bool) -> None:
        """The final reports, from the run's final records."""
        self.records = {r.number: r for r in records}
        self.write(interrupted)


#: Statuses of a record that a resumed run keeps (the level ran to an end
#: of its own); the others (crashed, lost, interrupted, not run) run again.
FINAL_STATUSES = (Status.SOLVED.value, Status.UNSOLVABLE.value, Status.LIMIT.value, KILLED)


def read_resume(path: str, levels: Sequence[Level], numbers: Sequence[int],
                options: RunOptions) -> dict[int, LevelRecord]:
    """The finished records of an earlier run's JSON report ``path``, for
    ``--resume``: empty when the file does not exist yet.  Refused (a
    PdbsearchError naming the file and the problem) when it is not such a
    report, was made with other options, or records levels that are not
    these."""
    from ..errors import PdbsearchError
    from ..io import read_text

    if not os.path.exists(path):
        return {}
    text = read_text(path)
    try:
        data = json.loads(text)
        entries = data["levels"]
        recorded = data["options"]
        if not isinstance(entries, list) or not isinstance(recorded, dict):
            raise TypeError("levels must be a list, options an object")
        fields = set(LevelRecord.__dataclass_fields__)
        found = [LevelRecord(**{k: v for k, v in e.items() if k in fields}) for e in entries]
    except (ValueError, KeyError, TypeError) as exc:
        raise PdbsearchError(f"{path}: not a levels report to resume from "
                             f"({type(exc).__name__}: {str(exc)[:200]})") from None
    wanted = options.describe()
    differ = sorted(k for k in wanted if k in recorded and recorded[k] != wanted[k]
                    and k not in ("db_dir", "threads"))
    if differ:
        what = ", ".join(f"{k} {recorded[k]!r} there, {wanted[k]!r} now" for k in differ)
        raise PdbsearchError(f"{path}: recorded with other options ({what}); resume with "
                             f"the same options, or write to another file")
    by_number = {n: lv for n, lv in zip(numbers, levels)}
    done = {}
    for record in found:
        if record.status not in FINAL_STATUSES:
            continue   # run again (an invalid level is checked again)
        level = by_number.get(record.number)
        if level is None or record.boxes != len(level.boxes) or record.title != level.title:
            raise PdbsearchError(f"{path}: its level {record.number} is not level "
                                 f"{record.number} of this collection; resume with the "
                                 f"file it was made from")
        done[record.number] = record
    return done
