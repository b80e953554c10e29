"""Macro moves: one box pushed any number of times (the moves of FESS).

A macro move of box ``b`` from cell ``s`` takes it to cell ``c`` with the
player on one side of it, by pushes of that box only (the other boxes
stay).  Two positions with the box on ``c`` are the same when the player
can walk between its two sides around the box, so a macro child is a pair
(``c``, *side class*): the sides of ``c`` the player reaches from one
another.

**Side classes by articulation points.**  The player's graph while box
``b`` moves is the region without the other boxes (``s`` is free).  With
the box on ``c``, the player's part of it is a component of that graph
minus ``c``.  One depth-first search (Tarjan's low-link) from the player's
cell answers every such question in O(degree): a cell ``u`` lies in the
part of DFS child ``w`` of ``c`` when ``u`` is in ``w``'s subtree and
``low[w] >= disc[c]`` (``c`` separates that subtree), and in the part of
``c``'s parent otherwise (the root has no parent part: each child subtree
is its own part).  So a box costs one DFS, O(cells), and a breadth-first
search over (cell, side), instead of a flood per visited cell.

**The search per box.**  States are (cell, side ``k``): the player on
``c + deltas[k]``, ready to push the box to ``c - deltas[k]``.  It starts
at the sides of ``s`` the player reaches now; every state is closed at once
under *shifts* (the other sides in the same class, free) and followed by
*pushes* (cost 1) onto region cells that hold no box and are not dead
squares.  The first state of each (cell, class) reached by a push is a
child, with the fewest pushes for this box.  A box never passes a dead
square: from there no goal can be reached.

**Corral restriction.**  When a PI-corral is found (:mod:`.deadlocks`),
only macros whose first push enters it are generated; the first barrier
push of any solution can be made first, and the rest of a macro is
ordinary pushes after it, so this loses no solution.

Push codes of a macro (for the replay) come from :func:`macro_path`, the
same search with parent links and no restriction.
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from ..byref import by_reference
from ..puzzle import copy_key

#: Side class of the DFS parent's part (any other class is a DFS child's cell).
PARENT_SIDE = -1


#: Largest value of a field of a macro child's descriptor (20 bits each).
_DESC_FIELD = np.int64((1 << 20) - 1)
_ONE = np.uint64(1)


@nb.njit(cache=True, inline="always")
def macro_descriptor(from_bit, to_bit, player):
    """The descriptor of a macro child (FESS's ``out_desc``, in the keys of
    the push and the pull games alike): the key bit its box leaves, the key
    bit it lands on, and the player's index, 20 bits each."""
    return (np.int64(from_bit) << np.int64(40)) | (np.int64(to_bit) << np.int64(20)) | \
        np.int64(player)


@nb.njit(cache=True, inline="always")
def apply_macro(parent_key, desc, player_shift, out):
    """Write into ``out`` the key of the child ``desc`` describes
    (:func:`macro_descriptor`): ``parent_key`` with the box's bit moved
    and the player's index (the bits from ``player_shift`` up of the last
    word) replaced."""
    copy_key(out, parent_key)
    frm = (desc >> np.int64(40)) & _DESC_FIELD
    to = (desc >> np.int64(20)) & _DESC_FIELD
    out[frm >> 6] &= ~(_ONE << np.uint64(frm & 63))
    out[to >> 6] |= _ONE << np.uint64(to & 63)
    last = out.shape[0] - 1
    shift = np.uint64(player_shift)
    mask = ~((~np.uint64(0)) << shift)
    out[last] = (out[last] & mask) | (np.uint64(desc & _DESC_FIELD) << shift)


@by_reference
class MacroWork(NamedTuple):
    """Scratch arrays of the macro search (see :func:`macro_work`)."""

    disc: np.ndarray       #: int32[cell] DFS discovery time
    low: np.ndarray        #: int32[cell] Tarjan's low-link
    fin: np.ndarray        #: int32[cell] last discovery time in the subtree
    dparent: np.ndarray    #: int32[cell] DFS parent
    dstamp: np.ndarray     #: int64[cell] stamp of a valid disc
    dnext: np.ndarray      #: int8[cell] next direction the DFS tries
    dstack: np.ndarray     #: int32[cell] DFS stack
    vis: np.ndarray        #: int64[4 cell] stamp of a visited (cell, side)
    vfrom: np.ndarray      #: int32[4 cell] predecessor state (-1: a start)
    vpush: np.ndarray      #: uint8[4 cell] 1 if entered by a push
    depth: np.ndarray      #: int32[4 cell] pushes to the state
    queue: np.ndarray      #: int32[4 cell]
    emit: np.ndarray       #: int32[4 cell] states that are children
    order: np.ndarray      #: int32[cell]: the cell discovered at each DFS time
    submin: np.ndarray     #: int32[cell]: smallest cell of the DFS subtree
    pre: np.ndarray        #: int32[time]: smallest cell discovered up to that time
    suf: np.ndarray        #: int32[time]: smallest cell discovered from that time on
    counters: np.ndarray   #: int64[3]: DFS and BFS stamps, the DFS's last time


def macro_work(n_grid: int) -> MacroWork:
    """Fresh scratch arrays for a grid of ``n_grid`` cells."""
    per_cell = {"disc": np.int32, "low": np.int32, "fin": np.int32, "dparent": np.int32,
                "dstamp": np.int64, "dnext": np.int8, "dstack": np.int32, "order": np.int32,
                "submin": np.int32, "pre": np.int32, "suf": np.int32}
    per_state = {"vis": np.int64, "vfrom": np.int32, "vpush": np.uint8, "depth": np.int32,
                 "queue": np.int32, "emit": np.int32}
    arrays = {k: np.zeros(n_grid, t) for k, t in per_cell.items()}
    arrays.update({k: np.zeros(4 * n_grid, t) for k, t in per_state.items()})
    return MacroWork(counters=np.zeros(3, np.int64), **arrays)


@nb.njit(cache=True)
def tarjan(inside, occ, deltas, root, mw):
    """Iterative DFS with low-links from ``root`` over the ``inside`` cells
    where ``occ`` is 0; returns the stamp that marks the cells reached.
    Beside the low-links it keeps the discovery order and each subtree's
    smallest cell, for :func:`split_at`."""
    mw.counters[0] += 1
    tag = mw.counters[0]
    disc, low, fin, dparent, dstamp, dnext, stack = (mw.disc, mw.low, mw.fin, mw.dparent,
                                                      mw.dstamp, mw.dnext, mw.dstack)
    order, submin = mw.order, mw.submin
    t = 0
    disc[root] = t
    low[root] = t
    order[t] = root
    submin[root] = root
    dparent[root] = -1
    dstamp[root] = tag
    dnext[root] = 0
    stack[0] = root
    top = 1
    while top > 0:
        c = stack[top - 1]
        k = dnext[c]
        if k < 4:
            dnext[c] = k + 1
            x = c + deltas[k]
            if inside[x] == 0 or occ[x] != 0:
                continue
            if dstamp[x] != tag:
                t += 1
                disc[x] = t
                low[x] = t
                order[t] = x
                submin[x] = x
                dparent[x] = c
                dstamp[x] = tag
                dnext[x] = 0
                stack[top] = x
                top += 1
            elif x != dparent[c] and disc[x] < low[c]:
                low[c] = disc[x]
        else:
            fin[c] = t
            top -= 1
            q = dparent[c]
            if q >= 0:
                if low[c] < low[q]:
                    low[q] = low[c]
                if submin[c] < submin[q]:
                    submin[q] = submin[c]
    mw.counters[2] = t
    return tag


@nb.njit(cache=True)
def prepare_splits(mw):
    """The running minima of the last :func:`tarjan`'s discovery order, in
    both directions (what :func:`split_at` reads)."""
    last = mw.counters[2]
    order, pre, suf = mw.order, mw.pre, mw.suf
    pre[0] = order[0]
    for t in range(1, last + 1):
        pre[t] = min(pre[t - 1], order[t])
    suf[last] = order[last]
    for t in range(last - 1, -1, -1):
        suf[t] = min(suf[t + 1], order[t])


@nb.njit(cache=True, inline="always")
def split_at(c, u, deltas, mw):
    """Cell ``c`` taken out of the part the last :func:`tarjan` explored
    (a box put on it): returns how many parts that part falls into, and
    the smallest cell of the one that holds cell ``u`` (``c`` and ``u``
    both reached; :func:`prepare_splits` run since).  O(1): each DFS child
    of ``c`` whose low-link does not reach above ``c`` is a part of its
    own; the rest, the cells outside ``c``'s subtree and the other
    children's subtrees, is one part (none when ``c`` is the root)."""
    disc, fin, low = mw.disc, mw.fin, mw.low
    root = mw.dparent[c] < 0
    parts = 0 if root else 1
    du = disc[u]
    own = -1                       # smallest cell of u's part, when it is a child's
    rest = 1 << 30                 # smallest cell of the parent's part
    if not root:
        if disc[c] > 0:
            rest = mw.pre[disc[c] - 1]
        if fin[c] < mw.counters[2]:
            rest = min(rest, mw.suf[fin[c] + 1])
    for k in range(4):
        w = c + deltas[k]
        if mw.dparent[w] != c or mw.dstamp[w] != mw.dstamp[c]:
            continue
        if root or low[w] >= disc[c]:
            parts += 1
            if disc[w] <= du <= fin[w]:
                own = mw.submin[w]
        else:
            rest = min(rest, mw.submin[w])
    return parts, (own if own >= 0 else rest)


@nb.njit(cache=True, inline="always")
def side_class(c, u, deltas, mw):
    """The part of the graph without ``c`` that holds cell ``u`` (both
    reached by the last :func:`tarjan`): a DFS child's cell, or
    :data:`PARENT_SIDE`."""
    du = mw.disc[u]
    for k in range(4):
        w = c + deltas[k]
        if mw.dparent[w] == c and mw.dstamp[w] == mw.dstamp[c] and \
                mw.disc[w] <= du <= mw.fin[w]:
            if mw.dparent[c] < 0 or mw.low[w] >= mw.disc[c]:
                return w
            return PARENT_SIDE
    return PARENT_SIDE


@nb.njit(cache=True, inline="always")
def _side_ok(inside, occ, x):
    return inside[x] != 0 and occ[x] == 0


@nb.njit(cache=True, inline="always")
def _close(c, k, d, frm, push, inside, occ, deltas, mw, tag, tail):
    """Visit (``c``, ``k``) and every side of ``c`` in its class at depth
    ``d``; returns the new queue end."""
    cls = side_class(c, c + deltas[k], deltas, mw)
    for k2 in range(4):
        x = c + deltas[k2]
        st = c * 4 + k2
        if mw.vis[st] == tag or not _side_ok(inside, occ, x):
            continue
        if k2 != k and side_class(c, x, deltas, mw) != cls:
            continue
        mw.vis[st] = tag
        mw.depth[st] = d
        if k2 == k:
            mw.vfrom[st] = frm
            mw.vpush[st] = push
        else:
            mw.vfrom[st] = c * 4 + k
            mw.vpush[st] = 0
        mw.queue[tail] = st
        tail += 1
    return tail


@nb.njit(cache=True, inline="always")
def _step_ok(c, k, pull, inside, occ, dead, deltas):
    """Can the box on ``c`` with the player on side ``k`` move (push away
    from the player, or ``pull`` towards it: the player needs the cell
    behind it); returns the box's new cell or -1."""
    if pull:
        np_ = c + 2 * deltas[k]
        if inside[np_] == 0 or occ[np_] != 0:
            return -1
        return c + deltas[k]
    t = c - deltas[k]
    if inside[t] == 0 or occ[t] != 0 or dead[t] != 0:
        return -1
    return t


@nb.njit(cache=True)
def box_macros(s, player, area, area_tag, inside, occ, dead, deltas, label, lo, hi, mw,
               most, pull=False):
    """The macro moves of the box on ``s`` (``occ`` holds every box; ``area``
    stamped ``area_tag`` marks the player's cells now): pushes, or pulls
    with ``pull`` (the backward game: the box moves onto the player's
    cell, the player one cell further; ``dead`` is then ignored).  With
    ``lo >= 0`` only macros whose first move lands on a cell labelled
    ``lo..hi``.  Writes the child states (``c * 4 + side``, their moves in
    ``mw.depth``) into ``mw.emit`` and returns how many (at most ``most``).
    """
    # Is any first move possible at all?  (Most boxes: no; skip the DFS.)
    any_push = False
    for k in range(4):
        if area[s + deltas[k]] != area_tag:
            continue
        t = _step_ok(s, k, pull, inside, occ, dead, deltas)
        if t >= 0 and (lo < 0 or lo <= label[t] <= hi):
            any_push = True
    if not any_push:
        return 0
    occ[s] = 0
    tarjan(inside, occ, deltas, player, mw)
    mw.counters[1] += 1
    tag = mw.counters[1]
    tail = 0
    for k in range(4):
        if area[s + deltas[k]] == area_tag and mw.vis[s * 4 + k] != tag:
            tail = _close(s, k, 0, -1, 0, inside, occ, deltas, mw, tag, tail)
    head = 0
    n = 0
    while head < tail and n < most:
        st = mw.queue[head]
        head += 1
        c = st >> 2
        k = st & 3
        t = _step_ok(c, k, pull, inside, occ, dead, deltas)
        if t < 0:
            continue
        if lo >= 0 and mw.depth[st] == 0 and not lo <= label[t] <= hi:
            continue
        nst = t * 4 + k
        if mw.vis[nst] == tag:
            continue
        # The box moves to t; the player stands on side k of t.
        tail = _close(t, k, mw.depth[st] + 1, st, 1, inside, occ, deltas, mw, tag, tail)
        mw.emit[n] = nst
        n += 1
    occ[s] = 1
    return n


@nb.njit(cache=True)
def macro_path(s, c, q, player, inside, occ, dead, deltas, mw, out):
    """The push codes (``cell * 4 + direction``, LURD) of the fewest pushes
    that take the box on ``s`` to ``c`` with the player able to reach cell
    ``q`` (``occ`` holds every box, the player stands on ``player``);
    returns how many (written to ``out``), -1 if impossible."""
    occ[s] = 0
    tarjan(inside, occ, deltas, player, mw)
    if mw.dstamp[q] != mw.dstamp[player]:
        # q is cut off by other boxes: no move of this box reaches it (and
        # the side classes below are only defined on the cells reached).
        occ[s] = 1
        return -1
    mw.counters[1] += 1
    tag = mw.counters[1]
    # Player area now: the cells reached without crossing s.
    tail = 0
    for k in range(4):
        x = s + deltas[k]
        if not _side_ok(inside, occ, x) or mw.dstamp[x] != mw.dstamp[player]:
            continue
        if mw.vis[s * 4 + k] == tag:
            continue
        if side_class(s, x, deltas, mw) == side_class(s, player, deltas, mw) or x == player:
            tail = _close(s, k, 0, -1, 0, inside, occ, deltas, mw, tag, tail)
    head = 0
    found = -1
    while head < tail:
        st = mw.queue[head]
        head += 1
        cc = st >> 2
        k = st & 3
        if cc == c and mw.depth[st] > 0 and \
                side_class(c, cc + deltas[k], deltas, mw) == side_class(c, q, deltas, mw):
            found = st
            break
        t = cc - deltas[k]
        if inside[t] == 0 or occ[t] != 0 or dead[t] != 0:
            continue
        nst = t * 4 + k
        if mw.vis[nst] == tag:
            continue
        tail = _close(t, k, mw.depth[st] + 1, st, 1, inside, occ, deltas, mw, tag, tail)
    occ[s] = 1
    if found < 0:
        return -1
    # Walk back through the pushes.
    n = 0
    st = found
    while st >= 0:
        if mw.vpush[st] == 1:
            prev = mw.vfrom[st]
            pc = prev >> 2
            out[n] = pc * 4 + ((prev & 3) + 2) % 4
            n += 1
            st = prev
        else:
            st = mw.vfrom[st]
    for i in range(n // 2):
        out[i], out[n - 1 - i] = out[n - 1 - i], out[i]
    return n
