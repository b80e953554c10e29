"""The registry of puzzle domains, which feeds the command line and tests.

A domain knows how to load an instance from a file (or give its built-in
default) and turn it into a :class:`~pdbsearch.puzzle.Puzzle` with a metric
and a heuristic.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Callable

from .puzzle import Puzzle


@dataclass(frozen=True)
class Domain:
    """A puzzle family as the command line sees it."""

    name: str
    metrics: tuple[str, ...]
    default_metric: str
    heuristics: tuple[str, ...]
    default_heuristic: str
    #: (file or None, parsed arguments) -> Puzzle; raises PdbsearchError
    load: Callable[[str | None, argparse.Namespace], Puzzle]


def _load_hakoiri(path: str | None, args: argparse.Namespace) -> Puzzle:
    from .hakoiri import HakoiriPuzzle, load_board
    from .hakoiri.builtin import classic_board

    board = classic_board() if path is None else load_board(path)
    metric = args.metric or "straight"
    heuristic = args.heuristic or "pdb"
    table = None
    if heuristic == "pdb":
        from .hakoiri.database import obtain_pdb, relaxed_spec
        spec = relaxed_spec(board.width, board.height, board.exit, len(board.empty_cells()),
                            metric)
        table = obtain_pdb(spec, getattr(args, "db_dir", None), getattr(args, "pdb", None),
                           progress=getattr(args, "progress", False))
    return HakoiriPuzzle(board, metric, heuristic, pdb=table)


def _load_sokoban(path: str | None, args: argparse.Namespace) -> Puzzle:
    from .sokoban.domain import load_puzzle
    return load_puzzle(path, args)


DOMAINS: dict[str, Domain] = {
    "hakoiri": Domain("hakoiri", ("unit", "straight", "free"), "straight",
                      ("zero", "simple", "pdb"), "pdb", _load_hakoiri),
    "sokoban": Domain("sokoban", ("pushes", "moves"), "pushes",
                      ("zero", "simple", "matching", "pdb"), "pdb", _load_sokoban),
}


def detect_domain(path: str | None) -> str:
    """The domain of a puzzle file: Hakoiri files declare an exit, the
    others are Sokoban levels (XSB, Push!! or seed 002 text)."""
    if path is None:
        return "hakoiri"
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            head = f.read(1 << 16)
    except OSError:
        return "hakoiri"  # the loader reports the missing file
    for line in head.splitlines():
        if line.strip().lower().startswith("exit:"):
            return "hakoiri"
    return "sokoban"
