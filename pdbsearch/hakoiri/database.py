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

from ..errors import PdbsearchError
from ..search.result import default_memory_limit_mb
from ..pdb.builder import build_table
from ..pdb.store import PdbSpec, find_or_build, log_to_stderr
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


def build_relaxed(spec: PdbSpec, progress: bool = False,
                  threads: int = 1) -> tuple[np.ndarray, float, float]:
    """Build the table of a spec; returns (table, seconds, compile seconds).

    Refuses (PdbsearchError) a table larger than the default memory cap.
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
    params = relaxed_params(p["width"], p["height"], tuple(p["exit"]), p["empty"], spec.metric)
    return build_table(params, table_size(params), max_neighbours(params),
                       workspace_size(params), progress=progress,
                       label=f"PDB {p['width']}x{p['height']} {spec.metric}", threads=threads)


def obtain_pdb(spec: PdbSpec, db_dir: str | Path | None = None, pdb_path: str | Path | None = None,
               progress: bool = False, log: Callable[[str], None] = log_to_stderr) -> np.ndarray:
    """The table of ``spec``: from ``pdb_path`` if given (refused if it does
    not match), else from the database folder, else built and saved there."""
    def build() -> tuple[np.ndarray, float]:
        table, seconds, _ = build_relaxed(spec, progress)
        return table, seconds
    return find_or_build(spec, pdb_filename(spec), build, db_dir, pdb_path, log,
                         what="relaxed PDB")
