"""Plain-Python oracles that the tests hold the fast code against.

Nothing in the package imports these; they are slow by design and share no
code with the kernels they check.
"""
