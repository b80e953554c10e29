"""Params passed to the kernels by reference (pdbsearch.byref)."""

from __future__ import annotations

import gc
import os
import pickle
import subprocess
import sys
from collections import namedtuple
from typing import NamedTuple

import numba as nb
import numpy as np
import pytest

from hypothesis import given, settings
from hypothesis import strategies as st

from pdbsearch.byref import (ParamsRef, _ref_type, by_reference, field_type, is_by_reference,
                             to_ref)
from pdbsearch.puzzle import KERNEL_JIT_OPTIONS


@by_reference
class Inner(NamedTuple):
    values: np.ndarray
    k: int


@by_reference
class Outer(NamedTuple):
    a: np.ndarray
    grid: np.ndarray
    inner: Inner
    pair: tuple          # an unmarked tuple stays a tuple inside the struct
    n: int
    x: float


class Unmarked(NamedTuple):
    a: np.ndarray


@nb.njit(**KERNEL_JIT_OPTIONS)
def _read_all(p, i):
    """Every kind of field, from a kernel compiled without reference counting."""
    return (p.a[i] + p.grid[1, i] + p.inner.values[i] + p.inner.k + p.pair[0][i]
            + p.pair[1] + p.n + p.x)


@nb.njit(**KERNEL_JIT_OPTIONS)
def _bump(p, i):
    p.a[i] += 1
    p.inner.values[i] += 10


@nb.njit(cache=True)
def _read_with_runtime(p, i):
    """The same reads where numba counts references (and may allocate)."""
    out = np.empty(2, np.int64)
    out[0] = p.a[i] + p.inner.values[i]
    out[1] = p.n
    return out


def _outer(a=None):
    a = np.arange(5, dtype=np.int64) if a is None else a
    return Outer(a, np.arange(10, dtype=np.int64).reshape(2, 5),
                 Inner(np.arange(5, dtype=np.int64) * 3, 7),
                 (np.arange(5, dtype=np.int64) * 100, 1000), 10000, 0.5)


def _expected(t, i):
    return (t.a[i] + t.grid[1, i] + t.inner.values[i] + t.inner.k + t.pair[0][i]
            + t.pair[1] + t.n + t.x)


def test_kernels_read_what_the_tuple_holds():
    t = _outer()
    p = to_ref(t)
    for i in range(5):
        assert _read_all(p, i) == _expected(t, i)
    assert list(_read_with_runtime(p, 2)) == [t.a[2] + t.inner.values[2], t.n]


def test_the_struct_holds_the_same_arrays_not_copies():
    t = _outer()
    p = to_ref(t)
    _bump(p, 3)
    assert t.a[3] == 4 and p.a[3] == 4
    assert t.inner.values[3] == 19 and p.inner.values[3] == 19


def test_python_reads_and_replace_work_as_on_the_tuple():
    t = _outer()
    p = to_ref(t)
    assert isinstance(p.inner, ParamsRef)       # marked fields become structs
    assert p.inner.k == 7 and p.n == 10000 and p.x == 0.5
    assert isinstance(p.pair, tuple)
    q = p._replace(n=5, inner=Inner(np.zeros(5, np.int64), 1))
    assert isinstance(q, ParamsRef) and isinstance(q.inner, ParamsRef)
    assert _read_all(q, 0) == t.a[0] + t.grid[1, 0] + 0 + 1 + 0 + 1000 + 5 + 0.5
    assert _read_all(p, 0) == _expected(t, 0)   # the first struct is unchanged
    assert len(p) == 6 and list(p)[4] == 10000 and p[5] == 0.5
    assert to_ref(p) is p


def test_calls_from_python_leak_no_reference_and_the_arrays_are_freed():
    to_ref(_outer())     # the shape built once: what follows takes the entry point
    a = np.arange(5, dtype=np.int64)
    before = sys.getrefcount(a)
    p = to_ref(_outer(a))
    held = sys.getrefcount(a)
    assert held > before
    for _ in range(2000):
        _read_all(p, 1)
        _read_with_runtime(p, 1)
    assert p._meminfo.refcount == 1
    assert sys.getrefcount(a) == held
    del p
    gc.collect()
    assert sys.getrefcount(a) == before


def test_a_pickled_struct_reads_the_same():
    t = _outer()
    q = pickle.loads(pickle.dumps(to_ref(t)))
    assert isinstance(q, ParamsRef)
    assert _read_all(q, 4) == _expected(t, 4)


def test_only_marked_tuples_become_structs():
    assert is_by_reference(Outer) and not is_by_reference(Unmarked)
    with pytest.raises(TypeError, match="Unmarked is not marked"):
        to_ref(Unmarked(np.zeros(1)))


def test_two_structs_of_one_shape_share_their_compiled_code():
    p, q = to_ref(_outer()), to_ref(_outer(np.arange(5, dtype=np.int64) + 1))
    _read_all(p, 0)
    _read_all(q, 0)
    assert nb.typeof(p) == nb.typeof(q)
    assert len(_read_all.signatures) == 1


def _run_elsewhere(tmp_path, script: str, *args: str) -> subprocess.CompletedProcess:
    """Run ``script`` in a process that cannot import this test module
    (another working folder, no PYTHONPATH), as a user's next command."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([sys.executable, "-c", script, *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)


def test_a_test_class_stays_out_of_the_on_disk_cache(tmp_path):
    """Structs of this module's classes are built, and the cached builder's
    index still unpickles in a process that cannot import this module (it
    held ``tests.test_byref.Outer`` once, and every later command crashed)."""
    from pdbsearch.byref import _construct_cached
    from pdbsearch.sokoban.plan import naive_plan

    to_ref(naive_plan(3, 10))          # a package class: written to the cache
    _outer()                           # this module's classes: kept in memory
    index = _construct_cached._cache._cache_file._index_path
    assert os.path.exists(index)
    script = ("import pickle, sys, pdbsearch.byref\n"
              "with open(sys.argv[1], 'rb') as f:\n"
              "    pickle.load(f)\n"
              "    stamp, overloads = pickle.loads(f.read())\n"
              "print(len(overloads))\n")
    done = _run_elsewhere(tmp_path, script, index)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) >= 1


class _Foreign(NamedTuple):
    """Stands for a class another process cannot import."""

    a: int


def test_an_unreadable_cache_index_is_a_miss(tmp_path):
    """An index naming a class this process cannot import reads as empty
    (numba compiles again) instead of raising from the kernel's first call."""
    from numba.core.caching import IndexDataCacheFile

    IndexDataCacheFile(str(tmp_path), "kernel", "stamp")._save_index({(_Foreign(1),): "kernel.0.nbc"})
    load = ("import sys\n"
            "from numba.core.caching import IndexDataCacheFile\n"
            "{guard}"
            "print(IndexDataCacheFile(sys.argv[1], 'kernel', 'stamp')._load_index())\n")
    unguarded = _run_elsewhere(tmp_path, load.format(guard=""), str(tmp_path))
    assert unguarded.returncode != 0 and "ModuleNotFoundError" in unguarded.stderr
    guarded = _run_elsewhere(tmp_path, load.format(guard="import pdbsearch.puzzle\n"), str(tmp_path))
    assert guarded.returncode == 0, guarded.stderr
    assert guarded.stdout.strip() == "{}"


class _Pair(NamedTuple):
    left: np.ndarray
    right: int


_DTYPES = ("uint8", "int8", "int16", "int32", "int64", "uint64", "float64", "bool")


@st.composite
def _field_values(draw):
    """A value of a field: an array (any dtype, 0 to 3 dimensions, sliced,
    transposed, read-only), an int of any size numba takes, a float, a
    bool, or a named tuple of an array and an int."""
    kind = draw(st.sampled_from(("array", "int", "float", "bool", "named")))
    if kind == "int":
        return draw(st.integers(-(1 << 63), (1 << 64) - 1))
    if kind == "float":
        return draw(st.floats(allow_nan=False))
    if kind == "bool":
        return draw(st.booleans())
    shape = tuple(draw(st.lists(st.integers(0, 4), max_size=3)))
    a = np.zeros(shape, dtype=draw(st.sampled_from(_DTYPES)))
    if a.ndim and draw(st.booleans()):
        a = a[::2]                  # not contiguous (unless it has 0 or 1 rows)
    if a.ndim > 1 and draw(st.booleans()):
        a = a.T                     # Fortran order
    if draw(st.booleans()):
        a.flags.writeable = False
    if kind == "named":
        return _Pair(a, draw(st.integers(0, 1 << 40)))
    return a


@settings(max_examples=300, deadline=None)
@given(st.lists(_field_values(), min_size=1, max_size=6))
def test_a_fields_type_is_what_numba_types_it(values):
    """The cached types (looked up by dtype, dimensions, flags) are numba's
    own, whichever value of a layout comes first."""
    for value in values:
        assert field_type(value) == nb.typeof(value), value


_RECORDS: dict = {}


def _record_class(size: int) -> type:
    """A named tuple class of ``size`` fields (one per size)."""
    if size not in _RECORDS:
        _RECORDS[size] = namedtuple(f"Record{size}", [f"f{i}" for i in range(size)])
    return _RECORDS[size]


@settings(max_examples=300, deadline=None)
@given(st.lists(_field_values(), min_size=1, max_size=6))
def test_a_structs_type_found_by_layout_is_the_one_of_numbas_types(values):
    """The struct type looked up by the fields' layouts is the one their
    numba types name, and values of one layout share one type object."""
    cls = _record_class(len(values))
    found = _ref_type(cls, tuple(values))
    assert found.fields == tuple((f"f{i}", nb.typeof(v)) for i, v in enumerate(values))
    assert _ref_type(cls, tuple(values)) is found   # found again by its layout
