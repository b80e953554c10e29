"""The Hakoiri relaxed-problem PDB: naming, building, finding or building.

One table serves every board of a geometry (size, exit, number of empty
cells) under one metric.  Files are named by what they encode, e.g.
``hakoiri-relaxed-8x20-exit3-18-empty2-straight.h5``.
"""

from __future__ import annotations

from math import comb
from pathlib import Path
from typing import Callable

import numpy as np

from ..errors import PdbsearchError, ResourceLimit
from ..machine import resident_bytes
from ..pdb.builder import build_table, sampled_check
from ..pdb.store import PdbInfo, PdbSpec, default_db_dir, find_or_build, log_to_stderr, save_pdb
from ..search.result import default_memory_limit_mb
from .builtin import classic_board
from .formats import exit_cell, parse_board
from .model import MAX_SIDE
from .vocabulary import METRICS
from .abstraction import max_neighbours, relaxed_params, table_size, workspace_size


def relaxed_spec(width: int, height: int, exit_xy: tuple[int, int], n_empty: int,
                 metric: str) -> PdbSpec:
    """The spec of the relaxed PDB of a geometry."""
    return PdbSpec("hakoiri", "relaxed", metric,
                   {"width": width, "height": height, "exit": [int(exit_xy[0]), int(exit_xy[1])],
                    "empty": n_empty})


def pdb_filename(spec: PdbSpec) -> str:
    """The file name of a relaxed PDB."""
    p = spec.parameters
    return (f"hakoiri-relaxed-{p['width']}x{p['height']}-exit{p['exit'][0]}-{p['exit'][1]}"
            f"-empty{p['empty']}-{spec.metric}.h5")


def build_relaxed(spec: PdbSpec, progress: bool = False, threads: int = 1,
                  deadline: float | None = None,
                  memory_limit: int | None = None) -> tuple[np.ndarray, float, float]:
    """Build the table of a spec; returns (table, seconds, compile seconds).

    Refuses (PdbsearchError) a table larger than the default memory cap;
    past ``deadline`` (perf_counter) or with a table that would not fit in
    ``memory_limit`` bytes of process memory, stops with
    :class:`~pdbsearch.errors.ResourceLimit`.
    """
    p = spec.parameters
    entries = ((p["width"] - 1) * (p["height"] - 1)
               * comb(p["width"] * p["height"] - 4, p["empty"]))
    cap = default_memory_limit_mb() << 20
    if entries > cap:
        raise PdbsearchError(
            f"the relaxed PDB of a {p['width']}x{p['height']} board with {p['empty']} empty "
            f"cells would have {entries:,} entries ({entries / 2**30:,.1f} GiB), more than "
            f"the {cap >> 20:,} MiB allowed; use --heuristic simple")
    if memory_limit is not None and resident_bytes() + entries > memory_limit:
        raise ResourceLimit("memory", f"the relaxed PDB ({entries:,} bytes) does not fit in "
                                      f"the memory limit")
    params = relaxed_params(p["width"], p["height"], tuple(p["exit"]), p["empty"], spec.metric)
    return build_table(params, table_size(params), max_neighbours(params),
                       workspace_size(params), progress=progress,
                       label=f"relaxed PDB {p['width']}x{p['height']} {spec.metric}",
                       threads=threads, deadline=deadline)


def obtain_pdb(spec: PdbSpec, db_dir: str | Path | None = None, pdb_path: str | Path | None = None,
               progress: bool = False,
               log: Callable[[str], None] | None = log_to_stderr,
               deadline: float | None = None, memory_limit: int | None = None) -> np.ndarray:
    """The table of ``spec``: from ``pdb_path`` if given (refused if it does
    not match), else from the database folder, else built and saved there
    (within ``deadline`` and ``memory_limit``, see :func:`build_relaxed`)."""
    def build() -> tuple[np.ndarray, float]:
        table, seconds, _ = build_relaxed(spec, progress, deadline=deadline,
                                          memory_limit=memory_limit)
        return table, seconds
    return find_or_build(spec, pdb_filename(spec), build, db_dir, pdb_path, log,
                         what="relaxed PDB", verify=lambda table: verify_relaxed(spec, table))


def verify_relaxed(spec: PdbSpec, table: np.ndarray) -> str | None:
    """What is wrong with ``table`` as the relaxed PDB of ``spec``, judged
    on a random sample of its entries (:func:`pdbsearch.pdb.builder.sampled_check`)."""
    p = spec.parameters
    params = relaxed_params(p["width"], p["height"], tuple(p["exit"]), p["empty"], spec.metric)
    if table.shape[0] != table_size(params):
        return f"{table.shape[0]:,} entries, not the {table_size(params):,} of its geometry"
    return sampled_check(params, table, max_neighbours(params), workspace_size(params))


def parse_size(text: str) -> tuple[int, int]:
    """``(width, height)`` of a size such as ``8x20`` (sides 2 to 64)."""
    parts = text.lower().split("x")
    shown = repr(text if len(text) <= 30 else text[:30] + "...")
    if len(parts) != 2 or not all(p.isascii() and p.isdigit() for p in parts):
        raise PdbsearchError(f"bad size {shown}: expected WIDTHxHEIGHT, e.g. 8x20")
    if any(len(p) > 3 for p in parts) or not all(2 <= int(p) <= MAX_SIDE for p in parts):
        raise PdbsearchError(f"bad size {shown}: each side must be from 2 to {MAX_SIDE}")
    width, height = int(parts[0]), int(parts[1])
    return width, height


def parse_exit(spec: str | tuple[int, int], width: int, height: int) -> tuple[int, int]:
    """The 2x2's exit cell: ``bottom`` (middle of the bottom edge), ``X,Y``
    or a pair of ints."""
    if not isinstance(spec, str):
        spec = " ".join(str(v) for v in spec)
    return exit_cell(spec, width, height)


def build_geometry(target, text: str | None, *, metric: str | None = None,
                   exit_at: str | tuple[int, int] = "bottom", empty: int = 2,
                   db_dir=None, out=None, threads: int = 1, progress: bool = False) -> PdbInfo:
    """Build and save the relaxed PDB of a board (``text`` read from the file
    ``target``), of a size like ``8x20`` (``target`` with ``exit_at`` and
    ``empty``), or of the classic board (``target`` None)."""
    metric = METRICS.check(metric)
    if text is not None:
        board = parse_board(text, str(target))
    elif target is None:
        board = classic_board()
    else:
        board = None
    if board is not None:
        width, height, exit_xy = board.width, board.height, board.exit
        n_empty = len(board.empty_cells())
    else:
        try:
            width, height = parse_size(str(target))
        except PdbsearchError:
            raise PdbsearchError(f"{target}: no such board file, and not a size like "
                                 f"8x20") from None
        exit_xy = parse_exit(exit_at, width, height)
        n_empty = int(empty)
        if not 1 <= n_empty <= width * height - 4:
            raise PdbsearchError(f"empty cells must be from 1 to {width * height - 4}")
    spec = relaxed_spec(width, height, exit_xy, n_empty, metric)
    path = Path(out) if out else (Path(db_dir) if db_dir else default_db_dir()) / pdb_filename(spec)
    table, seconds, compile_seconds = build_relaxed(spec, progress, threads)
    save_pdb(path, table, spec, seconds)
    description = (f"relaxed PDB {width}x{height}, exit {exit_xy[0]},{exit_xy[1]}, {n_empty} "
                   f"empty cells, {metric} metric: {(width - 1) * (height - 1)} positions of "
                   f"the 2x2 x C({width * height - 4},{n_empty})")
    return PdbInfo.of(path, table, description, seconds, compile_seconds)
