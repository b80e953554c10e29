"""Sokoban's metrics, lower bounds and pattern groupings, and their kernel codes."""

from __future__ import annotations

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
