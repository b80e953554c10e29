"""The Sokoban pruning rules a search uses (a light module: the command
line reads it to build its ``--no-...`` switches without importing the
kernels)."""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class Rules:
    """Which deadlock and pruning rules the search uses (all sound; see
    :mod:`.deadlocks`).  Each has a ``--no-...`` switch on the command line
    so that its effect can be measured."""

    dead_squares: bool = True   #: never push a box onto a dead square
    freeze: bool = True         #: prune freeze deadlocks (2x2 blocks, frozen chains)
    corral: bool = True         #: PI-corral pruning and corral deadlocks
    tunnels: bool = True        #: one-way tunnel pruning
    tunnel_macros: bool = True  #: push a box through a one-way tunnel in one move (pushes)
    diagonal: bool = True       #: prune closed diagonal deadlocks
    #: search backwards from the goal beside the forward search (pushes): the
    #: breadth-first perimeter beside A*, the greedy one in
    #: the ``--algo fess`` portfolio (:mod:`pdbsearch.search.bidirectional`)
    perimeter: bool = True
    #: dead-end probes of the positions ``--algo fess`` is stuck under, and
    #: the dead positions they meet (:mod:`.probe`; FESS only)
    probes: bool = True
    #: goal-room macros: a box entering a goal room goes straight to the
    #: room's next goal (:mod:`.goalrooms`; FESS's forward engines only)
    goal_rooms: bool = True
    #: learn deadlock patterns by local searches; None (auto): only for the
    #: searches where it pays (weighted A* and greedy, see :meth:`SokobanPuzzle.tune`)
    learning: bool | None = None

    @classmethod
    def none(cls) -> Rules:
        """Every rule switched off."""
        return cls(**{f.name: False for f in fields(cls)})

    def names(self) -> list[str]:
        """The names of the rules switched on (``learning-auto`` when that
        is left to the algorithm)."""
        names = []
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None:
                names.append(f.name.replace("_", "-") + "-auto")
            elif value:
                names.append(f.name.replace("_", "-"))
        return names

    def describe(self) -> str:
        """The rules switched on, as ``dead-squares+freeze+...`` (or ``none``)."""
        return "+".join(self.names()) or "none"
