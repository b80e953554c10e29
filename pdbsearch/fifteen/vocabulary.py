"""The sliding-tile puzzle's move metric and heuristics, and their kernel codes."""

from __future__ import annotations

from ..vocabulary import Term, Vocabulary

# Kernel codes (module constants: numba freezes them into the kernels).
UNIT = 0
ZERO, MANHATTAN, PDB = 0, 1, 2

METRICS = Vocabulary("metric", "fifteen", (
    Term("unit", UNIT, "one tile slides into the blank"),
), default="unit")

HEURISTICS = Vocabulary("heuristic", "fifteen", (
    Term("zero", ZERO, "no estimate (uniform-cost search)"),
    Term("manhattan", MANHATTAN, "the tiles' Manhattan distances"),
    Term("pdb", PDB, "disjoint additive pattern databases (4x4: 7-8, the maximum with the "
                     "reflection about the main diagonal)"),
), default="pdb")
