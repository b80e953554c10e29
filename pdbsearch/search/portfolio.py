"""A portfolio of engines sharing one search's time (Festival runs several
differently biased searches; so does ``--algo fess`` on Sokoban).

The members run interleaved, in chunks: each call of :meth:`run` gives
the member that has used the smallest part of its *share* one chunk of
about :data:`CHUNK_SECONDS`.  So a level that member ``i`` alone solves in
``t`` seconds is solved in about ``t / share_i`` seconds, whichever member
it is.  The first member to solve it wins; a member that exhausts its
space proves the puzzle unsolvable (the members prune soundly).  A member
whose growth would pass the memory limit is retired and the others go on.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .common import (EXHAUSTED, EXPANDED, F_LAST, GENERATED, GROW_NODES, NODES, N_FSTATS,
                     N_STATS, OPEN, PRUNED, RUNNING, SOLVED, move_between)

#: Target seconds of one member's chunk.
CHUNK_SECONDS = 0.05


@dataclass
class Member:
    """One engine of a portfolio and its accounts."""

    label: str
    engine: object
    share: float
    budget: int = 16
    seconds: float = 0.0          #: CPU seconds used
    retired: bool = False


class PortfolioSearch:
    """Several engines on one puzzle, interleaved by time shares."""

    progress_label = "f"

    def __init__(self, puzzle, members: list[Member], memory_bytes: int, name: str):
        if not members:
            raise ValueError("a portfolio needs members")
        self.puzzle = puzzle
        self.members = members
        self.memory = memory_bytes
        self.name = name
        self.stats = np.zeros(N_STATS, dtype=np.int64)
        self.fstats = np.zeros(N_FSTATS, dtype=np.float64)
        self.winner: Member | None = None
        self._out_of_memory = False

    def _pick(self) -> Member | None:
        active = [m for m in self.members if not m.retired]
        if not active:
            return None
        return min(active, key=lambda m: m.seconds / m.share)

    def run(self, budget: int) -> int:
        """One chunk of the member furthest behind its share."""
        member = self._pick()
        if member is None:
            self._out_of_memory = True
            return GROW_NODES
        if budget <= 0:
            return RUNNING
        t0 = time.perf_counter()
        c0 = time.process_time()
        code = member.engine.run(min(budget, member.budget))
        spent = time.perf_counter() - t0
        # Shares are of CPU time: steady when other work shares the machine.
        member.seconds += time.process_time() - c0
        if code == RUNNING:
            if spent < CHUNK_SECONDS / 16:
                member.budget = min(member.budget * 8, 1 << 24)
            elif spent < CHUNK_SECONDS / 2:
                member.budget = min(member.budget * 2, 1 << 24)
            elif spent > CHUNK_SECONDS * 2 and member.budget > 1:
                member.budget //= 2
        self._sum_stats(member)
        if code in (SOLVED, EXHAUSTED):
            self.winner = member
            return code
        if code != RUNNING:
            # A member that reserves its arrays up front (the perimeter)
            # counts with all of them: it may yet fill them.
            others = sum(getattr(m.engine, "reserved_nbytes", m.engine.nbytes)()
                         for m in self.members if m is not member)
            if others + member.engine.grow_nbytes(code) > self.memory:
                member.retired = True
            else:
                member.engine.grow(code)
        return RUNNING

    def _sum_stats(self, last: Member) -> None:
        for slot in (EXPANDED, GENERATED, NODES, OPEN, PRUNED):
            self.stats[slot] = sum(int(m.engine.stats[slot]) for m in self.members)
        self.fstats[F_LAST] = last.engine.fstats[F_LAST]

    def load_kernels(self) -> None:
        """Compile or load every member's kernels."""
        for m in self.members:
            m.engine.load_kernels()

    def nbytes(self) -> int:
        """Bytes held by all members."""
        return sum(m.engine.nbytes() for m in self.members)

    def grow_nbytes(self, code: int) -> int:
        """Past any limit once every member is retired (the driver stops)."""
        return 1 << 62 if self._out_of_memory else self.nbytes()

    def grow(self, code: int) -> None:
        """Nothing: members grow inside :meth:`run`."""

    def solution_keys(self) -> list[np.ndarray]:
        """The winner's path."""
        return self.winner.engine.solution_keys()

    def solution_codes(self, keys: list[np.ndarray]) -> list[int]:
        """The winner's moves along ``keys``."""
        engine = self.winner.engine
        if hasattr(engine, "solution_codes"):
            return engine.solution_codes(keys)
        return [move_between(self.puzzle, a, b)[0] for a, b in zip(keys, keys[1:])]

    def lower_bound(self) -> float | None:
        """A portfolio of searches that find solutions proves no bound."""
        return None

    def report(self) -> dict:
        """Which member won, and each member's time and expansions."""
        out: dict = {"winner": None if self.winner is None else self.winner.label,
                     "members": {m.label: {"seconds": round(m.seconds, 4),
                                           "expanded": int(m.engine.stats[EXPANDED]),
                                           "share": m.share, "retired": m.retired}
                                 for m in self.members}}
        for m in self.members:
            if hasattr(m.engine, "report"):
                out.update(m.engine.report())
        return out
