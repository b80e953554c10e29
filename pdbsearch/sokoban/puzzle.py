"""Sokoban on the generic :class:`~pdbsearch.puzzle.Puzzle` interface.

:class:`SokobanPuzzle` turns a :class:`~.level.Level`, a metric, a lower
bound and a set of pruning :class:`Rules` into the params of the jitted
kernels (:mod:`.kernels`), and replays every solution the engines report
with the plain-Python checker of :mod:`.reference` before it is shown.
"""

from __future__ import annotations

from collections import deque
from dataclasses import replace
from typing import Any, Sequence

import numpy as np

from ..byref import to_ref
from ..errors import IllegalMoveError, PdbsearchError
from ..pictures.frame import BOX, PLAYER, Block, Film, Frame, Scene
from ..puzzle import Puzzle, Step, register_kernels
from .bounds import first_bound, heuristic, pattern_refinement
from .checker import check_solution as replay_check
from .checker import replay_positions
from .deadlocks import dead_square_mask
from .formats import format_xsb
from .kernels import (MACRO_BASE, MOVE_BASE, PatternBoundParams, SokobanParams, is_goal,
                      no_perimeter, work_arrays)
from .learning import expand_and_learn, learn_work, pattern_store
from .model import Level
from .rules import Rules
from .tables import (KeyLayout, grid_deltas, player_aware_tables, pull_distances,
                     region_cells, tunnel_axes)
from .vocabulary import (GROUPINGS, HEURISTICS, METRICS, PORTFOLIO_MEMBERS, RELAY_LEADERS,
                         check_members)

register_kernels(SokobanParams, expand=expand_and_learn, heuristic=heuristic,
                 is_goal=is_goal, first_bound=first_bound, refine=pattern_refinement)

_LURD = "lurd"


def cell_parity(cells, width: int) -> int:
    """The sum of the cells' row + column, mod 2.  A push moves one box by
    one cell and changes this sum of the boxes by one, so every way from a
    position to the goal takes a number of pushes of the parity of the
    boxes' sum minus the goals'."""
    return sum(sum(divmod(c, width)) for c in cells) % 2


class SokobanPuzzle(Puzzle):
    """One Sokoban level under a metric, with a lower bound and pruning rules."""

    domain = "sokoban"

    #: most k-subsets (k >= 3) the greedy grouping looks up per state
    GROUP_LIMIT = 128

    def __init__(self, level: Level, metric: str | None = None, heuristic: str | None = None,
                 rules: Rules = Rules(), *, patterns=None, pattern_boxes: int | None = None,
                 grouping: str | None = None, db_dir=None, pdb_path=None, log=None,
                 members: Sequence[str] | None = None):
        """``metric``, ``heuristic`` and ``grouping`` default to the
        vocabulary's defaults (pushes, pdb, greedy).  The ``pdb`` heuristic
        uses ``patterns`` (a loaded :class:`~.database.PatternTables`), or
        finds or builds the level's pattern PDB of up to ``pattern_boxes``
        boxes (default: as many as fit, up to 4) in ``db_dir`` (or reads
        ``pdb_path``); ``log`` (None: silent) hears about builds.
        ``members`` keeps only those members of the ``--algo fess``
        portfolio (:meth:`fess_portfolio`; None: all of them), to measure
        one alone."""
        metric = METRICS.check(metric)
        heuristic = HEURISTICS.check(heuristic)
        grouping = GROUPINGS.check(grouping)
        if pattern_boxes is not None and not 1 <= pattern_boxes <= 4:
            raise PdbsearchError(f"patterns of {pattern_boxes} boxes: choose from 1 to 4")
        self.patterns = patterns if heuristic == "pdb" else None
        self.pattern_boxes = pattern_boxes
        self._pdb_source = dict(db_dir=db_dir, pdb_path=pdb_path, log=log)
        self.grouping = grouping
        self.level = level
        self.metric = metric
        self.heuristic_name = heuristic
        self.heuristic_admissible = HEURISTICS[heuristic].admissible
        self.rules = rules
        self.members = None if members is None else check_members(members)
        self.max_successors = 4 * len(level.boxes)
        #: the backward search of an ``--algo fess`` run (:meth:`portfolio_engine`)
        self.perimeter = None
        self._build_layout()

    # -- tables -----------------------------------------------------------

    def _build_layout(self) -> None:
        """The region, the dead squares and the key layout: what keys need."""
        level = self.level
        n_grid = level.width * level.height
        self.region = region_cells(level)
        self.dist = pull_distances(level, self.region)
        dead = dead_square_mask(self.dist, n_grid)
        self.inside = np.zeros(n_grid, dtype=np.uint8)
        self.inside[self.region] = 1
        dead &= self.inside
        self.dead = dead
        self.dead_squares = frozenset(np.flatnonzero(dead).tolist())
        # A box never stands on a dead square once they are pruned (except
        # where it starts), so those cells need no bit in the key.
        if self.rules.dead_squares:
            box_cells = [c for c in self.region if not dead[c] or c in level.boxes]
        else:
            box_cells = self.region
        self.layout = KeyLayout.build(self.region, box_cells)
        self.key_words = self.layout.words
        # Tunnel macros are proven under the pushes metric only (the
        # single-push tunnel rule they collapse is not used under moves).
        self.macros = self.rules.tunnel_macros and self.metric == "pushes"
        self.tunnel = (tunnel_axes(level, self.region) if self.rules.tunnels or self.macros
                       else np.zeros(n_grid, np.int8))

    @property
    def unit_costs(self) -> bool:
        """True when every move costs 1: under pushes, unless a tunnel
        macro (which costs its pushes) may be taken; never under moves."""
        return self.metric == "pushes" and not (self.macros and self.tunnel.any())

    @property
    def lazy_bound(self) -> bool:
        """The ``pdb`` heuristic with its pattern tables: A* computes the
        pattern bound only for the nodes it expands (lazy A*)."""
        if self.heuristic_name != "pdb":
            return False
        self.prepare()      # finds or builds the tables (a one-box level has none)
        return self.patterns is not None

    def make_params(self, deadline: float | None, memory_limit: int | None) -> SokobanParams:
        """The kernels' params; the ``pdb`` heuristic's pattern tables are
        found or built here (see :meth:`~pdbsearch.puzzle.Puzzle.prepare`)."""
        level, rules, layout = self.level, self.rules, self.layout
        n_grid = level.width * level.height
        if self.heuristic_name == "pdb" and self.patterns is None:
            from .database import MAX_K, obtain_patterns
            self.patterns = obtain_patterns(level, self.pattern_boxes or MAX_K,
                                            deadline=deadline, memory_limit=memory_limit,
                                            **self._pdb_source)
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
        tunnel = self.tunnel
        goal_cells = np.array(sorted(level.goals), dtype=np.int32)
        deltas = grid_deltas(level.width)
        aware, side_comp, side_dist = player_aware_tables(self.inside, self.region, goal_cells,
                                                          deltas, player_index)
        # Without pattern tables (a one-box level) the pdb bound is the matching.
        bound = "matching" if self.heuristic_name == "pdb" and self.patterns is None \
            else self.heuristic_name
        return to_ref(SokobanParams(
            width=level.width, metric=METRICS.code(self.metric),
            heuristic=HEURISTICS.code(bound), incremental=1,
            freeze=int(rules.freeze), corral=int(rules.corral), tunnels=int(rules.tunnels),
            macros=int(self.macros), diagonal=int(rules.diagonal),
            n_boxes=n_boxes, player_shift=layout.player_shift,
            pushes_parity=(cell_parity(level.goals, level.width) if self.metric == "pushes"
                           else -1),
            inside=self.inside, goal=goal,
            dead=self.dead if rules.dead_squares else np.zeros(n_grid, np.uint8),
            tunnel=tunnel, box_bit=box_bit,
            bit_cell=np.array(layout.box_cells, dtype=np.int32),
            player_index=player_index, index_cell=np.array(layout.region, dtype=np.int32),
            box_mask=box_mask, goal_mask=goal_mask, dist=self.dist,
            nearest=self.dist.min(axis=0).astype(np.int32), aware=int(aware),
            goal_cells=goal_cells, side_comp=side_comp, side_dist=side_dist, deltas=deltas,
            patterns=self._pattern_params(n_grid),
            work=work_arrays(n_grid, n_boxes, self._candidate_groups(n_boxes)),
            learning=int(bool(rules.learning)),
            learned=pattern_store(layout.words, len(self.region), rules.learning is not False),
            learn=learn_work(n_grid, n_boxes, layout.words, len(self.region),
                             rules.learning is not False),
            perimeter=no_perimeter(layout.words)))

    def start_is_goal(self) -> bool:
        """True when every box starts on a goal."""
        return self.level.is_solved()

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

    #: algorithms for which learning pays when left to them (measured:
    #: under A* the k-box pattern tables already catch what the local
    #: searches prove, and learning only cost time; see docs/benchmarks.md)
    LEARNING_ALGORITHMS = ("wastar", "greedy", "fess")

    def tune(self, algo: str, weight: float) -> None:
        """Switch the learning of deadlock patterns on or off for ``algo``
        when the rules leave it to the algorithm (``learning=None``)."""
        if self.rules.learning is None:
            on = int(algo in self.LEARNING_ALGORITHMS)
            if on != self.params.learning:
                self.params = self.params._replace(learning=on)
        if self.params.perimeter.on:
            # A perimeter of an earlier run: it would end a search short of the goal.
            self.params = self.params._replace(perimeter=no_perimeter(self.key_words))
        self.perimeter = None

    def make_unit_costs(self) -> bool:
        """Under pushes, switch the tunnel macros off for good on this
        puzzle (each push a move of its own, as without them: the macros
        only save the search the positions inside a tunnel), so that BFS
        may run; under moves a move costs its walk, and nothing changes."""
        if not self.unit_costs and self.metric == "pushes":
            self.macros = False
            if self._params is not None:
                self.params = self.params._replace(macros=0)
        return self.unit_costs

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
        for number, code in enumerate(_single_pushes(move_codes, level.width), start=1):
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

    # -- pictures ---------------------------------------------------------

    def picture(self, key: np.ndarray) -> Film:
        """The position of ``key`` as a one-frame film (under ``pushes``
        the key keeps only the player's area: its first cell is drawn)."""
        boxes, player = self.position_of(key)
        return Film(self._scene(), (self._frame(boxes, player, "", None),))

    def start_picture(self) -> Film:
        """The level's start position, the player where the level puts it."""
        lv = self.level
        return Film(self._scene(), (self._frame(lv.boxes, lv.player, "start", None),))

    def solution_film(self, steps: Sequence[Step]) -> Film:
        """One frame per player step, replayed by the independent checker
        (:func:`.checker.replay_positions`); a push highlights its box, and
        each caption counts steps and pushes (and the cost, under moves)."""
        lurd = "".join(step.text for step in steps)
        positions = replay_positions(self.level, lurd)
        n_steps, n_pushes = len(lurd), sum(ch.isupper() for ch in lurd)
        boxes, player, _, _ = positions[0]
        frames = [self._frame(boxes, player, f"start: {n_steps} steps, {n_pushes} pushes", None)]
        pushes = 0
        for number, (boxes, player, move, pushed) in enumerate(positions[1:], start=1):
            pushes += pushed is not None
            what = f"push {move}" if pushed is not None else move
            cost = f", cost {number}" if self.metric == "moves" else ""
            frames.append(self._frame(boxes, player, f"step {number}/{n_steps}: {what}, pushes "
                                                     f"{pushes}/{n_pushes}{cost}", pushed))
        return Film(self._scene(), tuple(frames))

    def _scene(self) -> Scene:
        """Walls, floor and goals as ``(column, row)`` cells."""
        lv = self.level

        def cells(indices) -> frozenset:
            return frozenset((int(c) % lv.width, int(c) // lv.width) for c in indices)

        return Scene(lv.width, lv.height, floor=cells(lv.floor_cells()),
                     walls=cells(np.flatnonzero(lv.walls)), targets=cells(lv.goals),
                     target_name="goal", title=f"sokoban {lv.title or ''}".rstrip())

    def _frame(self, boxes, player: int, caption: str, pushed: int | None) -> Frame:
        """A position as blocks: the boxes (the pushed one highlighted, those
        on goals marked) and the player."""
        w, goals = self.level.width, self.level.goals
        blocks = [Block(i, "", ((c % w, c // w),), BOX, highlight=c == pushed,
                        on_target=c in goals) for i, c in enumerate(sorted(boxes))]
        blocks.append(Block(-1, "", ((player % w, player // w),), PLAYER,
                            highlight=pushed is not None))
        return Frame(tuple(blocks), caption, self.level.is_solved(boxes))

    def result_fields(self, result) -> dict[str, Any]:
        """``pushes``, ``steps`` and ``lurd`` of a result (None if unsolved)."""
        return solution_fields(result)

    def fess_portfolio(self) -> list[tuple[str, float, float, float | None]]:
        """``--algo fess``: the perimeter (a backward search whose positions
        the others take as goals, :mod:`.perimeter`), the FESS engine,
        weighted A* (α = 2), greedy search, a second FESS engine whose
        ties go to the positions nearest the goals (``fess-nearest``),
        FESS on the pull game from the solved position to the start
        (``fess-backward``, :mod:`.pullsolve`) and the relay, backward
        legs aimed at the FESS engines' best positions
        (``fess-relay``, :mod:`pdbsearch.search.relay`), sharing the time
        by :data:`PORTFOLIO_MEMBERS`, all with learned deadlock patterns
        (:meth:`tune`).  FESS is strong on goal rooms and
        many boxes, weighted A* with the pattern databases on small
        intricate levels, greedy on a few Microban levels the others are
        slow on (144, 93), the perimeter where the way backwards from the
        goal is the easier one, the second FESS engine on levels where the
        lower bound misleads the first (grigr2002 31 at 60 s), the
        backward FESS engine on levels whose end is the hard part (alone
        at 30 s it solves holland 78 and sasquatch5 39, which no other
        member solves at 60 s), the relay on levels where the first
        engine gets near the end and stalls (Kevin01 26, 54 and 90 of
        the held-out runs).  What each member and share brought is in
        docs/benchmarks.md.  With two threads the FESS engines detach
        into a thread of their own (:mod:`pdbsearch.search.portfolio`),
        where they take turns by their shares, and the others keep their
        shares of the first.  Weighted A* and greedy search keep their
        shares for their openings only (what they get of the first 10 s
        of one thread), then run at a fifth of them, and the relay runs at
        a third of its late share in its opening: the first two solve what
        they solve early, the relay late (with two threads, the first
        thread, its members past their openings, takes a FESS engine
        over).  ``members`` (the constructor's) keeps some of the members
        only."""
        if self.metric != "pushes":
            return []
        return [(name, *terms) for name, terms in PORTFOLIO_MEMBERS.items()
                if (self.rules.perimeter or name != "perimeter")
                and (self.members is None or name in self.members)]

    def check_algorithm(self, algo: str) -> None:
        """FESS (alone or in its portfolio) solves for pushes: walking is
        free in its macro moves, so the moves metric is refused."""
        if algo in ("fess", "fess-only") and self.metric != "pushes":
            raise PdbsearchError("fess solves for pushes (walking is free); "
                                 "use --metric pushes")

    def portfolio_engine(self, name: str, limits):
        """The portfolio's own members: ``perimeter``, the backward search
        whose positions the other members take as goals (:mod:`.perimeter`;
        first in the portfolio, so that the engines built after it read its
        table), ``fess-nearest``, a second FESS engine whose ranks break
        ties by the distances to the nearest goals rather than by the lower
        bound, whose packing plan takes the start squares on goals for
        blocked once used, and whose packed feature counts each goal area
        apart (:class:`.fess.SokobanFessDomain`, ``h_rank``,
        ``block_goal_starts``, ``by_goal_area``; :mod:`.packing`,
        :mod:`.plan`), without the first's goal-room macros
        (:mod:`.goalrooms`) and without its parked boxes (``park_boxes``:
        a rule that slows some levels, so one engine keeps the other way),
        ``fess-backward``,
        FESS on the pull game from the solved position to the start, or to
        any position along the paths of :data:`RELAY_LEADERS` to their best
        positions (:mod:`.pullsolve`), and ``fess-relay``, the same game's
        legs aimed at those best positions in turn
        (:mod:`pdbsearch.search.relay`)."""
        if name == "perimeter":
            return self._new_perimeter(limits)
        if name == "fess-nearest":
            from ..search.fess import FessSearch
            from .fess import SokobanFessDomain
            # Without goal-room macros: if a level's room fools them, this
            # engine still has every move.
            return FessSearch(self, limits, SokobanFessDomain(self, limits, h_rank=False,
                                                              block_goal_starts=True,
                                                              use_goal_rooms=False,
                                                              by_goal_area=True,
                                                              park_boxes=False))
        if name == "fess-backward":
            from .pullsolve import PullSolveSearch
            return PullSolveSearch(self, limits, leaders=RELAY_LEADERS)
        if name == "fess-relay":
            from ..search.relay import RelaySearch
            from .pullsolve import PullSolveSearch

            positions: dict[bytes, tuple[frozenset[int], int]] = {}

            def position(key):
                # The leaders' paths change little from one leg to the next.
                found = positions.get(key.tobytes())
                if found is None:
                    found = positions[key.tobytes()] = self.position_of(key)
                return found

            def leg(key, meet):
                return PullSolveSearch(self, limits, position(key), [position(k) for k in meet])
            return RelaySearch(leg, RELAY_LEADERS, self.initial_key())
        raise ValueError(f"no portfolio engine {name!r} for sokoban")

    def backward_search(self, limits):
        """Beside A* under the pushes metric: the perimeter
        filled breadth-first (:mod:`.perimeter`), so that its depths are the
        optimal pushes and its last complete layer bounds every position it
        does not hold (:mod:`pdbsearch.search.bidirectional`).  None under
        the moves metric (its depths count pushes), with the zero heuristic
        (a search asked to estimate nothing) and with ``--no-perimeter``."""
        if self.metric != "pushes" or self.heuristic_name == "zero" or not self.rules.perimeter:
            return None
        return self._new_perimeter(limits, greedy=False)

    def incumbent_finder(self) -> "tuple[str, SokobanPuzzle] | None":
        """``--algo fess`` on a copy of this level with the same rules,
        pattern tables and portfolio members, under the pushes metric (FESS
        solves for pushes): A* takes the cost of its solution, shortened,
        as an upper bound (:mod:`pdbsearch.search.incumbent`).  On the
        classic-style unseen sets it finds, in seconds, solutions at or near
        costs A* takes minutes to prove (docs/benchmarks.md).  None under
        the moves metric."""
        if self.metric != "pushes":
            return None
        self.prepare()     # the pattern tables, found or built once, shared
        copy = SokobanPuzzle(self.level, self.metric, self.heuristic_name, self.rules,
                             patterns=self.patterns, pattern_boxes=self.pattern_boxes,
                             grouping=self.grouping, members=self.members, **self._pdb_source)
        return "fess", copy

    def capped_finder(self) -> str | None:
        """The FESS engine alone (``fess-only``), capped at A*'s lower bound
        (:meth:`pdbsearch.search.fess.FessSearch.cap_costs`); None under the
        moves metric."""
        return "fess-only" if self.metric == "pushes" else None

    def _new_perimeter(self, limits, greedy: bool = True):
        """A new perimeter, in the params the searches read, and its engine
        (greedy towards the start in turn, or breadth-first alone)."""
        from .perimeter import Perimeter, PerimeterSearch
        self.perimeter = Perimeter(self, limits.memory_bytes())
        self.params = self.params._replace(perimeter=self.perimeter.table)
        return PerimeterSearch(self, self.perimeter, greedy)

    def solution_states(self, steps) -> list[np.ndarray]:
        """The position after each push of a replayed solution (a step of
        :meth:`check_solution` is one push, also inside a tunnel macro)."""
        level = self.level
        boxes = set(level.boxes)
        states = []
        for step in steps:
            box, d = divmod(int(step.code), MOVE_BASE)
            boxes.remove(box)
            boxes.add(box + level.delta(_LURD[d]))
            states.append(self.key_of(boxes, box))
        return states

    def segment_puzzle(self, start: np.ndarray, end: np.ndarray) -> "SokobanPuzzle":
        """The level from position ``start`` with the boxes of position
        ``end`` as its goals (for re-solving a stretch of a solution: the
        cells, and so the move codes, are this level's).  Its bound is the
        matching (pattern tables of these goals would cost more than the
        stretch); no perimeter (a backward search for one stretch)."""
        boxes, player = self.position_of(start)
        targets, _ = self.position_of(end)
        level = Level.from_parts(self.level.walls, targets, boxes, [player],
                                 source=self.level.source)
        return SokobanPuzzle(level, self.metric, "matching", replace(self.rules, perimeter=False))

    def complete_solution(self, keys, codes):
        """A path that ends on a perimeter position, carried on to the goal
        by the perimeter's stored pushes."""
        if self.perimeter is None or self.level.is_solved(self.position_of(keys[-1])[0]):
            return keys, codes
        index = self.perimeter.index_of(keys[-1])
        if index < 0:
            return keys, codes   # not ours to mend: the replay will say so
        more_keys, more_codes = self.perimeter.way_to_goal(index)
        self.perimeter.met = True
        return list(keys) + more_keys, list(codes) + more_codes

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

    def limit_hint(self, algo: str) -> str | None:
        """Point a search that ran out of its limits at FESS, which solves
        in seconds most levels that A* cannot prove optimal in a minute
        (docs/benchmarks.md: 94 % against 22 % of two unseen classic sets)."""
        if algo.startswith("fess"):
            return None
        return ("hint: --algo fess finds solutions of hard levels far sooner, without "
                "the optimality guarantee (its solutions are then shortened)")

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
        elif self.heuristic_name == "pdb" and self._params is not None:
            heuristic += " (one box: the matching is exact, no pattern tables)"
        return (f"sokoban{title} {lv.width}x{lv.height}, {boxes}, "
                f"{self.metric} metric, heuristic {heuristic}, "
                f"rules {self.rules.describe()}")


def _single_pushes(move_codes: Sequence[int], width: int) -> list[int]:
    """The move codes with every tunnel macro (``(count - 1) * MACRO_BASE +
    box * MOVE_BASE + d``) written out as its ``count`` single pushes."""
    deltas = (-1, -width, 1, width)
    out = []
    for code in move_codes:
        extra, single = divmod(int(code), MACRO_BASE)
        box, d = divmod(single, MOVE_BASE)
        for i in range(extra + 1):
            out.append((box + i * deltas[d]) * MOVE_BASE + d)
    return out


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
