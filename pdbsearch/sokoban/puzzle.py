"""Sokoban on the generic :class:`~pdbsearch.puzzle.Puzzle` interface.

:class:`SokobanPuzzle` turns a :class:`~.level.Level`, a metric, a lower
bound and a set of pruning :class:`Rules` into the params of the jitted
kernels (:mod:`.kernels`), and replays every solution the engines report
with the plain-Python checker of :mod:`.reference` before it is shown.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, fields
from typing import Any, Sequence

import numpy as np

from ..errors import IllegalMoveError, PdbsearchError
from ..puzzle import Puzzle, Step, register_kernels
from .bounds import heuristic
from .checker import check_solution as replay_check
from .deadlocks import dead_square_mask
from .formats import format_xsb
from .kernels import (MOVE_BASE, PatternBoundParams, SokobanParams, expand, is_goal,
                      work_arrays)
from .model import Level
from .tables import (KeyLayout, grid_deltas, player_aware_tables, pull_distances,
                     region_cells, tunnel_axes)
from .vocabulary import GROUPINGS, HEURISTICS, METRICS

register_kernels(SokobanParams, expand=expand, heuristic=heuristic, is_goal=is_goal)

_LURD = "lurd"


@dataclass(frozen=True)
class Rules:
    """Which deadlock and pruning rules the search uses (all sound; see
    :mod:`.deadlocks`).  Each has a ``--no-...`` switch on the command line
    so that its effect can be measured."""

    dead_squares: bool = True   #: never push a box onto a dead square
    freeze: bool = True         #: prune freeze deadlocks (2x2 blocks, frozen chains)
    corral: bool = True         #: PI-corral pruning and corral deadlocks
    tunnels: bool = True        #: one-way tunnel pruning

    def names(self) -> list[str]:
        """The names of the rules switched on."""
        return [f.name.replace("_", "-") for f in fields(self) if getattr(self, f.name)]

    def describe(self) -> str:
        """The rules switched on, as ``dead-squares+freeze+...`` (or ``none``)."""
        return "+".join(self.names()) or "none"


class SokobanPuzzle(Puzzle):
    """One Sokoban level under a metric, with a lower bound and pruning rules."""

    domain = "sokoban"

    #: most k-subsets (k >= 3) the greedy grouping looks up per state
    GROUP_LIMIT = 128

    def __init__(self, level: Level, metric: str | None = None, heuristic: str | None = None,
                 rules: Rules = Rules(), *, patterns=None, pattern_boxes: int | None = None,
                 grouping: str | None = None, db_dir=None, pdb_path=None, log=None):
        """``metric``, ``heuristic`` and ``grouping`` default to the
        vocabulary's defaults (pushes, pdb, greedy).  The ``pdb`` heuristic
        uses ``patterns`` (a loaded :class:`~.database.PatternTables`), or
        finds or builds the level's pattern PDB of up to ``pattern_boxes``
        boxes (default: as many as fit, up to 4) in ``db_dir`` (or reads
        ``pdb_path``); ``log`` (None: silent) hears about builds."""
        metric = METRICS.check(metric)
        heuristic = HEURISTICS.check(heuristic)
        grouping = GROUPINGS.check(grouping)
        if pattern_boxes is not None and not 1 <= pattern_boxes <= 4:
            raise PdbsearchError(f"patterns of {pattern_boxes} boxes: choose from 1 to 4")
        if heuristic == "pdb" and patterns is None:
            from .database import MAX_K, obtain_patterns
            patterns = obtain_patterns(level, pattern_boxes or MAX_K, db_dir, pdb_path,
                                       log=log)
        self.patterns = patterns if heuristic == "pdb" else None
        self.grouping = grouping
        self.level = level
        self.metric = metric
        self.heuristic_name = heuristic
        self.heuristic_admissible = HEURISTICS[heuristic].admissible
        self.unit_costs = metric == "pushes"
        self.rules = rules
        self.max_successors = 4 * len(level.boxes)
        self._build_params()

    # -- tables -----------------------------------------------------------

    def _build_params(self) -> None:
        level, rules = self.level, self.rules
        n_grid = level.width * level.height
        region = region_cells(level)
        dist = pull_distances(level, region)
        dead = dead_square_mask(dist, n_grid)
        inside = np.zeros(n_grid, dtype=np.uint8)
        inside[region] = 1
        dead &= inside
        self.dead_squares = frozenset(np.flatnonzero(dead).tolist())
        # A box never stands on a dead square once they are pruned (except
        # where it starts), so those cells need no bit in the key.
        if rules.dead_squares:
            box_cells = [c for c in region if not dead[c] or c in level.boxes]
        else:
            box_cells = region
        layout = KeyLayout.build(region, box_cells)
        self.layout = layout
        self.key_words = layout.words
        goal = np.zeros(n_grid, dtype=np.uint8)
        goal[sorted(level.goals)] = 1
        box_bit = np.full(n_grid, -1, dtype=np.int32)
        box_bit[list(layout.box_cells)] = np.arange(len(layout.box_cells), dtype=np.int32)
        player_index = np.full(n_grid, -1, dtype=np.int32)
        player_index[list(layout.region)] = np.arange(len(layout.region), dtype=np.int32)
        box_mask = np.zeros(layout.words, dtype=np.uint64)
        for i in range(len(layout.box_cells)):
            box_mask[i >> 6] |= np.uint64(1 << (i & 63))
        goal_mask = layout.encode(level.goals, 0)
        n_boxes = len(level.boxes)
        tunnel = tunnel_axes(level, region) if rules.tunnels else np.zeros(n_grid, np.int8)
        goal_cells = np.array(sorted(level.goals), dtype=np.int32)
        deltas = grid_deltas(level.width)
        aware, side_comp, side_dist = player_aware_tables(inside, region, goal_cells, deltas,
                                                          player_index)
        self.params = SokobanParams(
            width=level.width, metric=METRICS.code(self.metric),
            heuristic=HEURISTICS.code(self.heuristic_name), incremental=1,
            freeze=int(rules.freeze), corral=int(rules.corral), tunnels=int(rules.tunnels),
            n_boxes=n_boxes, player_shift=layout.player_shift,
            inside=inside, goal=goal,
            dead=dead if rules.dead_squares else np.zeros(n_grid, np.uint8),
            tunnel=tunnel, box_bit=box_bit,
            bit_cell=np.array(layout.box_cells, dtype=np.int32),
            player_index=player_index, index_cell=np.array(layout.region, dtype=np.int32),
            box_mask=box_mask, goal_mask=goal_mask, dist=dist,
            nearest=dist.min(axis=0).astype(np.int32), aware=int(aware),
            goal_cells=goal_cells, side_comp=side_comp, side_dist=side_dist, deltas=deltas,
            patterns=self._pattern_params(n_grid),
            work=work_arrays(n_grid, n_boxes, self._candidate_groups(n_boxes)))

    def _pattern_params(self, n_grid: int) -> PatternBoundParams:
        """The pattern tables as the bound reads them (placeholders without)."""
        pt = self.patterns
        grouping = GROUPINGS.code(self.grouping)
        if pt is None:
            return PatternBoundParams(np.full(1, 255, np.uint8), np.zeros(2, np.int64), 0,
                                      np.zeros((1, 1), np.int64), np.full(n_grid, -1, np.int64),
                                      grouping, 0)
        return PatternBoundParams(pt.table, pt.offsets, pt.k, pt.binom, pt.pat_index, grouping,
                                  self.GROUP_LIMIT)

    def _candidate_groups(self, n_boxes: int) -> int:
        """Room for the pattern bound's candidate groups: every pair, and up
        to the limit of triples and quadruples."""
        if self.patterns is None:
            return 1
        return n_boxes * (n_boxes - 1) // 2 + 2 * self.GROUP_LIMIT + 1

    # -- keys -------------------------------------------------------------

    def key_of(self, boxes, player: int) -> np.ndarray:
        """The key of a position (the player is normalised for pushes)."""
        boxes = frozenset(boxes)
        if self.metric == "pushes":
            player = self.level.normalized_player(player, boxes)
        return self.layout.encode(boxes, self.layout.region.index(player))

    def position_of(self, key: np.ndarray) -> tuple[frozenset[int], int]:
        """``(box cells, player cell)`` of a key."""
        return self.layout.decode(key)

    def initial_key(self) -> np.ndarray:
        """The key of the level's start position."""
        return self.key_of(self.level.boxes, self.level.player)

    def render(self, key: np.ndarray) -> str:
        """The position in XSB (the normalised player cell under pushes)."""
        boxes, player = self.position_of(key)
        return format_xsb(self.level, boxes, player, title=False).rstrip("\n")

    # -- solutions --------------------------------------------------------

    def check_solution(self, move_codes: Sequence[int]) -> tuple[list[Step], int]:
        """Rebuild the walks between the pushes (shortest walks, by BFS),
        then replay the whole LURD string with the independent checker of
        :mod:`.reference`; returns the steps (one per push, its text the
        walk and the push, e.g. ``"llUR"`` gives ``"llU"`` and ``"R"``) and
        the cost in this puzzle's metric."""
        level = self.level
        boxes = set(level.boxes)
        player = level.player
        steps = []
        for number, code in enumerate(move_codes, start=1):
            box, d = divmod(int(code), MOVE_BASE)
            delta = level.delta(_LURD[d])
            if box not in boxes:
                raise IllegalMoveError(f"push {number}: no box at row "
                                       f"{box // level.width + 1}, column {box % level.width + 1}")
            walk = shortest_walk(level, player, box - delta, boxes)
            if walk is None:
                raise IllegalMoveError(f"push {number}: the player cannot reach the cell "
                                       f"behind the box at row {box // level.width + 1}, "
                                       f"column {box % level.width + 1}")
            text = walk + _LURD[d].upper()
            steps.append(Step(int(code), 1 if self.metric == "pushes" else len(text), text))
            boxes.remove(box)
            boxes.add(box + delta)
            player = box
        lurd = "".join(s.text for s in steps)
        pushes, n_steps = replay_check(level, lurd)
        if pushes != len(steps):
            raise IllegalMoveError(f"the replay counts {pushes} pushes, not {len(steps)}")
        return steps, pushes if self.metric == "pushes" else n_steps

    def result_fields(self, result) -> dict[str, Any]:
        """``pushes``, ``steps`` and ``lurd`` of a result (None if unsolved)."""
        return solution_fields(result)

    def fess_portfolio(self) -> list[tuple[str, float]]:
        """``--algo fess``: the FESS engine and greedy push search, sharing
        the time (greedy with the pattern databases is strong on small
        intricate levels, FESS on goal rooms and many boxes)."""
        if self.metric != "pushes":
            return []
        return [("fess-only", 0.5), ("greedy", 0.5)]

    def fess_domain(self, limits):
        """This level on the FESS protocol (:mod:`.fess`: macro moves, features)."""
        from .fess import SokobanFessDomain
        return SokobanFessDomain(self, limits)

    # -- wording of reports (see Puzzle) --------------------------------------

    @property
    def cost_unit(self) -> str:
        """The metric's unit: pushes or moves."""
        return self.metric

    def optimality_word(self) -> str:
        """``push-optimal`` or ``move-optimal``."""
        return {"pushes": "push-optimal", "moves": "move-optimal"}[self.metric]

    def cost_text(self, result) -> str:
        """Both counts, e.g. ``"13 pushes, 41 steps"``."""
        sol = solution_fields(result)
        return f"{sol['pushes']} pushes, {sol['steps']} steps"

    def solution_lines(self, result) -> list[str]:
        """The LURD string."""
        return ["lurd: " + "".join(s.text for s in result.steps)]

    def describe(self) -> str:
        """One line naming the instance."""
        lv = self.level
        title = f" {lv.title!r}" if lv.title else ""
        boxes = f"{len(lv.boxes)} box{'es' if len(lv.boxes) != 1 else ''}"
        heuristic = self.heuristic_name
        if self.patterns is not None:
            heuristic += f" (patterns of 1-{self.patterns.k} boxes, {self.grouping})"
        return (f"sokoban{title} {lv.width}x{lv.height}, {boxes}, "
                f"{self.metric} metric, heuristic {heuristic}, "
                f"rules {self.rules.describe()}")


def solution_fields(result) -> dict[str, Any]:
    """``pushes``, ``steps`` and ``lurd`` of a result (None if unsolved)."""
    if not result.steps and result.cost is None:
        return {"pushes": None, "steps": None, "lurd": None}
    lurd = "".join(s.text for s in result.steps)
    return {"pushes": sum(ch.isupper() for ch in lurd), "steps": len(lurd), "lurd": lurd}


def shortest_walk(level: Level, start: int, goal: int, boxes) -> str | None:
    """Lower-case LURD of a shortest walk from ``start`` to ``goal`` that
    avoids walls and ``boxes``, or None if there is none."""
    if not level.is_floor(goal) or goal in boxes:
        return None
    came: dict[int, tuple[int, int] | None] = {start: None}
    todo = deque([start])
    while todo and goal not in came:
        c = todo.popleft()
        for k, ch in enumerate(_LURD):
            n = c + level.delta(ch)
            if n not in came and level.is_floor(n) and n not in boxes:
                came[n] = (c, k)
                todo.append(n)
    if goal not in came:
        return None
    path = []
    while came[goal] is not None:
        goal, k = came[goal]
        path.append(_LURD[k])
    return "".join(reversed(path))
