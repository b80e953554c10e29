"""The pattern databases of a Sokoban level: choosing k, naming, caching.

A level's PDB holds the k-box tables of :mod:`.patterns` for k = 1 .. K,
one after another in one ``uint8`` array (one file, so ``--pdb FILE``
names all of it).  K is the largest size up to :data:`~.patterns.MAX_K`
and the number of boxes whose table stays within :data:`ENTRY_CAP`
entries.  The tables depend only on the walls, the goals and the region
(the cells the player can ever stand on), not on the boxes, so a file is
keyed by a fingerprint of those and serves every start position of the
same board.  Files are found, checked, built and saved by
:func:`pdbsearch.pdb.store.find_or_build`, the same code as the Hakoiri
PDBs, e.g. ``sokoban-patterns-k3-11x9-0123456789abcdef.h5``.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from ..compile_time import compile_seconds_spent
from ..errors import PdbFileError, PdbsearchError, ResourceLimit
from ..machine import resident_bytes
from ..pdb.builder import sampled_check
from ..pdb.ranking import binomial_table
from ..pdb.store import (PdbInfo, PdbSpec, default_db_dir, load_or_set_aside, load_pdb,
                         read_attributes, save_pdb)
from .model import Level
from .abstraction import (MAX_K, build_pattern_table, live_cells, pattern_params,
                          table_entries, workspace_size)
from .tables import region_cells

#: Most entries (bytes) of one k-box table; a larger k is not built.
ENTRY_CAP = 1 << 24


def level_fingerprint(level: Level) -> str:
    """A short hash of what the tables depend on: size, walls, goals and
    the region (not the boxes, nor where in its area the player starts)."""
    text = json.dumps([level.width, level.height,
                       np.packbits(level.walls).tobytes().hex(),
                       sorted(level.goals), region_cells(level)])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def choose_k(level: Level, most: int = MAX_K, cap: int = ENTRY_CAP) -> int:
    """The largest pattern size worth building: at most ``most`` and the
    number of boxes, with a table of at most ``cap`` entries."""
    n_cells = len(live_cells(level))
    n_player = len(region_cells(level))
    k = 1
    for size in range(2, min(most, MAX_K, len(level.boxes)) + 1):
        if table_entries(n_cells, n_player, size) <= cap:
            k = size
    return k


def pattern_spec(level: Level, k: int) -> PdbSpec:
    """The spec of a level's tables for k = 1 .. ``k``."""
    return PdbSpec("sokoban", "box-patterns", "pushes",
                   {"level": level_fingerprint(level), "width": level.width,
                    "height": level.height, "max_boxes": k,
                    "cells": len(live_cells(level)), "player_cells": len(region_cells(level))})


def pdb_filename(spec: PdbSpec) -> str:
    """The file name of a level's pattern PDB."""
    p = spec.parameters
    return f"sokoban-patterns-k{p['max_boxes']}-{p['width']}x{p['height']}-{p['level']}.h5"


def table_offsets(n_cells: int, n_player: int, k: int) -> np.ndarray:
    """``offsets[j]``: where the j-box table starts (``offsets[k + 1]``: the end)."""
    offsets = np.zeros(k + 2, dtype=np.int64)
    for j in range(1, k + 1):
        offsets[j + 1] = offsets[j] + table_entries(n_cells, n_player, j)
    return offsets


def build_patterns(level: Level, k: int, progress: bool = False,
                   deadline: float | None = None) -> tuple[np.ndarray, float, int]:
    """The tables for 1 .. ``k`` boxes, one after another; returns
    ``(table, seconds, tables built)``.  Past ``deadline`` the table being
    built is dropped and the smaller ones are kept (a
    :class:`~pdbsearch.errors.ResourceLimit` if even the 1-box table is
    not done)."""
    parts, seconds = [], 0.0
    for j in range(1, k + 1):
        compiled_before = compile_seconds_spent()
        try:
            table, s = build_pattern_table(level, j, progress, deadline=deadline)
        except ResourceLimit:
            if j == 1:
                raise
            break
        if deadline is not None:
            # compiling is not building: the next tables keep their time
            deadline += compile_seconds_spent() - compiled_before
        parts.append(table)
        seconds += s
    return np.concatenate(parts), seconds, len(parts)


@dataclass(frozen=True)
class PatternTables:
    """A level's loaded pattern PDB, as the kernels use it."""

    table: np.ndarray       #: uint8, the k-box tables one after another
    offsets: np.ndarray     #: int64[k + 2]
    k: int
    binom: np.ndarray       #: int64[B + 1, k + 1]
    pat_index: np.ndarray   #: int64[cell]: pattern index, -1 on dead cells


def obtain_patterns(level: Level, most: int = MAX_K, db_dir: str | Path | None = None,
                    pdb_path: str | Path | None = None, progress: bool = False,
                    log: Callable[[str], None] | None = None, deadline: float | None = None,
                    memory_limit: int | None = None) -> PatternTables | None:
    """The pattern PDB of a level: ``pdb_path`` if given (its own k; refused
    if it was made for another board), else found in or built into the
    database folder.  None for a level of one box, whose matching bound is
    already exact.

    Within limits: the tables must fit in ``memory_limit`` (bytes of process
    memory, k is lowered until they do); with a ``deadline``, a table of
    2 or more boxes may use half the time left (the search needs the rest)
    and the largest ones not done by then are dropped, and a file of fewer
    boxes found in the folder is taken rather than building a larger one.
    """
    say = log or (lambda message: None)
    if pdb_path is None and len(level.boxes) == 1:
        return None
    cap = ENTRY_CAP
    if memory_limit is not None:
        cap = min(cap, max(0, (memory_limit - resident_bytes()) // 2))
    k = choose_k(level, most, cap)
    if pdb_path is not None:
        k = _stored_k(pdb_path, k)
        spec = pattern_spec(level, k)
        table, _ = load_pdb(pdb_path, spec, lambda t: verify_patterns(level, k, t))
        return _tables(level, table, k)
    folder = Path(db_dir) if db_dir is not None else default_db_dir()
    for size in range(k, 0, -1) if deadline is not None else (k,):
        spec = pattern_spec(level, size)
        table = load_or_set_aside(folder / pdb_filename(spec), spec,
                                  lambda t, size=size: verify_patterns(level, size, t), say)
        if table is not None:
            return _tables(level, table, size)
    if deadline is not None:
        now = time.perf_counter()
        deadline = now + max(0.0, deadline - now) / 2
    path = folder / pdb_filename(pattern_spec(level, k))
    say(f"pdbsearch: building the {k}-box pattern PDB {path} ...")
    table, seconds, built = build_patterns(level, k, progress, deadline)
    spec = pattern_spec(level, built)
    path = folder / pdb_filename(spec)
    save_pdb(path, table, spec, seconds)
    dropped = f" (the time limit stopped the {built + 1}-box table)" if built < k else ""
    say(f"pdbsearch: built {path}: {table.shape[0]:,} entries in {seconds:.2f} s{dropped}")
    return _tables(level, table, built)


def _stored_k(pdb_path, default: int) -> int:
    """The largest pattern size a PDB file says it holds."""
    try:
        k = int(json.loads(read_attributes(pdb_path)["parameters"]).get("max_boxes", default))
    except (ValueError, TypeError, AttributeError):
        return default  # load_pdb then names what is wrong
    if not 1 <= k <= MAX_K:
        raise PdbFileError(f"{pdb_path}: a pattern PDB of {k} boxes is not supported")
    return k


def _tables(level: Level, table: np.ndarray, k: int) -> PatternTables:
    """The loaded tables of 1 .. k boxes as the bound reads them."""
    cells = live_cells(level)
    pat_index = np.full(level.width * level.height, -1, dtype=np.int64)
    pat_index[cells] = np.arange(len(cells))
    offsets = table_offsets(len(cells), len(region_cells(level)), k)
    return PatternTables(table, offsets, k, binomial_table(len(cells), k), pat_index)


def verify_patterns(level: Level, k: int, table: np.ndarray) -> str | None:
    """What is wrong with ``table`` as the 1- to k-box tables of ``level``,
    judged on a random sample of each table's entries."""
    offsets = table_offsets(len(live_cells(level)), len(region_cells(level)), k)
    if table.shape[0] != offsets[-1]:
        return f"{table.shape[0]:,} entries, not the {int(offsets[-1]):,} of its level"
    for j in range(1, k + 1):
        params = pattern_params(level, j)
        part = table[offsets[j]:offsets[j + 1]]
        problem = sampled_check(params, part, 4 * j, workspace_size(params), samples=2048)
        if problem:
            return f"its {j}-box table: {problem}"
    return None


def build_level_patterns(level: Level, most: int | None = None, *, db_dir=None, out=None,
                         progress: bool = False) -> PdbInfo:
    """Build and save the pattern tables of a level (k up to ``most``, as
    many as fit by default) under the name ``solve`` looks for, or ``out``."""
    if most is not None and not 1 <= most <= MAX_K:
        raise PdbsearchError(f"patterns of {most} boxes: choose from 1 to {MAX_K}")
    k = choose_k(level, most or MAX_K)
    spec = pattern_spec(level, k)
    path = Path(out) if out else (Path(db_dir) if db_dir else default_db_dir()) / pdb_filename(spec)
    table, seconds, _ = build_patterns(level, k, progress)
    save_pdb(path, table, spec, seconds)
    p = spec.parameters
    description = (f"sokoban pattern PDB of {p['width']}x{p['height']} level "
                   f"{level.title or ''}".rstrip() + f": tables of 1 to {k} boxes among "
                   f"{p['cells']} live cells, player among {p['player_cells']} cells")
    return PdbInfo.of(path, table, description, seconds)
