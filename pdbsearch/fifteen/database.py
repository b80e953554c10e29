"""The sliding-tile pattern databases: partitions, naming, building, finding
or building.

A table belongs to one group of tiles on one board size; a partition (7-8,
6-6-3, 5-5-5 on the 15-puzzle) is a list of disjoint groups whose values
add up.  Files are named by what they encode, e.g.
``fifteen-pattern-4x4-t8-9-10-11-12-13-14-15-nibble.h5``.

Building a group's table (:func:`build_pattern`): the BFS builder fills
the table over (placement, blank cell), one byte an entry, with the
patterns' own layer sweep (:mod:`.abstraction`); the minimum over the
blank's cells is kept (one value per placement); with ``nibbles`` the
values are packed two a byte as the halved excess over the group's
Manhattan distance (:mod:`.bounds`), in the same pass
(:func:`reduce_and_pack`).  The build table is
``n − k`` times the size of the reduced one: 4.15 G bytes for the 8-tile
group of the 15-puzzle, freed once reduced.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import numba as nb
import numpy as np

from ..errors import PdbsearchError, ResourceLimit
from ..machine import resident_bytes
from ..pdb.builder import build_table, reduce_min
from ..pdb.ranking import next_placement, placements, rank_partial, unrank_partial
from ..pdb.store import PdbInfo, PdbSpec, UNREACHABLE, default_db_dir, find_or_build, \
    log_to_stderr, save_pdb
from .abstraction import max_neighbours, pattern_params, table_size, workspace_size

#: Named partitions of the 15-puzzle (Korf's goal: the blank on cell 0, tile t
#: on cell t).  7-8 is Korf & Felner's: the top half (1-7) and the bottom
#: half (8-15).  The 6-6-3 and 5-5-5 groups are compact blocks of ours (the
#: papers' drawings use other shapes of the same sizes).
PARTITIONS_4X4 = {
    "7-8": ((1, 2, 3, 4, 5, 6, 7), (8, 9, 10, 11, 12, 13, 14, 15)),
    "6-6-3": ((1, 4, 5, 8, 9, 12), (2, 3, 6, 7, 10, 11), (13, 14, 15)),
    "5-5-5": ((1, 2, 3, 6, 7), (4, 5, 8, 9, 12), (10, 11, 13, 14, 15)),
}
#: Korf & Felner's 6-6-6-6 partition of the 24-puzzle.
PARTITION_5X5 = ((1, 2, 5, 6, 7, 12), (3, 4, 8, 9, 13, 14), (10, 11, 15, 16, 20, 21),
                 (17, 18, 19, 22, 23, 24))
#: Largest build table (entries) of a default group on other sizes.
DEFAULT_CAP = 1 << 26


def default_partition(width: int, height: int) -> tuple[tuple[int, ...], ...]:
    """The partition the ``pdb`` heuristic uses: 7-8 on 4×4, 6-6-6-6 on 5×5,
    else runs of consecutive tiles, each as large as keeps its build table
    within :data:`DEFAULT_CAP` entries (4-4 on the 8-puzzle)."""
    if (width, height) == (4, 4):
        return PARTITIONS_4X4["7-8"]
    if (width, height) == (5, 5):
        return PARTITION_5X5
    n = width * height
    size = 1
    while size + 1 < n and placements(n, size + 1) * (n - size - 1) <= DEFAULT_CAP:
        size += 1
    if n <= 9:
        # small boards: two groups at least (one group of every tile would be
        # the exact distance, which teaches the tests nothing about adding up)
        size = min(size, n // 2)
    tiles = list(range(1, n))
    return tuple(tuple(tiles[i:i + size]) for i in range(0, n - 1, size))


def parse_partition(text: str, width: int, height: int) -> tuple[tuple[int, ...], ...]:
    """A partition by name (``7-8``, ``6-6-3``, ``5-5-5`` on 4×4) or as
    groups of tiles (``1,2,3/4,5,6/7,8``); checked to be disjoint tiles of the board."""
    if (width, height) == (4, 4) and text in PARTITIONS_4X4:
        return PARTITIONS_4X4[text]
    n = width * height
    try:
        groups = tuple(tuple(int(t) for t in part.split(",")) for part in text.split("/"))
    except ValueError:
        raise PdbsearchError(f"bad partition {text!r}: a name ({', '.join(PARTITIONS_4X4)} "
                             f"on 4x4) or groups of tiles like 1,2,3/4,5,6") from None
    flat = [t for g in groups for t in g]
    if len(flat) != len(set(flat)) or not all(1 <= t < n for t in flat):
        raise PdbsearchError(f"bad partition {text!r}: the groups must hold different tiles "
                             f"from 1 to {n - 1}")
    return groups


def pattern_spec(width: int, height: int, tiles, nibbles: bool) -> PdbSpec:
    """The spec of one group's table."""
    return PdbSpec("fifteen", "additive-pattern", "unit",
                   {"width": width, "height": height, "tiles": sorted(int(t) for t in tiles),
                    "entries": "nibble" if nibbles else "byte"})


def pdb_filename(spec: PdbSpec) -> str:
    """The file name of a group's table."""
    p = spec.parameters
    return (f"fifteen-pattern-{p['width']}x{p['height']}-t{'-'.join(map(str, p['tiles']))}"
            f"-{p['entries']}.h5")


def manhattan_table(width: int, height: int, goal_cells=None) -> np.ndarray:
    """``[tile, cell]``: the tile's Manhattan distance from the cell to its
    goal cell (``goal_cells[t]``; default Korf's, tile t on cell t)."""
    n = width * height
    home = range(n) if goal_cells is None else goal_cells
    md = np.zeros((n, n), dtype=np.int64)
    for t in range(1, n):
        for c in range(n):
            md[t, c] = abs(c % width - home[t] % width) + abs(c // width - home[t] // width)
    return md


@nb.njit(cache=True, inline="always")
def _nibble(v, cells, tiles, md):
    """The 4-bit entry of value ``v`` at placement ``cells``:
    min(15, (v - Manhattan distance) / 2), 15 where unreachable."""
    d = 0
    for i in range(tiles.shape[0]):
        d += md[tiles[i], cells[i]]
    return 15 if v == UNREACHABLE else min(15, (np.int64(v) - d) >> 1)


@nb.njit(cache=True)
def _pack(reduced, tiles, n, md, out):
    """Two 4-bit entries a byte (:func:`_nibble`), placements in rank order
    (stepped, not unranked one by one)."""
    k = tiles.shape[0]
    cells = np.empty(k, dtype=np.int64)
    unrank_partial(0, k, n, cells)
    for r in range(reduced.shape[0]):
        out[r >> 1] |= np.uint8(_nibble(reduced[r], cells, tiles, md) << ((r & 1) << 2))
        next_placement(cells, k, n)


@nb.njit(cache=True)
def _reduce_pack(full, group, tiles, n, md, out, lo, hi):
    """:func:`~pdbsearch.pdb.builder.reduce_min` then :func:`_pack` in one
    pass, without the intermediate one-byte table, for placements
    ``lo .. hi - 1`` (``lo`` even: a byte is never shared between calls)."""
    k = tiles.shape[0]
    cells = np.empty(k, dtype=np.int64)
    unrank_partial(lo, k, n, cells)
    for r in range(lo, hi):
        best = UNREACHABLE
        for j in range(r * group, (r + 1) * group):
            if full[j] < best:
                best = full[j]
        out[r >> 1] |= np.uint8(_nibble(best, cells, tiles, md) << ((r & 1) << 2))
        next_placement(cells, k, n)


@nb.njit(cache=True, parallel=True)
def _reduce_pack_parallel(full, group, tiles, n, md, out, chunks):
    """:func:`_reduce_pack` over ``chunks`` even-aligned ranges in parallel."""
    count = full.shape[0] // group
    for c in nb.prange(chunks):
        lo = (count * c // chunks) & ~1
        hi = (count * (c + 1) // chunks) & ~1 if c + 1 < chunks else count
        _reduce_pack(full, group, tiles, n, md, out, lo, hi)


def pack_nibbles(reduced: np.ndarray, width: int, height: int, tiles) -> np.ndarray:
    """The 4-bit form of a reduced table (see :mod:`.bounds`)."""
    out = np.zeros((reduced.shape[0] + 1) // 2, dtype=np.uint8)
    _pack(reduced, np.array(sorted(tiles), dtype=np.int64), width * height,
          manhattan_table(width, height), out)
    return out


def reduce_and_pack(full: np.ndarray, width: int, height: int, tiles,
                    threads: int = 1) -> np.ndarray:
    """The 4-bit table of a build table over (placement, blank cell)."""
    n, k = width * height, len(tiles)
    count = placements(n, k)
    out = np.zeros((count + 1) // 2, dtype=np.uint8)
    args = (full, n - k, np.array(sorted(tiles), dtype=np.int64), n,
            manhattan_table(width, height), out)
    if threads > 1:     # (the parallel runtime only when asked: see build_table)
        _reduce_pack_parallel(*args, 4 * threads)
    else:
        _reduce_pack(*args, 0, count)
    return out


def build_pattern(spec: PdbSpec, progress: bool = False, threads: int = 1,
                  deadline: float | None = None, memory_limit: int | None = None
                  ) -> tuple[np.ndarray, float, float]:
    """Build one group's table; returns (table, seconds, compile seconds).

    Past ``deadline`` (perf_counter), or when the build table would not fit
    in ``memory_limit`` bytes of process memory, stops with ResourceLimit."""
    import time
    p = spec.parameters
    params = pattern_params(p["width"], p["height"], p["tiles"])
    entries = table_size(params)
    if memory_limit is not None and resident_bytes() + entries > memory_limit:
        raise ResourceLimit("memory", f"the pattern PDB of tiles {p['tiles']} needs "
                                      f"{entries:,} bytes to build; they do not fit in the "
                                      f"memory limit")
    full, seconds, compile_seconds = build_table(
        params, entries, max_neighbours(params), workspace_size(params), progress=progress,
        label=f"pattern PDB {p['width']}x{p['height']} tiles "
              f"{','.join(map(str, p['tiles']))}", threads=threads, deadline=deadline)
    t0 = time.perf_counter()
    if p["entries"] == "nibble":
        table = reduce_and_pack(full, p["width"], p["height"], p["tiles"], threads)
    else:
        table = reduce_min(full, params.n_free)
    del full
    return table, seconds + time.perf_counter() - t0, compile_seconds


@nb.njit(cache=True)
def _count_bad(table, nibbles, tiles, n, width, step, md, goal, ranks):
    """How many sampled placements break what a reduced table must hold:
    0 exactly at the goal; the value at least the group's Manhattan
    distance, of the same parity; at most one more than a neighbour
    placement (one tile one cell away) whose free cells are connected
    (there the blank's region is the only one, so the minimum over regions
    is its value)."""
    k = tiles.shape[0]
    cells = np.empty(k, dtype=np.int64)
    bad = 0
    one = np.uint64(1)
    full = (one << np.uint64(n)) - one if n < 64 else ~np.uint64(0)
    for s in range(ranks.shape[0]):
        r = ranks[s]
        unrank_partial(r, k, n, cells)
        d = 0
        occupied = np.uint64(0)
        for i in range(k):
            d += md[tiles[i], cells[i]]
            occupied |= one << np.uint64(cells[i])
        v, capped = _value(table, nibbles, r, d)
        if v == UNREACHABLE:
            continue
        if (v == 0) != (r == goal) or v < d or (v - d) & 1:
            bad += 1
            continue
        for i in range(k):
            p = cells[i]
            for dd in range(4):
                q = step[p, dd]
                if q < 0 or (occupied >> np.uint64(q)) & one:
                    continue
                free = full & ~((occupied & ~(one << np.uint64(p))) | (one << np.uint64(q)))
                if not _connected(free, width, n):
                    continue
                cells[i] = q
                r2 = rank_partial(cells, k, n)
                d2 = d - md[tiles[i], p] + md[tiles[i], q]
                cells[i] = p
                v2, capped2 = _value(table, nibbles, r2, d2)
                if not capped2 and v2 != UNREACHABLE and v > v2 + 1:
                    bad += 1
    return bad


@nb.njit(cache=True, inline="always")
def _value(table, nibbles, r, d):
    """(value, whether it is a capped 4-bit entry) of placement r with Manhattan distance d."""
    if nibbles:
        e = np.int64((table[r >> 1] >> ((r & 1) << 2)) & 15)
        return d + 2 * e, e == 15
    return np.int64(table[r]), False


@nb.njit(cache=True, inline="always")
def _connected(free, width, n):
    """True when the cells of ``free`` form one region."""
    one = np.uint64(1)
    left = np.uint64(0)
    right = np.uint64(0)
    for y in range(n // width):
        left |= one << np.uint64(y * width)
        right |= one << np.uint64(y * width + width - 1)
    reg = (free & (~free + one))
    while True:
        grown = reg | ((reg << one) & ~left) | ((reg >> one) & ~right) \
            | (reg << np.uint64(width)) | (reg >> np.uint64(width))
        grown &= free
        if grown == reg:
            return reg == free
        reg = grown


def verify_pattern(spec: PdbSpec, table: np.ndarray, samples: int = 4096,
                   seed: int = 0) -> str | None:
    """What is wrong with ``table`` as the table of ``spec``, judged on a
    random sample of its entries (:func:`_count_bad`), or None."""
    p = spec.parameters
    params = pattern_params(p["width"], p["height"], p["tiles"])
    n = params.ncells
    count = placements(n, params.k)
    nibbles = p["entries"] == "nibble"
    expected = (count + 1) // 2 if nibbles else count
    if table.shape[0] != expected:
        return f"{table.shape[0]:,} entries, not the {expected:,} of its pattern"
    rng = np.random.default_rng(seed)
    ranks = rng.integers(0, count, size=min(samples, count), dtype=np.int64)
    ranks[0] = params.goal_rank // params.n_free
    bad = _count_bad(table, nibbles, params.tiles, n, params.width, params.step,
                     manhattan_table(p["width"], p["height"]), params.goal_rank // params.n_free,
                     ranks)
    if bad:
        return (f"{bad} of {ranks.shape[0]} sampled entries break the rules of a pattern "
                f"table (0 only at the goal, at least the Manhattan distance, one move "
                f"changes it by at most one)")
    return None


#: Tables loaded in this process, by fingerprint: the puzzles of a collection
#: share them (and the children ``levels`` forks inherit them).
_LOADED: dict[str, np.ndarray] = {}


def obtain_tables(width: int, height: int, partition, nibbles: bool, *,
                  db_dir: str | Path | None = None, pdb_path: str | Path | None = None,
                  progress: bool = False, log: Callable[[str], None] | None = log_to_stderr,
                  deadline: float | None = None,
                  memory_limit: int | None = None, threads: int = 1) -> list[np.ndarray]:
    """The tables of a partition: loaded, found in the database folder, or
    built and saved there (within ``deadline`` and ``memory_limit``, with
    ``threads`` sweeping each layer)."""
    if pdb_path is not None and len(partition) != 1:
        raise PdbsearchError(f"--pdb names one table, the partition has {len(partition)}; "
                             f"use --db-dir")
    tables = []
    for tiles in partition:
        spec = pattern_spec(width, height, tiles, nibbles)
        if spec.fingerprint in _LOADED and pdb_path is None:
            tables.append(_LOADED[spec.fingerprint])
            continue

        def build(spec=spec) -> tuple[np.ndarray, float]:
            table, seconds, _ = build_pattern(spec, progress, threads, deadline=deadline,
                                              memory_limit=memory_limit)
            return table, seconds
        table = find_or_build(spec, pdb_filename(spec), build, db_dir, pdb_path, log,
                              what="pattern PDB",
                              verify=lambda t, spec=spec: verify_pattern(spec, t))
        _LOADED[spec.fingerprint] = table
        tables.append(table)
    return tables


def build_partition(width: int, height: int, partition, nibbles: bool = True, *,
                    db_dir=None, out=None, threads: int = 1,
                    progress: bool = False) -> list[PdbInfo]:
    """Build (or rebuild) and save the table of every group (``pdbsearch build``)."""
    infos = []
    if out is not None and len(partition) != 1:
        raise PdbsearchError("--out names one file; the partition has several tables "
                             "(use --db-dir)")
    for tiles in partition:
        spec = pattern_spec(width, height, tiles, nibbles)
        path = Path(out) if out else (Path(db_dir) if db_dir else default_db_dir()) \
            / pdb_filename(spec)
        table, seconds, compile_seconds = build_pattern(spec, progress, threads)
        save_pdb(path, table, spec, seconds)
        n = width * height
        description = (f"pattern PDB {width}x{height}, tiles "
                       f"{','.join(map(str, sorted(tiles)))}: "
                       f"{placements(n, len(tiles)):,} placements, "
                       f"{'4-bit excess over Manhattan, two a byte' if nibbles else 'one byte each'}")
        infos.append(PdbInfo.of(path, table, description, seconds, compile_seconds))
    return infos
