"""ICPC "Push!!" files: several maps, one answer per map.

The contest asks, for each map, the minimum number of pushes that bring the
box to the goal, or -1 when no sequence of pushes does.  ``pdbsearch solve
--format push FILE`` prints exactly those lines (``?`` for a map stopped by
a limit).  Exit code: 0 when every map got its answer (-1 is an answer),
3 when a limit stopped one.
"""

from __future__ import annotations

import json
import sys
from typing import Sequence

from .model import Level
from .puzzle import Rules, SokobanPuzzle


class PushBatch:
    """The maps of a Push!! file, solved one by one."""

    domain = "sokoban"

    def __init__(self, levels: Sequence[Level], metric: str = "pushes",
                 heuristic: str = "matching", rules: Rules = Rules(), **patterns):
        """``patterns``: the pattern-PDB keywords of :class:`SokobanPuzzle`."""
        if patterns.get("pdb_path") is not None and len(levels) > 1:
            from ..errors import PdbsearchError
            raise PdbsearchError("--pdb names the PDB of one map; pick it with --level")
        self.puzzles = [SokobanPuzzle(level, metric, heuristic, rules, **patterns)
                        for level in levels]

    def describe(self) -> str:
        """One line naming the batch."""
        return f"Push!! file with {len(self.puzzles)} map(s)"

    def answers(self, algo: str = "astar", weight: float = 1.0, limits=None):
        """``(answer, result)`` per map: the optimal cost, -1 when proved
        unsolvable, None when a limit stopped the search."""
        from ..search import Status, solve
        out = []
        for puzzle in self.puzzles:
            result = solve(puzzle, algo, weight, limits)
            if result.status is Status.SOLVED:
                answer = result.cost
            elif result.status is Status.UNSOLVABLE:
                answer = -1
            else:
                answer = None
            out.append((answer, result))
        return out

    def solve_command(self, args) -> int:
        """Print one answer per map (or a JSON list); returns the exit code."""
        from ..cli import EXIT_LIMIT, EXIT_OK, _limits
        from .domain import algo_and_weight
        algo, weight = algo_and_weight(args)
        answers = self.answers(algo, weight, _limits(args))
        if args.json:
            rows = []
            for (answer, result), puzzle in zip(answers, self.puzzles):
                rows.append({"answer": answer, **result.to_json(),
                             **puzzle.solution_fields(result)})
            print(json.dumps(rows))
        else:
            for answer, _ in answers:
                print("?" if answer is None else answer)
            sys.stdout.flush()
        return EXIT_LIMIT if any(a is None for a, _ in answers) else EXIT_OK
