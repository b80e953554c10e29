"""The packing plan of a level: the order in which goals are filled, and
the out-of-plan (OOP) zones derived from it (FESS's *packed* and
*out-of-plan* features, :mod:`.features`).

A plan is a :class:`PlanParams`: ``order`` lists the goal cells, the one to
fill first first; *packed* is the longest prefix of it that holds boxes.
When no order is known the plan is *naive*: packed counts the boxes on
goals (Festival's ``NAIVE`` scoring).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..byref import by_reference


@by_reference
class PlanParams(NamedTuple):
    """The plan as the kernels read it."""

    naive: int            #: 1: packed = boxes on goals (``order`` unused)
    order: np.ndarray     #: int32[goals]: goal cells in packing order
    zone: np.ndarray      #: uint8[goals + 1, cell]: OOP zone of each step (1 inside)


def naive_plan(n_goals: int, n_grid: int) -> PlanParams:
    """No order: packed = boxes on goals, no OOP zones."""
    return PlanParams(1, np.zeros(n_goals, np.int32), np.zeros((n_goals + 1, n_grid), np.uint8))
