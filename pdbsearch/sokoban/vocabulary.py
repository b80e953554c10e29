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
#: order: member -> (weight, share of the time, share after the member's
#: opening or None: :mod:`pdbsearch.search.portfolio`).  Weighted A* and
#: greedy search won no level after 2 s in our runs of 20 and 60 s on hard
#: levels, and their latest wins at 5 s came at 0.9 s of their own
#: (docs/benchmarks.md), so after their openings (2 and 0.9 CPU seconds;
#: weighted A*'s is twice its latest win) they run at a fifth of their
#: shares, and give the rest back.  The relay is the other way round: it
#: follows the FESS engines' best positions, which mean little in the first
#: seconds, and most of its wins came after 15 s; at 0.15 from the start
#: it cost Microban 153 at 5 s a level.  It starts at 0.05 (0.5 CPU seconds
#: of opening) and rises to 0.175 after, about the fifth of the late time
#: it had at a flat 0.15.
PORTFOLIO_MEMBERS: dict[str, tuple[float, float, float | None]] = {
    "perimeter": (1.0, 0.195, None), "fess-only": (1.0, 0.16, None),
    "wastar": (2.0, 0.2, 0.04), "greedy": (1.0, 0.09, 0.02),
    "fess-nearest": (1.0, 0.1525, None), "fess-backward": (1.0, 0.1525, None),
    "fess-relay": (1.0, 0.05, 0.175)}

#: The members whose best positions the relay's legs aim at, in turn, and
#: whose paths to them the legs and ``fess-backward`` may meet.
RELAY_LEADERS = ("fess-only", "fess-nearest")


def check_members(members: Sequence[str]) -> tuple[str, ...]:
    """``members`` as a tuple, if each names a member of
    :data:`PORTFOLIO_MEMBERS` (:class:`PdbsearchError` otherwise)."""
    unknown = sorted(set(members) - set(PORTFOLIO_MEMBERS))
    if unknown or not members:
        raise PdbsearchError(f"no portfolio member {', '.join(unknown) or '(none given)'}; "
                             f"choose from {', '.join(PORTFOLIO_MEMBERS)}")
    return tuple(members)
