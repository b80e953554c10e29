"""Plain-Python Sokoban oracles for the tests: dead squares, exhaustive
push- and move-optimal BFS, and the k-box pattern tables.

Everything here is deliberately simple and independent of the numba code,
so that tests can check the fast solver against it.  The searches are
exhaustive breadth-first searches over Python sets: fine for small levels
(up to some hundred thousand states), hopeless for big ones.
"""

from __future__ import annotations

from collections import deque
from itertools import combinations

import numpy as np

from ..errors import PdbsearchError
from ..pdb.builder import UNREACHABLE
from ..sokoban.abstraction import pattern_params, pattern_rank, table_entries
from ..sokoban.checker import _LURD, _deltas
from ..sokoban.model import Level
from ..sokoban.tables import region_cells

#: Default cap on the number of distinct states a BFS may store.
DEFAULT_MAX_STATES = 1_000_000


class StateLimitError(PdbsearchError, RuntimeError):
    """A reference search stored more states than its ``max_states``."""


# -- dead squares -------------------------------------------------------------


def dead_squares(level: Level) -> np.ndarray:
    """Floor cells from which a lone box can never reach any goal.

    Found backwards: a box on a goal is live, and a box that can be pulled
    from a live cell ``c`` to ``c - d`` (the player standing on ``c - d``
    steps back to ``c - 2d``: both must be floor) is live too.  The player's
    access to the pulling side is ignored, so a cell marked dead is surely
    dead (the converse need not hold).  Returns a bool array of shape
    ``(height, width)``; walls and outside cells are False.
    """
    live = _lone_box_reach(level, level.goals, pulls=True)
    dead = np.zeros((level.height, level.width), dtype=bool)
    for cell in level.floor_cells():
        if cell not in live:
            dead.flat[cell] = True
    return dead


def _lone_box_reach(level: Level, sources, pulls: bool) -> set[int]:
    """Cells a lone box gets to from ``sources``, by pushes (a box on ``c``
    moved along ``d`` to ``c + d``, the player behind it on ``c - d``) or
    by ``pulls`` (the player on ``c + d`` steps back to ``c + 2d``).  Both
    cells must be floor; the player's access is ignored, so a cell left out
    is surely out of reach."""
    deltas = _deltas(level)
    reached = set(sources)
    todo = deque(sources)
    while todo:
        c = todo.popleft()
        for d in deltas:
            nxt = c + d
            player = nxt + d if pulls else c - d
            if nxt not in reached and level.is_floor(nxt) and level.is_floor(player):
                reached.add(nxt)
                todo.append(nxt)
    return reached


def start_reachable(level: Level) -> frozenset[int]:
    """Floor cells a lone box can be pushed to from some start square (a
    cell left out is surely out of every box's reach)."""
    return frozenset(_lone_box_reach(level, level.boxes, pulls=False))


def stuck_off_start(level: Level, boxes) -> bool:
    """True when some box of ``boxes`` off the level's start squares can
    never be pulled again (the backward game's freeze deadlock).

    Pulling a box on ``b`` along ``d`` takes floor on ``b + d`` and on
    ``b + 2d``, neither holding a box that never moves.  The boxes that
    never move are what is left after dropping, again and again, every box
    with a possible pull."""
    deltas = _deltas(level)
    stuck = set(boxes)
    changed = True
    while changed:
        changed = False
        for b in sorted(stuck):
            if any(level.is_floor(b + d) and b + d not in stuck
                   and level.is_floor(b + 2 * d) and b + 2 * d not in stuck for d in deltas):
                stuck.discard(b)
                changed = True
    return any(b not in level.boxes for b in stuck)


def _dead_set(level: Level, prune_dead: bool) -> frozenset[int]:
    if not prune_dead:
        return frozenset()
    return frozenset(np.flatnonzero(dead_squares(level)).tolist())


# -- push-optimal BFS ---------------------------------------------------------

# A push-level state: (box cells, normalised player cell).
_PushState = tuple[frozenset[int], int]


def _push_bfs(level: Level, max_states: int, prune_dead: bool
              ) -> tuple[_PushState, dict] | None:
    """BFS by pushes.  Returns the goal state and the parent links
    (state -> (parent state, box cell, direction index)), or None."""
    deltas = _deltas(level)
    dead = _dead_set(level, prune_dead)
    start: _PushState = (level.boxes, level.normalized_player())
    parents: dict[_PushState, tuple | None] = {start: None}
    if level.is_solved():
        return start, parents
    frontier = [start]
    while frontier:
        layer = []
        for state in frontier:
            boxes, man = state
            reach = level.reachable(man, boxes)
            for box in boxes:
                for k, d in enumerate(deltas):
                    target = box + d
                    if (box - d not in reach or target in boxes
                            or target in dead or not level.is_floor(target)):
                        continue
                    new_boxes = (boxes - {box}) | {target}
                    man_area = level.normalized_player(box, new_boxes)
                    child = (new_boxes, man_area)
                    if child in parents:
                        continue
                    parents[child] = (state, box, k)
                    if new_boxes == level.goals:
                        return child, parents
                    if len(parents) > max_states:
                        raise StateLimitError(
                            f"push BFS stopped after {max_states} states")
                    layer.append(child)
        frontier = layer
    return None


def boxes_can_reach_goals(level: Level, boxes, player: int,
                          max_states: int = DEFAULT_MAX_STATES) -> bool:
    """Can ``boxes`` (any number, at most the goals), alone on the board
    with the player at ``player``, each be pushed onto a goal?  Exhaustive
    BFS over pushes with no pruning at all (the oracle of learned deadlock
    patterns)."""
    deltas = _deltas(level)
    start = (frozenset(boxes), level.normalized_player(player, frozenset(boxes)))
    seen = {start}
    todo = deque([start])
    while todo:
        state = todo.popleft()
        box_set, man = state
        if box_set <= level.goals:
            return True
        reach = level.reachable(man, box_set)
        for box in box_set:
            for d in deltas:
                target = box + d
                if box - d not in reach or target in box_set or not level.is_floor(target):
                    continue
                new_boxes = (box_set - {box}) | {target}
                child = (new_boxes, level.normalized_player(box, new_boxes))
                if child not in seen:
                    if len(seen) > max_states:
                        raise StateLimitError(f"box BFS stopped after {max_states} states")
                    seen.add(child)
                    todo.append(child)
    return False


def bfs_min_pushes(level: Level, max_states: int = DEFAULT_MAX_STATES,
                   prune_dead: bool = True) -> int | None:
    """The minimum number of pushes that solves the level, or None if no
    sequence of pushes does.

    Exhaustive BFS over (boxes, normalised player) states; boxes are never
    pushed onto dead squares when ``prune_dead`` (which cannot change the
    answer).  Raises :class:`StateLimitError` beyond ``max_states``.
    """
    found = _push_bfs(level, max_states, prune_dead)
    if found is None:
        return None
    state, parents = found
    pushes = 0
    while parents[state] is not None:
        state = parents[state][0]
        pushes += 1
    return pushes


def bfs_min_pushes_solution(level: Level,
                            max_states: int = DEFAULT_MAX_STATES,
                            prune_dead: bool = True) -> str | None:
    """A LURD solution with the minimum number of pushes, or None.

    The walks between pushes are shortest paths, but the total number of
    steps is not minimised among push-optimal solutions.
    """
    found = _push_bfs(level, max_states, prune_dead)
    if found is None:
        return None
    state, parents = found
    pushes: list[tuple[frozenset[int], int, int]] = []
    while parents[state] is not None:
        parent, box, k = parents[state]
        pushes.append((parent[0], box, k))
        state = parent
    pushes.reverse()
    deltas = _deltas(level)
    man, moves = level.player, []
    for boxes, box, k in pushes:
        moves.append(_walk(level, man, box - deltas[k], boxes))
        moves.append(_LURD[k].upper())
        man = box
    return "".join(moves)


def _walk(level: Level, start: int, goal: int, boxes: frozenset[int]) -> str:
    """Lower-case LURD of a shortest walk from ``start`` to ``goal``."""
    deltas = _deltas(level)
    came: dict[int, tuple[int, int] | None] = {start: None}
    todo = deque([start])
    while todo and goal not in came:
        c = todo.popleft()
        for k, d in enumerate(deltas):
            n = c + d
            if n not in came and level.is_floor(n) and n not in boxes:
                came[n] = (c, k)
                todo.append(n)
    if goal not in came:
        raise AssertionError("push BFS produced an unreachable push")
    path = []
    while came[goal] is not None:
        goal, k = came[goal]
        path.append(_LURD[k])
    return "".join(reversed(path))


# -- move-optimal BFS ---------------------------------------------------------

# A step-level state: (box cells, exact player cell).
_MoveState = tuple[frozenset[int], int]


def _move_bfs(level: Level, max_states: int, prune_dead: bool
              ) -> tuple[_MoveState, dict] | None:
    """BFS by single moves (steps and pushes alike cost 1).  Returns the
    goal state and parent links (state -> (parent, move char)), or None."""
    deltas = _deltas(level)
    dead = _dead_set(level, prune_dead)
    start: _MoveState = (level.boxes, level.player)
    parents: dict[_MoveState, tuple | None] = {start: None}
    if level.is_solved():
        return start, parents
    todo = deque([start])
    while todo:
        state = todo.popleft()
        boxes, man = state
        for k, d in enumerate(deltas):
            target = man + d
            if not level.is_floor(target):
                continue
            if target in boxes:
                beyond = target + d
                if (beyond in boxes or beyond in dead
                        or not level.is_floor(beyond)):
                    continue
                child = ((boxes - {target}) | {beyond}, target)
                move = _LURD[k].upper()
            else:
                child = (boxes, target)
                move = _LURD[k]
            if child in parents:
                continue
            parents[child] = (state, move)
            if child[0] == level.goals:
                return child, parents
            if len(parents) > max_states:
                raise StateLimitError(
                    f"move BFS stopped after {max_states} states")
            todo.append(child)
    return None


def bfs_min_moves(level: Level, max_states: int = DEFAULT_MAX_STATES,
                  prune_dead: bool = True) -> int | None:
    """The minimum number of moves (steps, pushes included) that solves the
    level, or None if it cannot be solved.

    Exhaustive BFS over (boxes, exact player cell) states.  Raises
    :class:`StateLimitError` beyond ``max_states``.
    """
    solution = bfs_min_moves_solution(level, max_states, prune_dead)
    return None if solution is None else len(solution)


def bfs_min_moves_solution(level: Level,
                           max_states: int = DEFAULT_MAX_STATES,
                           prune_dead: bool = True) -> str | None:
    """A LURD solution with the minimum number of moves, or None."""
    found = _move_bfs(level, max_states, prune_dead)
    if found is None:
        return None
    state, parents = found
    moves = []
    while parents[state] is not None:
        state, move = parents[state]
        moves.append(move)
    return "".join(reversed(moves))


def reference_distances(level: Level, k: int) -> dict[tuple[frozenset[int], int], int]:
    """Plain-Python oracle of a k-box table: ``{(box cells, smallest cell of
    the player's area): pushes to put every box on some goal}`` for every
    abstract state that can reach a goal, by BFS over pulls from every goal
    placement of the k boxes."""
    region = set(region_cells(level))
    w = level.width
    deltas = (-1, -w, 1, w)

    def area(player, boxes):
        return _area(region, w, player, boxes)

    dist: dict[tuple[frozenset[int], int], int] = {}
    todo: deque = deque()
    for goals in combinations(sorted(level.goals), k):
        boxes = frozenset(goals)
        done: set[int] = set()
        for p in sorted(region - boxes):
            if p in done:
                continue
            cells = area(p, boxes)
            done |= cells
            dist[(boxes, min(cells))] = 0
            todo.append((boxes, min(cells)))
    while todo:
        boxes, player = todo.popleft()
        reach = area(player, boxes)
        for b in boxes:
            for d in deltas:
                a, c = b + d, b + 2 * d
                if a not in reach or c not in region or c in boxes:
                    continue
                new = (boxes - {b}) | {a}
                state = (new, min(area(c, new)))
                if state not in dist:
                    dist[state] = dist[(boxes, player)] + 1
                    todo.append(state)
    return dist


def reference_table(level: Level, k: int) -> np.ndarray:
    """The table :func:`build_pattern_table` must produce, from
    :func:`reference_distances` (every cell of an area, 255 elsewhere)."""
    params = pattern_params(level, k)
    ref = reference_distances(level, k)
    region = region_cells(level)
    inside = set(region)
    table = np.full(table_entries(params.n_cells, params.n_player, k), UNREACHABLE,
                    dtype=np.uint8)
    live = set(params.pat_cell.tolist())
    for boxes in combinations(sorted(live), k):
        box_set = frozenset(boxes)
        for p in region:
            if p in box_set:
                continue
            normal = min(_area(inside, level.width, p, box_set))
            value = ref.get((box_set, normal))
            if value is not None:
                table[pattern_rank(params, boxes, p)] = min(value, 254)
    return table


def _area(region: set[int], width: int, player: int, boxes) -> set[int]:
    """The region cells the player reaches from ``player`` around ``boxes``."""
    seen = {player}
    todo = [player]
    while todo:
        c = todo.pop()
        for d in (-1, -width, 1, width):
            x = c + d
            if x in region and x not in boxes and x not in seen:
                seen.add(x)
                todo.append(x)
    return seen


def frozen_boxes(level: Level, boxes, dead=frozenset()) -> frozenset[int]:
    """The boxes that can never move, plainly: the largest set of boxes each
    blocked on both axes by a wall, two ``dead`` cells or a set member."""
    region = set(region_cells(level))
    w = level.width
    frozen = set(boxes)

    def blocked(b: int, step: int) -> bool:
        lo, hi = b - step, b + step
        return (lo not in region or hi not in region or (lo in dead and hi in dead)
                or lo in frozen or hi in frozen)

    changed = True
    while changed:
        changed = False
        for b in sorted(frozen):
            if not (blocked(b, 1) and blocked(b, w)):
                frozen.discard(b)
                changed = True
    return frozenset(frozen)


def _cut_off(level: Level, boxes, immovable: frozenset[int], fed) -> bool:
    """Dead when a box of ``immovable`` is off its goal, or when some empty
    goal ``g`` is not ``fed(g, region, width, boxes)``."""
    if immovable - level.goals:
        return True
    if not immovable:
        return False
    region = set(region_cells(level))
    boxes = set(boxes)
    return any(not fed(g, region, level.width, boxes) for g in level.goals - boxes)


def goal_cut_off(level: Level, boxes, immovable: frozenset[int]) -> bool:
    """Dead when a box of ``immovable`` is off its goal, or when an empty
    goal's lone-box pull region, with those boxes as walls, holds no other
    box."""
    def fed(g: int, region: set[int], w: int, boxes: set[int]) -> bool:
        open_cells = region - immovable
        reach, todo = {g}, [g]
        while todo:
            x = todo.pop()
            for d in (-1, -w, 1, w):
                if x + d in open_cells and x + 2 * d in open_cells and x + d not in reach:
                    reach.add(x + d)
                    todo.append(x + d)
        return bool(reach & (boxes - immovable))

    return _cut_off(level, boxes, immovable, fed)


def sealed_goals_dead(level: Level, boxes, dead=frozenset()) -> bool:
    """The sealed-goal deadlock of :mod:`..sokoban.deadlocks`, plainly: the
    :func:`frozen_boxes` are walls; dead when one is off its goal, or when an
    empty goal's lone-box pull region, with those walls, holds no other box."""
    return goal_cut_off(level, boxes, frozen_boxes(level, boxes, dead))


def unpushable_boxes(level: Level, boxes, player: int, dead=frozenset()) -> frozenset[int]:
    """The boxes the player on ``player`` can never push, plainly: start from
    all of them and drop, round after round, every box with a side in the
    player's area (walking around the boxes not yet dropped) and a region
    cell beyond it that is neither ``dead`` nor holding a box not dropped."""
    region = set(region_cells(level))
    w = level.width
    kept = set(boxes)
    while True:
        area = _area(region, w, player, kept)
        movable = {b for b in kept for d in (-1, 1, -w, w)
                   if b - d in area and b + d in region and b + d not in dead
                   and b + d not in kept}
        if not movable:
            return frozenset(kept)
        kept -= movable


def goal_cut_off_following(level: Level, boxes, player: int, immovable: frozenset[int]) -> bool:
    """Dead when a box of ``immovable`` is off its goal, or when from an
    empty goal no lone box can be pulled, ``immovable`` as walls and the
    player's walk around the box followed, onto another box's cell with the
    player on ``player``'s side of it."""
    def fed(g: int, region: set[int], w: int, boxes: set[int]) -> bool:
        # A state: the box's cell and the cells its player walks, the box a wall.
        todo = [(g, _area(region, w, g + d, immovable | {g}))
                for d in (-1, 1, -w, w) if g + d in region and g + d not in immovable]
        seen = {(b, min(walk)) for b, walk in todo}
        while todo:
            b, walk = todo.pop()
            if b in boxes and b not in immovable and player in walk:
                return True
            for d in (-1, 1, -w, w):
                if b + d in walk and b + 2 * d in region and b + 2 * d not in immovable:
                    after = _area(region, w, b + 2 * d, immovable | {b + d})
                    if (b + d, min(after)) not in seen:
                        seen.add((b + d, min(after)))
                        todo.append((b + d, after))
        return False

    return _cut_off(level, boxes, immovable, fed)


def stranded_goals_dead(level: Level, boxes, player: int, dead=frozenset()) -> bool:
    """The stranded-goal deadlock of :mod:`..sokoban.deadlocks`, plainly:
    :func:`unpushable_boxes` are walls; dead when one is off its goal, or
    when from an empty goal no lone box can be pulled, the player's walk
    followed, onto the cell of a box the player can get behind."""
    return goal_cut_off_following(level, boxes, player,
                                  unpushable_boxes(level, boxes, player, dead))


# -- Festival's xy test (the stuck patterns of FESS) --------------------------------


def _xy_free(region: set[int], width: int, area: set[int], boxes, dead, b: int) -> bool:
    """The box on ``b`` can be pushed both along its row and along its column
    (onto a free cell that is not dead, the player reaching the side)."""
    def push(d: int) -> bool:
        return (b + d in region and b + d not in boxes and b + d not in dead
                and b - d in area)
    return (push(-1) or push(1)) and (push(-width) or push(width))


def xy_reduced(level: Level, boxes, player: int, dead=frozenset()) -> frozenset[int]:
    """The boxes left once every box the player can push along both axes has
    been taken off, one after the other."""
    region = set(region_cells(level))
    boxes = set(boxes)
    while True:
        area = _area(region, level.width, player, boxes)
        free = [b for b in sorted(boxes) if _xy_free(region, level.width, area, boxes, dead, b)]
        if not free:
            return frozenset(boxes)
        boxes.remove(free[0])


def box_clusters(level: Level, boxes) -> list[frozenset[int]]:
    """The boxes grouped into clusters, plainly: two boxes one step apart,
    diagonals included, are in the same cluster (the connected parts of
    that relation)."""
    w = level.width
    left = set(boxes)
    clusters = []
    while left:
        todo = [min(left)]
        part = {todo[0]}
        while todo:
            c = todo.pop()
            for x in (c + dr * w + dc for dr in (-1, 0, 1) for dc in (-1, 0, 1)):
                if x in left and x not in part:
                    part.add(x)
                    todo.append(x)
        left -= part
        clusters.append(frozenset(part))
    return clusters


def xy_dead(level: Level, boxes, player: int, dead=frozenset(),
            max_states: int = 100_000) -> tuple[bool, int]:
    """Festival's xy search from its definition: breadth-first over single
    pushes (never onto ``dead``), where a position with an xy-free box has
    that box's removal as its only successor; dead when no position reached
    has every box left on a goal.  Returns (dead, positions stored)."""
    region = set(region_cells(level))
    w = level.width
    goals = set(level.goals)

    def state(bs, man):
        return frozenset(bs), min(_area(region, w, man, bs))

    start = state(boxes, player)
    seen = {start}
    todo = deque([start])
    while todo:
        bs, man = todo.popleft()
        if bs <= goals:
            return False, len(seen)
        area = _area(region, w, man, bs)
        free = [b for b in sorted(bs) if _xy_free(region, w, area, bs, dead, b)]
        if free:
            successors = [state(bs - {free[0]}, man)]
        else:
            successors = [state((bs - {b}) | {b + d}, b)
                          for b in sorted(bs) for d in (-1, -w, 1, w)
                          if b + d in region and b + d not in bs and b + d not in dead
                          and b - d in area]
        for nxt in successors:
            if nxt not in seen:
                if len(seen) >= max_states:
                    raise StateLimitError(f"more than {max_states} states")
                seen.add(nxt)
                todo.append(nxt)
    return True, len(seen)
