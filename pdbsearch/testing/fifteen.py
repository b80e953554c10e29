"""Plain-Python oracles for the sliding-tile puzzle: a BFS of the whole
state space, and a BFS of a pattern's abstract space.

Slow by design and independent of the kernels: they work on tuples and
dictionaries, with the rules written again here.
"""

from __future__ import annotations

from collections import deque


def _neighbours(tiles: tuple[int, ...], width: int, height: int):
    b = tiles.index(0)
    x, y = b % width, b // width
    for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        if 0 <= x + dx < width and 0 <= y + dy < height:
            c = (y + dy) * width + x + dx
            t = list(tiles)
            t[b], t[c] = t[c], 0
            yield tuple(t)


def distances(width: int, height: int, goal=None) -> dict[tuple[int, ...], int]:
    """Every position reachable from the goal (tiles by cell; default Korf's:
    0, 1, 2, ...) with its distance, by a plain breadth-first search (moves
    are reversible)."""
    goal = tuple(range(width * height)) if goal is None else tuple(goal)
    dist = {goal: 0}
    queue = deque([goal])
    while queue:
        s = queue.popleft()
        for t in _neighbours(s, width, height):
            if t not in dist:
                dist[t] = dist[s] + 1
                queue.append(t)
    return dist


def pattern_distances(width: int, height: int, tiles) -> dict[tuple[int, ...], int]:
    """The additive pattern database of ``tiles``, the plain way: a 0-1
    breadth-first search from the goal over (cells of the pattern's tiles,
    blank cell), where the blank moving onto a non-pattern cell costs 0 and
    a pattern tile sliding into the blank costs 1; then, per placement of
    the tiles (cells in the order of ``sorted(tiles)``), the minimum over
    the blank's cells."""
    tiles = sorted(tiles)
    n = width * height
    start = (tuple(tiles), 0)
    dist = {start: 0}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        cells, blank = state
        d = dist[state]
        x, y = blank % width, blank // width
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            if not (0 <= x + dx < width and 0 <= y + dy < height):
                continue
            c = (y + dy) * width + x + dx
            if c in cells:
                moved = tuple(blank if p == c else p for p in cells)
                nxt, cost = (moved, c), 1
            else:
                nxt, cost = (cells, c), 0
            if nxt not in dist or dist[nxt] > d + cost:
                dist[nxt] = d + cost
                if cost:
                    queue.append(nxt)
                else:
                    queue.appendleft(nxt)
    table: dict[tuple[int, ...], int] = {}
    for (cells, _), d in dist.items():
        if cells not in table or d < table[cells]:
            table[cells] = d
    assert all(len(set(c)) == len(c) for c in table) and n > len(tiles)
    return table


def _component(cell: int, free: set[int], width: int, height: int) -> set[int]:
    """The cells of ``free`` connected to ``cell`` (in it), by a plain flood fill."""
    seen, todo = {cell}, [cell]
    while todo:
        c = todo.pop()
        x, y = c % width, c // width
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            d = (y + dy) * width + x + dx
            if 0 <= x + dx < width and 0 <= y + dy < height and d in free and d not in seen:
                seen.add(d)
                todo.append(d)
    return seen


def pattern_moves(width: int, height: int, cells: tuple[int, ...], blank: int
                  ) -> set[tuple[tuple[int, ...], int]]:
    """The abstract states one pattern-tile move from (``cells``, the blank's
    region, given by any ``blank`` cell in it), each as (cells, the lowest
    cell of the blank's new region): the plain form of
    :func:`pdbsearch.fifteen.abstraction.pattern_neighbours`."""
    n = width * height
    free = set(range(n)) - set(cells)
    reach = _component(blank, free, width, height)
    out = set()
    for i, p in enumerate(cells):
        x, y = p % width, p // width
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            q = (y + dy) * width + x + dx
            if 0 <= x + dx < width and 0 <= y + dy < height and q in reach:
                moved = cells[:i] + (q,) + cells[i + 1:]
                new_free = (free - {q}) | {p}
                out.add((moved, min(_component(p, new_free, width, height))))
    return out
