"""Plain-Python oracles of Sokoban's FESS kernels: macro moves as the
closure of single pushes (or pulls) of one box, and the features of a position.

Deliberately naive (a flood per state), independent of the numba code.
"""

from __future__ import annotations

from collections import deque

from ..sokoban.model import Level
from .sokoban import frozen_boxes


def _area(level: Level, player: int, boxes) -> frozenset[int]:
    return level.reachable(player, boxes)


def macro_children(level: Level, boxes, player: int, dead=frozenset()
                   ) -> dict[tuple[frozenset[int], int], int]:
    """Every position reachable by pushing one box any number of times (the
    other boxes stay), never onto a ``dead`` cell, as ``{(boxes, normalised
    player): fewest pushes}``; the start position itself is left out."""
    boxes = frozenset(boxes)
    start = (boxes, level.normalized_player(player, boxes))
    w = level.width
    deltas = (-1, -w, 1, w)
    out: dict[tuple[frozenset[int], int], int] = {}
    for box in boxes:
        others = boxes - {box}
        first = (box, start[1])
        seen = {first: 0}
        todo = deque([first])
        while todo:
            b, man = todo.popleft()
            reach = _area(level, man, others | {b})
            for d in deltas:
                t = b + d
                if (b - d not in reach or t in others or t in dead
                        or not level.is_floor(t)):
                    continue
                new = others | {t}
                state = (t, level.normalized_player(b, new))
                if state not in seen:
                    seen[state] = seen[(b, man)] + 1
                    todo.append(state)
        for (b, man), pushes in seen.items():
            key = (others | {b}, man)
            if key != start and (key not in out or pushes < out[key]):
                out[key] = pushes
    return out


def pull_macro_children(level: Level, boxes, player: int
                        ) -> set[tuple[frozenset[int], int]]:
    """Every position reachable by *pulling* one box any number of times
    (the backward game: the player, next to the box, steps back onto a free
    cell and the box follows), as ``{(boxes, normalised player)}``; the
    start position itself is left out."""
    boxes = frozenset(boxes)
    start = (boxes, level.normalized_player(player, boxes))
    w = level.width
    out: set[tuple[frozenset[int], int]] = set()
    for box in boxes:
        others = boxes - {box}
        first = (box, start[1])
        seen = {first}
        todo = deque([first])
        while todo:
            b, man = todo.popleft()
            reach = _area(level, man, others | {b})
            for d in (-1, -w, 1, w):
                y = b + d
                behind = y + d
                if y not in reach or behind in others or not level.is_floor(behind):
                    continue
                new = others | {y}
                state = (y, level.normalized_player(behind, new))
                if state not in seen:
                    seen.add(state)
                    todo.append(state)
        out.update((others | {b}, man) for b, man in seen)
    out.discard(start)
    return out


def connectivity(level: Level, boxes) -> int:
    """The number of connected parts of the playable cells without boxes."""
    free = set(level.playable_cells()) | set(level.goals) | set(level.boxes)
    free -= set(boxes)
    parts = 0
    seen: set[int] = set()
    for c in sorted(free):
        if c not in seen:
            parts += 1
            seen |= _flood(level, c, free)
    return parts


def _flood(level: Level, start: int, allowed) -> set[int]:
    """The cells of ``allowed`` joined to ``start`` (itself included)."""
    part, todo = {start}, [start]
    while todo:
        c = todo.pop()
        for n in level.neighbors(c):
            if n in allowed and n not in part:
                part.add(n)
                todo.append(n)
    return part


def replay_pushes(level: Level, boxes, player: int, codes) -> tuple[frozenset[int], int]:
    """Apply push codes (``cell * 4 + direction``, LURD) with the player
    walking between them; returns (boxes, player).  Raises AssertionError on
    an illegal push."""
    boxes = set(boxes)
    w = level.width
    deltas = (-1, -w, 1, w)
    for code in codes:
        b, d = divmod(code, 4)
        step = deltas[d]
        assert b in boxes, f"no box on {b}"
        assert b - step in _area(level, player, boxes), "the player cannot get behind the box"
        t = b + step
        assert level.is_floor(t) and t not in boxes, "the push is blocked"
        boxes.remove(b)
        boxes.add(t)
        player = b
    return frozenset(boxes), player


def _region(level: Level) -> set[int]:
    """The cells a box or the player may stand on."""
    return set(level.playable_cells()) | set(level.goals) | set(level.boxes)


def box_sources(level: Level, targets, walls) -> set[int]:
    """The cells (``targets`` among them) from which a lone box can be
    pushed onto one of ``targets``, with ``walls`` as walls: the player
    needs only the cell behind the box, wherever he stands."""
    region = _region(level)
    w = level.width
    sources = set(targets)
    todo = list(sources)
    while todo:
        y = todo.pop()
        for d in (-1, -w, 1, w):
            x = y - d
            if (x in region and x not in walls and x - d in region
                    and x - d not in walls and x not in sources):
                sources.add(x)
                todo.append(x)
    return sources


def plan_blockers(reach: "PlanReach", boxes, player: int) -> int:
    """The boxes on a goal the plan (``reach.order``) fills after its next
    goal (the first without a box) that cut that goal off: with the goals
    before it as walls, the box's own goal as a wall too takes away more
    cells a lone box could be pushed onto the next goal from than its own,
    no other box off those goals stands on one of the cells left, and the
    box itself cannot be pushed on to it from where the player stands."""
    level, order = reach.level, reach.order
    boxes = set(boxes)
    k = next((i for i, g in enumerate(order) if g not in boxes), len(order))
    if k == len(order):
        return 0
    walls = set(order[:k])
    whole = box_sources(level, [order[k]], walls)
    count = 0
    for j in range(k + 1, len(order)):
        if order[j] not in boxes:
            continue
        left = box_sources(level, [order[k]], walls | {order[j]})
        if left == whole - {order[j]}:
            continue
        if any(b in left for b in boxes - walls - {order[j]}):
            continue
        if k not in reach.goals(k, order[j], player):
            count += 1
    return count


def oop_zones(level: Level, order, dead=frozenset()) -> list[frozenset[int]]:
    """The out-of-plan zone of each step (``len(order) + 1`` of them): with
    the first ``k`` goals of ``order`` as walls, the region cells (not walls,
    not ``dead``) from which a lone box cannot reach any later goal, taken
    from the next step whose zone differs (the area about to be sealed)."""
    region = _region(level)
    n = len(order)
    raw = []
    for k in range(n + 1):
        walls = set(order[:k])
        sources = box_sources(level, order[k:], walls)
        raw.append(frozenset(c for c in region
                             if c not in walls and c not in dead and c not in sources))
    zones = []
    for k in range(n):
        later = [raw[j] for j in range(k + 1, n - 1) if raw[j] != raw[k]]
        zones.append(later[0] if later else raw[k])
    zones.append(frozenset())
    return zones


def _link_joins(level: Level, link: set[int], rooms: set[int], room_id: dict[int, int],
                without: int) -> bool:
    """True when the link's cells other than ``without`` still join all of
    its ``rooms`` (a room is entered from any link cell next to it)."""
    cells = link - {without}
    reached: set[int] = set()
    joined: set[int] = set()   # link cells reached through the rooms so far
    todo = [min(rooms)]
    while todo:
        room = todo.pop()
        reached.add(room)
        for c in sorted(cells - joined):
            if c not in joined and any(room_id.get(n) == room for n in level.neighbors(c)):
                joined |= _flood(level, c, cells)
        todo = sorted({room_id[n] for c in joined for n in level.neighbors(c)
                       if room_id.get(n) in rooms} - reached)
    return reached == rooms


def room_links(level: Level) -> tuple[list[tuple[set[int], set[int]]], dict[int, int]]:
    """The links of ``level`` rebuilt from their definition
    (:mod:`..sokoban.rooms`): room cells are those some 2x3 or 3x2 block of
    region cells holds; a link is a connected part of the other cells that
    touches two rooms or more.  Returns ``[(link cells, its rooms)]`` and
    the room of each room cell (named by its smallest cell)."""
    region = set(level.playable_cells()) | set(level.goals) | set(level.boxes)
    w = level.width
    in_room = set()
    for cell in region:
        row, col = divmod(cell, w)
        for rows, cols in ((2, 3), (3, 2)):
            for top in range(row - rows + 1, row + 1):
                for left in range(max(0, col - cols + 1), min(col, w - cols) + 1):
                    if all((top + r) * w + left + c in region
                           for r in range(rows) for c in range(cols)):
                        in_room.add(cell)

    room_id: dict[int, int] = {}
    for cell in sorted(in_room):
        if cell not in room_id:
            for c in _flood(level, cell, in_room):
                room_id[c] = cell
    passages = region - in_room
    seen: set[int] = set()
    links = []
    for cell in sorted(passages):
        if cell in seen:
            continue
        link = _flood(level, cell, passages)
        seen |= link
        rooms = {room_id[n] for c in link for n in level.neighbors(c) if n in room_id}
        if len(rooms) >= 2:
            links.append((link, rooms))
    return links, room_id


def cutting_cells(level: Level) -> set[int]:
    """Every link cell that, alone taken out, leaves its link's rooms no
    longer all joined (one flood per cell)."""
    links, room_id = room_links(level)
    return {c for link, rooms in links for c in link
            if not _link_joins(level, link, rooms, room_id, c)}


def obstructed_room_links(level: Level, boxes) -> int:
    """FESS's room connectivity from its definition: the links
    (:func:`room_links`) with a box on a cell whose removal alone separates
    its rooms."""
    links, room_id = room_links(level)
    return sum(any(b in link and not _link_joins(level, link, rooms, room_id, b)
                   for b in boxes)
               for link, rooms in links)


def _goals_reached(level: Level, start: int, region: set[int], wall: int | None) -> int:
    """Goals a lone box on ``start`` reaches by pushes (the player needs only
    the cell behind it), with ``wall`` a wall."""
    w = level.width
    seen, todo = {start}, [start]
    while todo:
        x = todo.pop()
        for d in (-1, -w, 1, w):
            t, behind = x + d, x - d
            if t in region and behind in region and wall not in (t, behind) and t not in seen:
                seen.add(t)
                todo.append(t)
    return len(seen & set(level.goals))


def hotspots(level: Level, boxes, dead=frozenset()) -> int:
    """FESS's hotspots from their definition (:mod:`..sokoban.hotspots`):
    the boxes whose cell, made a wall, lowers the number of goals a lone
    box on some other box's cell reaches; boxes on goals or dead squares
    count on neither side."""
    region = set(level.playable_cells()) | set(level.goals) | set(level.boxes)
    counted = [b for b in boxes if b not in level.goals and b not in dead]
    free = {x: _goals_reached(level, x, region, None) for x in counted}
    return sum(any(_goals_reached(level, x, region, b) < free[x] for x in counted if x != b)
               for b in counted)


def packed_by_goal_area(level: Level, order, boxes) -> int:
    """The packed feature counted by goal area: goals that touch by a side
    form one area (flooded here, cell by cell); each area counts the
    longest prefix of its goals, taken in ``order``, that hold boxes."""
    goals = set(order)
    area: dict[int, int] = {}
    for g in order:
        if g not in area:
            area[g] = len({*area.values()})
            for x in _flood(level, g, goals):
                area[x] = area[g]
    total = 0
    for a in set(area.values()):
        for g in (g for g in order if area[g] == a):
            if g not in boxes:
                break
            total += 1
    return total


class PlanReach:
    """The plain-Python reading of :mod:`pdbsearch.sokoban.planreach`:
    which goals of the plan ``order`` a lone box reaches from where the
    player stands, with the first ``k`` goals as walls (a forward search
    over the box's cell and the player's part, the part flooded per
    position; answers remembered by box, step and part)."""

    def __init__(self, level: Level, order):
        self.level = level
        self.order = [int(g) for g in order]
        self.region = set(level.playable_cells()) | set(level.goals) | set(level.boxes)
        w = level.width
        self.deltas = (-1, -w, 1, w)
        self._memo: dict = {}

    def part(self, k: int, box: int, player: int) -> frozenset[int]:
        """The cells the player walks to from ``player`` with the first
        ``k`` goals and ``box`` as walls (empty if he stands on one)."""
        free = self.region - set(self.order[:k]) - {box}
        if player not in free:
            return frozenset()
        return frozenset(_flood(self.level, player, free))

    def goals(self, k: int, box: int, player: int) -> frozenset[int]:
        """The places ``j >= k`` of the goals ``order[j]`` the lone box on
        ``box`` can be pushed to, the player starting on ``player``."""
        start = self.part(k, box, player)
        key = (k, box, min(start, default=-1))
        if key not in self._memo:
            self._memo[key] = self._search(k, box, start)
        return self._memo[key]

    def _search(self, k: int, box: int, part: frozenset[int]) -> frozenset[int]:
        free = self.region - set(self.order[:k])
        place = {g: j for j, g in enumerate(self.order) if j >= k}
        goals = set()
        seen = {(box, min(part, default=-1))}
        todo = [(box, part)]
        while todo:
            at, part = todo.pop()
            if at in place:
                goals.add(place[at])
            for d in self.deltas:
                behind, ahead = at - d, at + d
                if behind in part and ahead in free:
                    nxt = frozenset(_flood(self.level, at, free - {ahead}))
                    if (ahead, min(nxt)) not in seen:
                        seen.add((ahead, min(nxt)))
                        todo.append((ahead, nxt))
        return frozenset(goals)


def feasible_packed(reach: PlanReach, boxes, player: int, parked=None) -> int:
    """The packed count (the longest prefix of ``reach.order`` holding
    boxes) lowered to the largest ``k`` at which the boxes off the first
    ``k`` goals can be given the goals ``order[j]``, ``j >= k``, one each,
    every box one it reaches from where the player stands
    (:meth:`PlanReach.goals`), and boxes stand on the cells ``parked[k]``
    (a set per step, none by default) the plan has them wait on by then."""
    order = reach.order
    boxes = set(boxes)
    parked = parked or {}
    packed = next((k for k, g in enumerate(order) if g not in boxes), len(order))
    for k in range(packed, 0, -1):
        if not parked.get(k, set()) <= boxes:
            continue
        if k == len(order):
            return k
        rest = sorted(boxes - set(order[:k]))
        if all_matched([reach.goals(k, b, player) for b in rest]):
            return k
    return 0


def parking_credit(parked, n_goals: int, boxes, k: int) -> int:
    """What parking adds to a packed count of ``k`` (see
    :func:`pdbsearch.sokoban.planreach.parking_credit`), from the cells
    ``parked`` (a set per step) of a plan of ``n_goals``: the parked boxes
    moved onto goals before step ``k + 1`` (each step that parks fewer
    cells than the one before moved the difference) and the boxes on the
    cells of step ``k + 1``.  ``k >= n_goals``: all the boxes moved."""
    count = [len(parked.get(j, ())) for j in range(n_goals + 2)]
    moved = sum(max(0, count[j] - count[j + 1]) for j in range(1, min(k, n_goals) + 1))
    if k >= n_goals:
        return moved
    return moved + len(set(parked.get(k + 1, ())) & set(boxes))


def all_matched(choices) -> bool:
    """Whether each row can be given a distinct column out of its own
    ``choices`` (a set of columns per row): rows placed one by one,
    every column of a row tried (exhaustive; for small cases)."""
    def place(i: int, used: frozenset) -> bool:
        if i == len(choices):
            return True
        return any(place(i + 1, used | {c}) for c in choices[i] - used)
    return place(0, frozenset())


def frozen_cut_dead(level: Level, boxes, player: int, dead=frozenset()) -> bool:
    """The plain reading of :func:`pdbsearch.sokoban.frozencut.frozen_cut_deadlock`:
    with the boxes that never move (:func:`.sokoban.frozen_boxes`) as walls,
    no box off them can be given a free goal of its own that a lone box
    reaches from where the player stands (or the goal it stands on); a
    frozen box off its goal is dead too."""
    boxes = set(boxes)
    frozen = frozen_boxes(level, boxes, dead)
    if any(b not in level.goals for b in frozen):
        return True
    if not frozen:
        return False
    # PlanReach with the frozen goals first: its first k goals are walls.
    order = sorted(frozen) + sorted(set(level.goals) - frozen)
    reach = PlanReach(level, order)
    k = len(frozen)
    rows = []
    for b in sorted(boxes - frozen):
        places = set(reach.goals(k, b, player))
        if b in level.goals:
            places.add(order.index(b))
        rows.append(places)
    return not all_matched(rows)


def confined_cells(level: Level, frozen, players, goals, dead=frozenset()) -> frozenset[int]:
    """The plain reading of the counted cells of a frozen-cut pattern
    (:func:`pdbsearch.sokoban.frozencut._learn_cut`): the live cells off
    the ``frozen`` boxes from which a lone box, those boxes walls and the
    player on any cell of ``players``, reaches no goal outside ``goals``
    (cells), the goal it stands on counted."""
    frozen = set(frozen)
    order = sorted(frozen) + sorted(set(level.goals) - frozen)
    reach = PlanReach(level, order)
    k = len(frozen)
    out = set()
    for b in sorted(set(level.playable_cells()) - frozen - set(dead)):
        reached = {order[j] for at in players if at != b for j in reach.goals(k, b, at)}
        if b in level.goals:
            reached.add(b)
        if reached <= set(goals):
            out.add(b)
    return frozenset(out)
