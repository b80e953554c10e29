"""Named choices of a domain (its metrics, its heuristics) in one table each.

A :class:`Vocabulary` maps each name a user types to the integer code the
jitted kernels compare against, with a one-line summary for ``--help`` and,
for heuristics, whether the bound is admissible.  The same table feeds the
command line's choices, the domain registry, the validation of the Python
API and the kernels (through the module-level constants each domain
defines beside its table, which numba freezes at compile time).
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import PdbsearchError


@dataclass(frozen=True)
class Term:
    """One choice: its name, its kernel code, what it means."""

    name: str
    code: int
    summary: str
    #: heuristics: True when the bound never overestimates the cost left
    admissible: bool = True


@dataclass(frozen=True)
class Vocabulary:
    """The choices of one kind (``"metric"``, ``"heuristic"``) of a domain."""

    kind: str
    domain: str
    terms: tuple[Term, ...]
    default: str

    def __post_init__(self) -> None:
        if self.default not in self.names:
            raise ValueError(f"default {self.default!r} is not one of {self.names}")

    @property
    def names(self) -> tuple[str, ...]:
        """The names, in table order."""
        return tuple(t.name for t in self.terms)

    def __contains__(self, name: object) -> bool:
        return name in self.names

    def __getitem__(self, name: str) -> Term:
        return self.terms[self.names.index(self.check(name))]

    def check(self, name: str | None) -> str:
        """``name`` if it is one of the choices, the default if it is None;
        otherwise a :class:`PdbsearchError` listing the choices."""
        if name is None:
            return self.default
        if name not in self.names:
            raise PdbsearchError(f"unknown {self.kind} {name!r} for {self.domain}; "
                                 f"choose from {', '.join(self.names)}")
        return name

    def code(self, name: str) -> int:
        """The kernel code of a name."""
        return self[name].code

    def help(self) -> str:
        """``name: summary`` for every choice, the default marked."""
        return "; ".join(f"{t.name}{' (default)' if t.name == self.default else ''}: "
                         f"{t.summary}" for t in self.terms)
