"""Sokoban's metrics, lower bounds and pattern groupings, and their kernel codes;
the members of the ``--algo fess`` portfolio."""

from __future__ import annotations

from typing import Sequence

from ..errors import PdbsearchError
from ..vocabulary import Term, Vocabulary

# Kernel codes (module constants: numba freezes them into the kernels).
PUSHES, MOVES = 0, 1
ZERO, SIMPLE, MATCHING, PDB = 0, 1, 2, 3
GREEDY, STATIC = 0, 1

METRICS = Vocabulary("metric", "sokoban", (
    Term("pushes", PUSHES, "fewest pushes (walking is free)"),
    Term("moves", MOVES, "fewest steps: a push costs its walk + 1"),
), default="pushes")

HEURISTICS = Vocabulary("heuristic", "sokoban", (
    Term("zero", ZERO, "no estimate"),
    Term("simple", SIMPLE, "each box's nearest goal"),
    Term("matching", MATCHING, "cheapest box-to-goal assignment of player-aware push distances"),
    Term("pdb", PDB, "max of the matching and additive k-box pattern databases"),
), default="pdb")

GROUPINGS = Vocabulary("grouping", "sokoban", (
    Term("greedy", GREEDY, "disjoint groups of boxes picked by gain, per state"),
    Term("static", STATIC, "runs of k boxes in cell order"),
), default="greedy")

#: The ``--algo fess`` portfolio (:meth:`SokobanPuzzle.fess_portfolio`), in
#: order: member -> (weight, share of the time).
PORTFOLIO_MEMBERS: dict[str, tuple[float, float]] = {
    "perimeter": (1.0, 0.21), "fess-only": (1.0, 0.17), "wastar": (2.0, 0.2),
    "greedy": (1.0, 0.09), "fess-nearest": (1.0, 0.165), "fess-backward": (1.0, 0.165)}


def check_members(members: Sequence[str]) -> tuple[str, ...]:
    """``members`` as a tuple, if each names a member of
    :data:`PORTFOLIO_MEMBERS` (:class:`PdbsearchError` otherwise)."""
    unknown = sorted(set(members) - set(PORTFOLIO_MEMBERS))
    if unknown or not members:
        raise PdbsearchError(f"no portfolio member {', '.join(unknown) or '(none given)'}; "
                             f"choose from {', '.join(PORTFOLIO_MEMBERS)}")
    return tuple(members)
