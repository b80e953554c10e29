"""Pattern databases: ranking, the breadth-first builder, the HDF5 store.

The machinery here is generic: an *abstraction* (a relaxed problem whose
states are numbered 0..N-1 with no unused slots) registers jitted kernels
with :func:`pdbsearch.pdb.builder.register_abstraction`, and the builder
fills a ``uint8`` table of exact abstract distances by BFS from every
abstract goal.  Domain abstractions live with their domain (for example
:mod:`pdbsearch.hakoiri.abstraction`).
"""
