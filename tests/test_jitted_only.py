"""Kernels compiled for jitted callers only (``pdbsearch.puzzle.jitted_only``)."""

import numpy as np
import numba as nb
import pytest

from pdbsearch.puzzle import jitted_only


@jitted_only(cache=False)
def _plus_one(values):
    return values[0] + 1


@nb.njit
def _through_jitted_code(values):
    return _plus_one(values) * 2


def test_a_jitted_only_kernel_works_from_jitted_code_and_refuses_python():
    values = np.arange(3)
    assert _through_jitted_code(values) == 2
    with pytest.raises(TypeError, match="jitted callers only"):
        _plus_one(values)   # numba alone would crash the process here
