"""Params passed to the kernels by reference: one pointer, not 75 arrays.

Numba passes a tuple argument by value: every array in it becomes seven
machine arguments of every function that takes it.  Sokoban's params hold
about 75 arrays and FESS's twice that, so each kernel that took them had
hundreds of arguments to type, lower and optimise: most of the minutes a
first ``--algo fess`` run spent compiling (``docs/benchmarks.md``,
"Compile time").

:func:`by_reference` marks a params ``NamedTuple`` class for this
treatment; :func:`to_ref` turns one of its instances into a
:class:`ParamsRef`, which numba sees as a single pointer to a struct with
the same fields (marked tuples among the fields become pointers too).  In
jitted code ``p.field`` reads as on the tuple.  In Python, attribute reads
and ``_replace`` go to the tuple, kept beside the struct; the struct holds
the same arrays, not copies, so what a kernel writes into one, Python sees.

Memory: the struct (one allocation of numba's runtime, holding a reference
to each of its arrays) lives as long as its :class:`ParamsRef`; jitted code
only borrows it, so the kernels count no references
(:data:`pdbsearch.puzzle.KERNEL_JIT_OPTIONS`) and passing it costs one
machine word.  The jitted code must not outlive the Python object, which
holds for every engine call (the caller keeps its params).
"""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.core.datamodel import models
from numba.core.extending import (NativeValue, intrinsic, lower_getattr_generic,
                                  register_model, unbox)
from numba.core.typing.templates import AttributeTemplate, infer_getattr
from numba.experimental.jitclass.base import imp_dtor

from ._jit_cache import tolerate_unreadable_indexes

__all__ = ["ParamsRef", "ParamsRefType", "by_reference", "is_by_reference", "to_ref"]

_BY_REFERENCE = "__by_reference__"

tolerate_unreadable_indexes()


class ParamsRefType(types.Type):
    """The numba type of a :class:`ParamsRef`: a pointer to a struct with the
    fields of :attr:`instance_class` (a ``NamedTuple`` class marked with
    :func:`by_reference`), typed as ``fields`` says."""

    def __init__(self, instance_class: type, fields: tuple):
        #: The NamedTuple class this struct stands for (the kernel registries
        #: of :mod:`pdbsearch.puzzle` and :mod:`pdbsearch.search.fess_protocol` look
        #: it up, as they do on a tuple's type).
        self.instance_class = instance_class
        self.fields = tuple((name, types.unliteral(t)) for name, t in fields)
        self.field_dict = dict(self.fields)
        self.payload = types.StructRefPayload(instance_class.__name__, self.fields)
        cls = f"{instance_class.__module__}.{instance_class.__qualname__}"
        super().__init__(name=f"ParamsRef[{cls}]{self.fields}")

    def get_data_type(self):
        """The struct's own type (numba's destructor builder asks for it)."""
        return self.payload


@register_model(ParamsRefType)
class _PointerModel(models.PrimitiveModel):
    """A struct reference is the address of its fields."""

    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, ir.IntType(8).as_pointer())


@infer_getattr
class _FieldTypes(AttributeTemplate):
    key = ParamsRefType

    def generic_resolve(self, typ, attr):
        return typ.field_dict.get(attr)


@lower_getattr_generic(ParamsRefType)
def _read_field(context, builder, typ, val, attr):
    """``p.attr``: a load from the struct, borrowed (the struct keeps the
    value alive, so no reference is counted even where the runtime is on)."""
    payload = context.get_value_type(typ.payload)
    data = cgutils.create_struct_proxy(typ.payload)(
        context, builder, ref=builder.bitcast(val, payload.as_pointer()))
    value = getattr(data, attr)
    if context.enable_nrt:
        # numba's convention: a getattr returns a new reference.
        context.nrt.incref(builder, typ.field_dict[attr], value)
    return value


@unbox(ParamsRefType)
def _unbox(typ, obj, c):
    """From Python: the address the ParamsRef holds (no reference counted)."""
    address = c.pyapi.object_getattr_string(obj, "_address")
    pointer = c.pyapi.long_as_voidptr(address)
    c.pyapi.decref(address)
    return NativeValue(pointer, is_error=c.pyapi.c_api_error())


@intrinsic
def _fill(typingctx, ref_type, values):
    """A new runtime allocation holding ``values`` (a tuple in field order)
    as the struct of ``ref_type``; each value's reference counted by it."""
    payload_type = ref_type.instance_type.payload

    def codegen(context, builder, signature, args):
        _, tup = args
        payload = context.get_value_type(payload_type)
        meminfo = context.nrt.meminfo_alloc_dtor(
            builder, context.get_constant(types.uintp, context.get_abi_sizeof(payload)),
            imp_dtor(context, builder.module, ref_type.instance_type))
        ptr = builder.bitcast(context.nrt.meminfo_data(builder, meminfo), payload.as_pointer())
        builder.store(cgutils.get_null_value(payload), ptr)
        data = cgutils.create_struct_proxy(payload_type)(context, builder, ref=ptr)
        for i, (name, ftype) in enumerate(payload_type.field_dict.items()):
            value = builder.extract_value(tup, i)
            context.nrt.incref(builder, ftype, value)
            setattr(data, name, value)
        return meminfo

    return types.MemInfoPointer(types.voidptr)(ref_type, values), codegen


def _construct(ref_type, values):
    """Build a struct of ``ref_type`` from ``values``."""
    return _fill(ref_type, values)


#: Compiled once per params type, kept on disk for the package's own classes.
_construct_cached = nb.njit(cache=True)(_construct)

#: The same for classes of other modules (tests, a user's script), never
#: written to disk: numba's cache index pickles the types of every
#: signature it holds, and one naming a class that another process cannot
#: import (``tests.test_byref.Outer``, ``__main__.Params``) would make the
#: whole index unreadable there, for the package's own types too.
_construct_private = nb.njit(cache=False)(_construct)


def _constructor(instance_class: type):
    """The compiled constructor fit for ``instance_class`` (see above)."""
    package = __name__.split(".")[0]
    if instance_class.__module__.split(".")[0] == package:
        return _construct_cached
    return _construct_private


def by_reference(cls: type) -> type:
    """Class decorator: instances of the ``NamedTuple`` class ``cls`` reach
    the kernels as one pointer once passed through :func:`to_ref`."""
    setattr(cls, _BY_REFERENCE, True)
    return cls


def is_by_reference(cls: type) -> bool:
    """True if ``cls`` was marked with :func:`by_reference`."""
    return bool(cls.__dict__.get(_BY_REFERENCE, False))


# -- types of the fields, and the constructor's entry points, worked out once --
#
# A Sokoban FESS engine builds some fifty structs, each of tens of arrays;
# numba's ``typeof`` of each array and its dispatcher's typing of the value
# tuple took 36 ms a level on Microban, more than most of its searches
# (docs/benchmarks.md).  The numba type of an array depends only on its
# class, dtype, dimensions, layout flags and writability, so those key a
# cache; the constructor compiled for a struct type is called through its
# entry point, which needs no typing of its arguments.

_FIELD_TYPES: dict = {}
_REF_TYPES: dict = {}
_REF_TYPES_BY_LAYOUT: dict = {}
_ENTRY_POINTS: dict = {}


def _layout_key(value):
    """What decides the numba type of a field's value, as a key of plain
    Python objects (hashing numba's types cost more than the rest of a
    lookup); None when only ``numba.typeof`` can tell.  A struct's type
    is keyed by its identity: every one made is kept in ``_REF_TYPES``."""
    if isinstance(value, ParamsRef):
        return id(value._numba_type_)
    cls = type(value)
    if cls is np.ndarray:
        flags = value.flags
        return (value.dtype, value.ndim, flags.c_contiguous, flags.f_contiguous,
                flags.writeable, flags.aligned)
    if cls is int and value.bit_length() < 63:
        return int
    if cls is float or cls is bool:
        return cls
    if isinstance(value, tuple) and hasattr(cls, "_fields"):
        inner = tuple(_layout_key(v) for v in value)
        return None if any(k is None for k in inner) else (cls, inner)
    return None


def field_type(value) -> types.Type:
    """The numba type of a field's value, as ``numba.typeof`` gives it
    (looked up by what decides it, for arrays, numbers and named tuples of
    them; anything else is typed afresh)."""
    if isinstance(value, ParamsRef):
        return value._numba_type_
    key = _layout_key(value)
    if key is None:
        return nb.typeof(value)
    found = _FIELD_TYPES.get(key)
    if found is None:
        found = _FIELD_TYPES[key] = nb.typeof(value)
    return found


def _ref_type(cls: type, values: tuple) -> ParamsRefType:
    """The struct type of ``cls`` holding ``values`` (one object per
    layout), looked up by the fields' layout keys when they all have one."""
    keys = tuple(_layout_key(v) for v in values)
    layout = None if any(k is None for k in keys) else (cls, keys)
    if layout is not None:
        found = _REF_TYPES_BY_LAYOUT.get(layout)
        if found is not None:
            return found
    fields = tuple((name, field_type(v)) for name, v in zip(cls._fields, values))
    key = (cls, fields)
    found = _REF_TYPES.get(key)
    if found is None:
        found = _REF_TYPES[key] = ParamsRefType(cls, fields)
    if layout is not None:
        _REF_TYPES_BY_LAYOUT[layout] = found
    return found


def _new_struct(ref_type: ParamsRefType, values: tuple):
    """The runtime allocation of a struct of ``ref_type`` holding ``values``:
    through the compiled constructor's entry point once there is one (no
    typing of the arguments), else through its dispatcher (which compiles
    or loads it), whose entry point is then kept."""
    entry = _ENTRY_POINTS.get(ref_type)
    if entry is not None:
        return entry(ref_type, values)
    constructor = _constructor(ref_type.instance_class)
    meminfo = constructor(ref_type, values)
    signature = (nb.typeof(ref_type),
                 types.BaseTuple.from_types([t for _, t in ref_type.fields]))
    compiled = constructor.overloads.get(signature)
    if compiled is not None:
        _ENTRY_POINTS[ref_type] = compiled.entry_point
    return meminfo


class ParamsRef:
    """A marked params tuple as the kernels see it (see the module doc).

    Attribute reads, ``_replace``, iteration, ``len`` and indexing work as
    on the tuple."""

    __slots__ = ("_tuple", "_meminfo", "_address", "_numba_type_")

    def __init__(self, params: tuple, values: tuple, ref_type: ParamsRefType):
        self._meminfo = _new_struct(ref_type, values)
        #: The address of the struct's fields, which jitted code receives.
        self._address = self._meminfo.data
        self._numba_type_ = ref_type
        self._tuple = params

    def __getattr__(self, name: str) -> Any:
        return getattr(self._tuple, name)

    def _replace(self, **changes: Any) -> "ParamsRef":
        """A new struct with some fields changed (the tuple's ``_replace``)."""
        return to_ref(self._tuple._replace(**changes))

    def __iter__(self):
        return iter(self._tuple)

    def __len__(self) -> int:
        return len(self._tuple)

    def __getitem__(self, index):
        return self._tuple[index]

    def __reduce__(self):
        return to_ref, (self._tuple,)

    def __repr__(self) -> str:
        return f"ParamsRef({self._tuple!r})"


def to_ref(params: tuple) -> ParamsRef:
    """The struct of a marked params tuple (one already: returned as is).
    Marked tuples among its fields become structs first."""
    if isinstance(params, ParamsRef):
        return params
    cls = type(params)
    if not is_by_reference(cls):
        raise TypeError(f"{cls.__name__} is not marked with by_reference")
    changes = {name: to_ref(value) for name, value in zip(cls._fields, params)
               if isinstance(value, tuple) and is_by_reference(type(value))}
    if changes:
        params = params._replace(**changes)
    values = tuple(params)
    return ParamsRef(params, values, _ref_type(cls, values))
