"""The Hakoiri family's move metrics and heuristics, and their kernel codes."""

from __future__ import annotations

from ..vocabulary import Term, Vocabulary

# Kernel codes (module constants: numba freezes them into the kernels).
UNIT, STRAIGHT, FREE = 0, 1, 2
ZERO, SIMPLE, PDB = 0, 1, 2

METRICS = Vocabulary("metric", "hakoiri", (
    Term("unit", UNIT, "one piece moves one cell"),
    Term("straight", STRAIGHT, "one piece moves in one direction, any distance"),
    Term("free", FREE, "one piece moves along any path of empty cells"),
), default="straight")

HEURISTICS = Vocabulary("heuristic", "hakoiri", (
    Term("zero", ZERO, "no estimate (uniform-cost search)"),
    Term("simple", SIMPLE, "the 2x2's moves to the exit on an empty board"),
    Term("pdb", PDB, "the relaxed-problem pattern database (seed 003)"),
), default="pdb")
