"""Deadlock detection and move pruning for push-level Sokoban search.

Every rule here is *sound*: it never removes a position from which the
level can be solved, and the two move-pruning rules (corral and tunnel)
always keep at least one optimal push (under the pushes metric; under the
moves metric only their deadlock half is used).  The arguments are given
with each rule.  The kernels work on grid cells; ``occ[c]`` is 1 where a
box stands, ``inside[c]`` is 1 on region cells (everything else acts as a
wall), ``dead[c]`` is 1 on dead squares (all 0 when that rule is off).

* **Dead squares** (:func:`dead_square_mask`): a lone box there can reach
  no goal, found by pulling a box away from every goal
  (:func:`.tables.pull_distances`).  Pushes onto them are never generated.
* **Freeze deadlocks** (:func:`freeze_deadlock`): boxes that can never move
  again, one of them off its goal.  A box is blocked along an axis when a
  wall is on either side, when both sides are dead squares, or when a box
  of the frozen set is on either side; the frozen set is the largest set of
  boxes each blocked on both axes by walls, dead pairs and set members (a
  greatest fixpoint).  The first box of such a set to move would need a
  set member to have moved before it, so none ever moves.  The 2 × 2 block
  of boxes and walls is the smallest case; a frozen box on a goal is fine.
* **Goals sealed by frozen boxes** (:func:`sealed_goal_deadlock`): the
  frozen set of the whole position (the fixpoint above, from every box)
  never moves, so its boxes are walls from now on.  A box off its goal in
  it is a freeze deadlock.  An empty goal from which no lone box can be
  *pulled*, with those walls, onto a cell holding a box that is not frozen,
  can never be filled (the pull relaxes the player: anywhere it may stand,
  other boxes gone).  Then the position is dead.  This catches a frozen
  box on a goal that was filled too early and now bars the way to the
  goals behind it.  The test below is stronger, and the searches ask it
  instead; this one stays as the plain case the tests compare it with.
* **Goals stranded behind boxes the player cannot push**
  (:func:`stranded_goal_deadlock`): the same test with a larger set of
  boxes that never move, which the player's place decides.  Start from
  every box and drop, until none changes, each box that could be pushed:
  the player's side of it in the *area* (the region cells the player
  reaches without crossing a box still in the set; boxes dropped are
  crossed, as they may move away) and the cell beyond it in the region,
  not dead, and not holding a box of the set.  No box left in the set ever
  moves: the first to move would be pushed from a cell of the area (the
  player only ever walks through cells the set does not hold) onto a cell
  outside the set that is not dead (a solution pushes no box onto a dead
  square), and the fixpoint would have dropped it.  A frozen set is such a
  set (a box blocked on an axis has a wall, a dead pair or a set member on
  that axis), so this is stronger than the test above: it sees a goal
  walled in by boxes that are not frozen, which only a player standing
  inside could push, as when FESS fills a two-wide goal column out of
  order.  FESS asks it on every position it keeps; the push expansion of
  every algorithm asks it whenever a push freezes a box on its goal, the
  moment the frozen set grows (with the player behind the pushed box; a
  box leaving the last region that feeds a goal is left to FESS).
  Here the pull away from an empty goal also follows the player
  (:func:`_aware_cut_off`): a state is the box's cell and the side the
  player stands on, and a pull to side ``s`` needs ``s`` joined to the
  player's side around the box (the boxes that never move and the box
  itself as walls, the other boxes gone).  The goal is fed when the pull
  reaches a cell holding a box that can move with the player's own cell
  on the side the pull left it (Kevin01 1: a goal below a cell that only
  a frozen box and the goal's own column open onto: a box can be pulled
  up out of the goal, but the player pulling it is then shut in, and the
  boxes that could come there can only be pushed down from that cell).
  Sound: the box that will fill the goal moves by pushes whose player
  walks avoid the box, the boxes that never move and the walls, so its
  pushes read backwards are such pulls, the first of them from the side
  where the player, now, can walk to.  Which sides of a cell are joined
  once the box stands there comes from one depth-first search of the
  cells the set leaves open (cut vertices, Hopcroft and Tarjan): side
  cells in one child's subtree of low point at least the cell's number
  are cut off from the others, as is the player's cell.
* **Corrals** (:func:`corral_restriction`): a corral ``R`` is a connected
  set of empty region cells the player cannot reach; its *barrier* is the
  set of boxes next to it (the other neighbours of ``R`` are walls).  Until
  a barrier box moves, the player cannot enter ``R`` and no box can enter
  it.  ``R`` *needs work* when it holds a goal or a barrier box is off its
  goal: then every solution pushes a barrier box at some point.  ``R`` is a
  *PI-corral* when every push of a barrier box that does not go into ``R``
  is impossible for as long as no barrier box moves (a wall or a barrier
  box in the way, the player's cell in ``R``, or a dead target), and every
  push into ``R`` has its player cell reachable now (or walled or blocked
  by a barrier box).  The first barrier push of any solution is then a
  push into ``R`` that is legal now, and it can be made first: the pushes
  before it happen outside ``R`` and its barrier, and moving the barrier
  box into ``R`` only frees cells for them, so the reordered solution has
  the same pushes and ends in the same position.  Hence it suffices to
  generate the pushes into one PI-corral (pushes metric), and a PI-corral
  with no such legal push is a deadlock (any metric).  The argument holds
  for any union of corrals too; the union of all of them is tried as well,
  which catches a box that, pushed into a sealed area, cuts it in two.
* **Closed diagonals** (:func:`closed_diagonal_deadlock`): a *hole* is an
  empty cell, not the player's, whose four neighbours are boxes or walls;
  a *closed diagonal* is a run of holes ``h1 .. hk`` (k >= 1) along a
  diagonal whose two *caps* (the cells just beyond both ends) are boxes or
  walls.  Its *structure boxes* are the boxes next to a hole and the caps.
  If no hole is a goal and a structure box is off its goal, the position
  is dead.  Proof (by induction on k): every push of a structure box goes
  into a hole (a border cell has a hole or a cap on both of its axes, and
  the player never stands in a hole; a cap cannot move before a border
  cell does), and pushes elsewhere change nothing here.  If none ever
  moves, the box off goal stays there.  The first one to move, X, lands
  off goal in a hole ``hi`` and caps the holes on one side of it
  (``h(i+1) .. hk`` or ``h1 .. h(i-1)``, whichever side X did not come
  from): a shorter closed diagonal, dead by induction, or, when that side
  is empty, a 2 x 2 block of boxes and walls with X off goal (frozen).
* **Tunnels** (:func:`tunnel_restriction`): a box off goal on a one-way
  tunnel cell ``c`` (:func:`.tables.tunnel_axes`), with the player on one
  side, can first move only away from the player (the far side is cut off
  while the box is there, and walls forbid moving across).  The pushes the
  player makes before that stay on its side, and pushing the box first
  only frees ``c`` for them, so the forward push can be made at once: it
  is the only successor (pushes metric).  If it is illegal (a box or a
  dead square ahead), the position is dead (any metric).
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from ..byref import by_reference
from .tables import UNREACHABLE

#: Outcomes of the move-pruning rules.
NO_RULE, RESTRICT, DEADLOCK = 0, 1, 2


def dead_square_mask(dist: np.ndarray, n_grid: int) -> np.ndarray:
    """``uint8[n_grid]``: 1 on cells from which no goal can be reached.

    ``dist`` are the pull distances of :func:`.tables.pull_distances`;
    non-region cells are marked too (they are never box cells anyway).
    """
    if dist.shape[0] == 0:
        return np.ones(n_grid, dtype=np.uint8)
    return (dist.min(axis=0) >= UNREACHABLE).astype(np.uint8)


# -- freeze deadlocks ---------------------------------------------------------


@nb.njit(cache=True, inline="always")
def _blocked(b, along, occ, inside, dead, mark, tag):
    """Is the box at ``b`` blocked along the axis of step ``along``, counting
    as blockers the boxes whose ``mark`` equals ``tag``?"""
    lo = b - along
    hi = b + along
    if inside[lo] == 0 or inside[hi] == 0:
        return True
    if dead[lo] != 0 and dead[hi] != 0:
        return True
    if occ[lo] != 0 and mark[lo] == tag:
        return True
    return occ[hi] != 0 and mark[hi] == tag


@nb.njit(cache=True, inline="always")
def _blocked_by_any(b, along, occ, inside, dead):
    """Is the box at ``b`` blocked along an axis if every box were frozen?"""
    lo = b - along
    hi = b + along
    if inside[lo] == 0 or inside[hi] == 0:
        return True
    if dead[lo] != 0 and dead[hi] != 0:
        return True
    return occ[lo] != 0 or occ[hi] != 0


@nb.njit(cache=True, inline="always")
def keep_frozen(cells, n, occ, inside, dead, width, mark, tag):
    """The greatest fixpoint of the freeze rule: unmark (``mark`` = 0) the
    candidates among ``cells[:n]`` marked ``tag`` that are free on some
    axis, until none changes; those left marked never move."""
    changed = True
    while changed:
        changed = False
        for k in range(n):
            b = cells[k]
            if mark[b] == tag and not (_blocked(b, 1, occ, inside, dead, mark, tag)
                                       and _blocked(b, width, occ, inside, dead, mark, tag)):
                mark[b] = 0
                changed = True


@nb.njit(cache=True, inline="always")
def may_freeze(c, occ, inside, dead, width):
    """The cheap first test of :func:`freeze_deadlock`: could the box at
    ``c`` be frozen at all (blocked on both axes if every box were)?"""
    return (_blocked_by_any(c, 1, occ, inside, dead)
            and _blocked_by_any(c, width, occ, inside, dead))


@nb.njit(cache=True)
def freeze_deadlock(c, occ, inside, goal, dead, width, mark, tag, stack):
    """True if the box just pushed to ``c`` belongs to a frozen set of boxes
    with a box off its goal (see the module docstring).

    Only sets containing ``c`` can be new (the others were frozen before the
    push), so the search is limited to the boxes connected to ``c`` through
    side-by-side boxes.  ``mark`` (int64, one per cell) and ``stack`` (int32,
    one per cell) are work arrays; ``tag`` must be a value ``mark`` never
    held (a fresh stamp).
    """
    if not may_freeze(c, occ, inside, dead, width):
        return False
    # The boxes connected to c: the candidates, marked with tag.
    stack[0] = c
    mark[c] = tag
    n = 1
    i = 0
    while i < n:
        b = stack[i]
        i += 1
        for step in (-1, 1, -width, width):
            x = b + step
            if occ[x] != 0 and mark[x] != tag:
                mark[x] = tag
                stack[n] = x
                n += 1
    keep_frozen(stack, n, occ, inside, dead, width, mark, tag)
    for k in range(n):
        b = stack[k]
        if mark[b] == tag and goal[b] == 0:
            return True
    return False


@nb.njit(cache=True, inline="always")
def _goal_cut_off(boxes, n, occ, inside, goal, goal_cells, deltas, mark, tag, seen, counters,
                  slot, queue):
    """The verdict once ``mark == tag`` flags the boxes that never move: one
    of them off its goal, or an empty goal from which no lone box can be
    pulled, with them as walls, onto a cell holding a box that can move."""
    sealing = False
    for i in range(n):
        b = boxes[i]
        if mark[b] == tag:
            if goal[b] == 0:
                return True
            sealing = True
    if not sealing:
        return False
    for j in range(goal_cells.shape[0]):
        g = goal_cells[j]
        if occ[g] != 0:
            continue   # a box stands on it (frozen or not)
        # Pull a lone box away from g; frozen boxes and walls block.
        counters[slot] += 1
        stamp = counters[slot]
        seen[g] = stamp
        queue[0] = g
        head, tail = 0, 1
        fed = False
        while head < tail and not fed:
            x = queue[head]
            head += 1
            for d in range(4):
                y = x + deltas[d]
                z = y + deltas[d]
                if inside[y] == 0 or inside[z] == 0 or seen[y] == stamp:
                    continue
                if (occ[y] != 0 and mark[y] == tag) or (occ[z] != 0 and mark[z] == tag):
                    continue
                if occ[y] != 0:
                    fed = True
                    break
                seen[y] = stamp
                queue[tail] = y
                tail += 1
        if not fed:
            return True
    return False


@nb.njit(cache=True)
def sealed_goal_deadlock(boxes, n, occ, inside, goal, goal_cells, dead, deltas, mark, tag, seen,
                         counters, slot, queue):
    """True when the frozen boxes of the position (``occ`` set for
    ``boxes[:n]``) include one off its goal, or seal off an empty goal from
    every box that can still move (see the module docstring).

    ``mark``, ``seen`` (int64, one per cell) and ``queue`` (int32, one per
    cell) are work arrays; ``tag`` is a fresh stamp of ``mark``; the stamps
    of ``seen`` are drawn from ``counters[slot]``, one per empty goal.
    """
    width = deltas[3]
    for i in range(n):
        mark[boxes[i]] = tag
    keep_frozen(boxes, n, occ, inside, dead, width, mark, tag)
    return _goal_cut_off(boxes, n, occ, inside, goal, goal_cells, deltas, mark, tag, seen,
                         counters, slot, queue)


@nb.njit(cache=True, inline="always")
def _flood_area(head, tail, occ, inside, deltas, mark, tag, seen, stamp, queue):
    """Grow the player's area (``seen == stamp``) from the cells queued in
    ``queue[head:tail]``, through every region cell but those of boxes
    flagged ``mark == tag``; returns the new end of the queue."""
    while head < tail:
        c = queue[head]
        head += 1
        for d in range(4):
            x = c + deltas[d]
            if inside[x] != 0 and seen[x] != stamp and not (occ[x] != 0 and mark[x] == tag):
                seen[x] = stamp
                queue[tail] = x
                tail += 1
    return tail


@by_reference
class CutWork(NamedTuple):
    """Scratch of the player-aware pull (:func:`_aware_cut_off`): one entry
    per grid cell, four per cell for the pull's states."""

    visit: np.ndarray     #: int64: stamp of the cells the depth-first search numbered
    disc: np.ndarray      #: int32: a cell's number, in the order the search met it
    low: np.ndarray       #: int32: its low point
    end: np.ndarray       #: int32: one past the last number of its subtree
    parent: np.ndarray    #: int32: its parent in the search tree (-1 at a root)
    root: np.ndarray      #: int32: the root of its tree
    step: np.ndarray      #: int32: the next direction the search tries from it
    stack: np.ndarray     #: int32: the search's stack of cells
    state: np.ndarray     #: int64[4 * cell]: stamps of the pull's states
    queue: np.ndarray     #: int32[4 * cell]: the pull's queue of states
    walls: np.ndarray     #: int32: the boxes that never move, as last numbered
    counters: np.ndarray  #: int64[4]: stamps of ``visit`` and ``state``, len(walls), next number


def cut_work(n_grid: int) -> CutWork:
    """Fresh scratch of :func:`stranded_goal_deadlock`'s pull for a grid of
    ``n_grid`` cells (52 bytes a cell)."""
    per_cell = {"visit": np.int64, "disc": np.int32, "low": np.int32, "end": np.int32,
                "parent": np.int32, "root": np.int32, "step": np.int32, "stack": np.int32,
                "walls": np.int32}
    arrays = {name: np.zeros(n_grid, dtype) for name, dtype in per_cell.items()}
    return CutWork(state=np.zeros(4 * n_grid, np.int64), queue=np.zeros(4 * n_grid, np.int32),
                   counters=np.zeros(4, np.int64), **arrays)


@nb.njit(cache=True, inline="always")
def _open(c, occ, inside, mark, tag):
    """A region cell without a box that never moves."""
    return inside[c] != 0 and not (occ[c] != 0 and mark[c] == tag)


@nb.njit(cache=True)
def _number_cells(r, t, occ, inside, deltas, mark, tag, cw, stamp):
    """Number the open cells of ``r``'s part depth first, from ``t``, with
    their low points and subtrees; returns the next free number."""
    cw.visit[r] = stamp
    cw.disc[r] = t
    cw.low[r] = t
    cw.parent[r] = -1
    cw.root[r] = r
    cw.step[r] = 0
    t += 1
    cw.stack[0] = r
    sp = 1
    while sp > 0:
        v = cw.stack[sp - 1]
        d = cw.step[v]
        if d < 4:
            cw.step[v] = d + 1
            u = v + deltas[d]
            if not _open(u, occ, inside, mark, tag):
                continue
            if cw.visit[u] != stamp:
                cw.visit[u] = stamp
                cw.disc[u] = t
                cw.low[u] = t
                cw.parent[u] = v
                cw.root[u] = r
                cw.step[u] = 0
                t += 1
                cw.stack[sp] = u
                sp += 1
            elif u != cw.parent[v] and cw.disc[u] < cw.low[v]:
                cw.low[v] = cw.disc[u]
        else:
            cw.end[v] = t
            sp -= 1
            if sp > 0:
                q = cw.stack[sp - 1]
                if cw.low[v] < cw.low[q]:
                    cw.low[q] = cw.low[v]
    return t


@nb.njit(cache=True, inline="always")
def _part(b, x, deltas, cw, stamp):
    """Which part of the open cells holds ``x`` once ``b`` is a wall too
    (``x`` numbered in ``b``'s tree): the child of ``b`` whose subtree it is
    in, when that subtree is cut off (its low point not above ``b``), else
    -1 (the part of ``b``'s parent, which every uncut subtree joins)."""
    dx = cw.disc[x]
    if cw.disc[b] < dx < cw.end[b]:
        for e in range(4):
            m = b + deltas[e]
            if cw.visit[m] == stamp and cw.parent[m] == b and cw.disc[m] <= dx < cw.end[m]:
                return m if cw.low[m] >= cw.disc[b] else -1
    return -1


@nb.njit(cache=True)
def _aware_cut_off(boxes, n, player, occ, inside, goal, goal_cells, deltas, mark, tag, cw):
    """The verdict once ``mark == tag`` flags the boxes that never move: one
    of them off its goal, or an empty goal from which no lone box can be
    pulled, the player following (see the module docstring), onto a cell
    holding a box that can move with the player on the side it pulls from."""
    # The numbering depends on the boxes that never move alone: the last
    # one serves again while they are the same (FESS's children of one
    # parent, mostly).
    k = 0
    same = True
    for i in range(n):
        b = boxes[i]
        if mark[b] == tag:
            if goal[b] == 0:
                cw.counters[2] = 0   # walls half overwritten: no longer the numbering's
                return True
            if k >= cw.counters[2] or cw.walls[k] != b:
                same = False
            cw.walls[k] = b
            k += 1
    if k == 0:
        return False
    if not same or k != cw.counters[2]:
        cw.counters[0] += 1
        cw.counters[2] = k
        cw.counters[3] = 0
    stamp = cw.counters[0]
    t = cw.counters[3]
    for j in range(goal_cells.shape[0]):
        g = goal_cells[j]
        if occ[g] != 0:
            continue   # a box stands on it (frozen or not)
        if cw.visit[g] != stamp:
            t = _number_cells(g, t, occ, inside, deltas, mark, tag, cw, stamp)
            cw.counters[3] = t
        # The player can never cross the boxes that never move: from
        # another part of the board it never pushes a box into g.
        same_tree = cw.visit[player] == stamp and cw.root[player] == cw.root[g]
        cw.counters[1] += 1
        seen = cw.counters[1]
        tail = 0
        for d in range(4):
            if _open(g + deltas[d], occ, inside, mark, tag):
                cw.state[4 * g + d] = seen
                cw.queue[tail] = 4 * g + d
                tail += 1
        head = 0
        fed = False
        while head < tail and not fed:
            code = cw.queue[head]
            head += 1
            b = code >> 2
            side = _part(b, b + deltas[code & 3], deltas, cw, stamp)
            for s in range(4):
                y = b + deltas[s]
                z = y + deltas[s]
                if not (_open(y, occ, inside, mark, tag) and _open(z, occ, inside, mark, tag)):
                    continue
                if cw.state[4 * y + s] == seen or _part(b, y, deltas, cw, stamp) != side:
                    continue
                if occ[y] != 0 and same_tree and (
                        _part(y, player, deltas, cw, stamp) == _part(y, z, deltas, cw, stamp)):
                    fed = True   # a box that can move, the player able to get behind it
                    break
                cw.state[4 * y + s] = seen
                cw.queue[tail] = 4 * y + s
                tail += 1
        if not fed:
            return True
    return False


@nb.njit(cache=True)
def stranded_goal_deadlock(boxes, n, player, occ, inside, goal, goal_cells, dead, deltas, mark,
                           tag, seen, counters, slot, queue, cut):
    """:func:`sealed_goal_deadlock` with the player's place taken into
    account: the boxes that never move are those the player can never push
    (see the module docstring), a set that holds every frozen box.

    ``player`` is the player's cell (any cell of its area); the work arrays
    are those of :func:`sealed_goal_deadlock`, and one more stamp of
    ``seen`` marks the player's area; ``cut`` is the pull's
    (:func:`cut_work`), as its goal test follows the player.
    """
    for i in range(n):
        mark[boxes[i]] = tag
    counters[slot] += 1
    area = counters[slot]
    seen[player] = area
    queue[0] = player
    tail = _flood_area(0, 1, occ, inside, deltas, mark, tag, seen, area, queue)
    changed = True
    while changed:
        changed = False
        for i in range(n):
            b = boxes[i]
            if mark[b] != tag:
                continue
            for d in range(4):
                t = b + deltas[d]
                if (seen[b - deltas[d]] == area and inside[t] != 0 and dead[t] == 0
                        and not (occ[t] != 0 and mark[t] == tag)):
                    # b may be pushed: it stops being a wall, and the area
                    # grows through its cell.
                    mark[b] = 0
                    seen[b] = area
                    queue[tail] = b
                    tail = _flood_area(tail, tail + 1, occ, inside, deltas, mark, tag, seen,
                                       area, queue)
                    changed = True
                    break
    return _aware_cut_off(boxes, n, player, occ, inside, goal, goal_cells, deltas, mark, tag, cut)


# -- closed diagonals ------------------------------------------------------------


@nb.njit(cache=True, inline="always")
def _solid(c, occ, inside):
    """A box or a wall (a non-region cell) at ``c``."""
    return inside[c] == 0 or occ[c] != 0


@nb.njit(cache=True, inline="always")
def _hole(c, player, occ, inside, width):
    """An empty region cell, not the player's, walled in by boxes and walls."""
    return (inside[c] != 0 and occ[c] == 0 and c != player
            and _solid(c - 1, occ, inside) and _solid(c + 1, occ, inside)
            and _solid(c - width, occ, inside) and _solid(c + width, occ, inside))


@nb.njit(cache=True)
def _closed_run(h, step, player, occ, inside, goal, width):
    """Is the maximal run of holes through the hole ``h`` along the diagonal
    ``step`` a closed diagonal that proves a deadlock (see the module doc)?"""
    lo = h
    while _hole(lo - step, player, occ, inside, width):
        lo -= step
    hi = h
    while _hole(hi + step, player, occ, inside, width):
        hi += step
    if not (_solid(lo - step, occ, inside) and _solid(hi + step, occ, inside)):
        return False
    off_goal = False
    for cap in (lo - step, hi + step):
        if occ[cap] != 0 and goal[cap] == 0:
            off_goal = True
    c = lo
    while True:
        if goal[c] != 0:
            return False
        for s in (-1, 1, -width, width):
            x = c + s
            if occ[x] != 0 and goal[x] == 0:
                off_goal = True
        if c == hi:
            break
        c += step
    return off_goal


@nb.njit(cache=True, inline="always")
def may_close_diagonal(t, player, occ, inside, width):
    """The cheap first test of :func:`closed_diagonal_deadlock`: is one of
    the eight neighbours of ``t`` a hole?  (Holes are rare, so most pushes
    stop here, without a call.)"""
    for k in range(8):
        if k < 4:
            h = t + (-1, 1, -width, width)[k]
        else:
            h = t + (-width - 1, -width + 1, width - 1, width + 1)[k - 4]
        if _hole(h, player, occ, inside, width):
            return True
    return False


@nb.njit(cache=True)
def closed_diagonal_deadlock(t, player, occ, inside, goal, width):
    """True if the box just pushed to ``t`` (the player now at ``player``)
    completes a closed diagonal that proves a deadlock (see the module
    docstring).  Only diagonals with ``t`` as a border cell or a cap can be
    new, so the candidate holes are the eight neighbours of ``t``; a run
    costs a few cell reads per hole."""
    for k in range(8):
        if k < 4:
            h = t + (-1, 1, -width, width)[k]
        else:
            h = t + (-width - 1, -width + 1, width - 1, width + 1)[k - 4]
        if not _hole(h, player, occ, inside, width):
            continue
        if (_closed_run(h, width + 1, player, occ, inside, goal, width)
                or _closed_run(h, width - 1, player, occ, inside, goal, width)):
            return True
    return False


# -- corrals ------------------------------------------------------------------


@nb.njit(cache=True)
def _pi_corral(lo, hi, bars, n_bars, needs_work, occ, inside, goal, dead, width,
               area, area_tag, label, barmark):
    """Judge the corral made of the cells labelled ``lo..hi``, whose barrier
    boxes (``barmark`` in ``lo..hi``) are ``bars[:n_bars]``.

    Returns the number of legal pushes into it if it is a PI-corral that
    needs work, else -1.
    """
    legal = 0
    for j in range(n_bars):
        b = bars[j]
        if goal[b] == 0:
            needs_work = True
        for s in (-1, 1, -width, width):
            t = b + s
            pc = b - s
            t_in = inside[t] != 0 and occ[t] == 0 and lo <= label[t] <= hi
            pc_wall = inside[pc] == 0
            pc_bar = occ[pc] != 0 and lo <= barmark[pc] <= hi
            pc_in = inside[pc] != 0 and occ[pc] == 0 and lo <= label[pc] <= hi
            if t_in:
                if pc_wall or pc_bar or pc_in:
                    continue
                if area[pc] == area_tag:
                    if dead[t] == 0:
                        legal += 1
                    continue
                return -1  # the player cell may open up later
            t_blocked = inside[t] == 0 or (occ[t] != 0 and lo <= barmark[t] <= hi)
            if t_blocked or pc_wall or pc_bar or pc_in or dead[t] != 0:
                continue
            return -1  # a push out of the corral or along its barrier may happen
    return legal if needs_work else -1


@nb.njit(cache=True)
def corral_restriction(boxes, n_boxes, occ, inside, goal, dead, width, area, area_tag,
                       label, counters, slot, barmark, queue, bars, all_bars):
    """Look for a PI-corral that needs work (see the module docstring).

    Each connected corral is judged alone, then (when there are several) the
    union of all of them, which is a corral too and catches areas split by
    the box that seals them.  ``area[c] == area_tag`` marks the cells the
    player reaches.  Returns ``(NO_RULE, 0, 0)``; ``(RESTRICT, lo, hi)``:
    generate only the pushes whose target cell has a ``label`` in
    ``lo..hi`` (the PI-corral with the fewest legal pushes into it); or
    ``(DEADLOCK, 0, 0)``: a PI-corral that no push can open.
    ``label``/``barmark`` (int64 per cell), ``counters[slot]`` (the last
    label used),
    ``queue`` (int32 per cell), ``bars`` and ``all_bars`` (int32 per box)
    are work arrays.
    """
    base = counters[slot] + 1
    best_lo = -1
    best_hi = -1
    best_count = 1 << 30
    n_all = 0
    any_goal = False
    for k in range(n_boxes):
        for step in (-1, 1, -width, width):
            seed = boxes[k] + step
            if (inside[seed] == 0 or occ[seed] != 0 or area[seed] == area_tag
                    or label[seed] >= base):
                continue
            counters[slot] += 1
            lab = counters[slot]
            # Flood the corral; collect its barrier boxes.
            label[seed] = lab
            queue[0] = seed
            n = 1
            i = 0
            n_bars = 0
            has_goal = False
            while i < n:
                c = queue[i]
                i += 1
                if goal[c] != 0:
                    has_goal = True
                for s in (-1, 1, -width, width):
                    x = c + s
                    if inside[x] == 0:
                        continue
                    if occ[x] != 0:
                        if barmark[x] != lab:
                            if barmark[x] < base:
                                all_bars[n_all] = x
                                n_all += 1
                            barmark[x] = lab
                            bars[n_bars] = x
                            n_bars += 1
                    elif label[x] != lab:
                        label[x] = lab
                        queue[n] = x
                        n += 1
            any_goal = any_goal or has_goal
            legal = _pi_corral(lab, lab, bars, n_bars, has_goal, occ, inside, goal, dead,
                               width, area, area_tag, label, barmark)
            if legal == 0:
                return DEADLOCK, 0, 0
            if 0 < legal < best_count:
                best_count = legal
                best_lo = lab
                best_hi = lab
    top = counters[slot]
    if top > base:
        legal = _pi_corral(base, top, all_bars, n_all, any_goal, occ, inside, goal, dead,
                           width, area, area_tag, label, barmark)
        if legal == 0:
            return DEADLOCK, 0, 0
        if 0 < legal < best_count:
            best_lo = base
            best_hi = top
    if best_lo >= 0:
        return RESTRICT, best_lo, best_hi
    return NO_RULE, 0, 0


# -- tunnels ------------------------------------------------------------------


@nb.njit(cache=True)
def tunnel_restriction(boxes, n_boxes, occ, goal, dead, tunnel, width, area, area_tag):
    """Look for a box off goal on a one-way tunnel cell with the player on
    one side (see the module docstring).

    Returns ``(NO_RULE, 0, 0)``; ``(RESTRICT, box cell, step)``: the one push
    to generate; or ``(DEADLOCK, 0, 0)``: that push is impossible.
    """
    for k in range(n_boxes):
        c = boxes[k]
        axis = tunnel[c]
        if axis == 0 or goal[c] != 0:
            continue
        along = 1 if axis == 1 else width
        if area[c - along] == area_tag:
            step = along
        elif area[c + along] == area_tag:
            step = -along
        else:
            continue
        t = c + step
        if occ[t] != 0 or dead[t] != 0:
            return DEADLOCK, 0, 0
        return RESTRICT, c, step
    return NO_RULE, 0, 0
