r"""Tables that one thread writes while other threads read them.

With ``--algo fess`` on several cores (:mod:`pdbsearch.search.portfolio`)
the FESS engine reads two tables that searches in another thread grow:
Sokoban's perimeter (positions known to reach the goal) and the learned
deadlock patterns.  Each has a single writer, and each entry is written in
full before one store *publishes* it (a hash slot, a chain head), so a
reader meets only complete entries, at worst missing one being added.

That needs the publishing store to become visible after the entry's
stores: :func:`release_fence` between them tells both the compiler and the
processor so.  It costs nothing on x86-64, whose stores are seen in
program order anyway; on weakly ordered processors (ARM) it is what keeps
a reader from seeing a published slot before the entry.  Readers need no
fence of their own: they reach the entry through the published index (an
address dependency, which every processor we run on keeps in order).

One reader needs more: A\* reads the perimeter's *floor* and takes a
position's absence from the table as a proof (:func:`pdbsearch.sokoban.kernels.perimeter_lookup`),
which a lookup made while the table's slots are being rebuilt
(doubled) would fake.  The writer marks a rebuild by an odd generation
count, and the reader checks the count before and after its lookup (a
sequence lock); :func:`acquire_fence` keeps the compiler and the
processor from moving the lookup's loads out from between the two reads
of the count.
"""

from __future__ import annotations

from numba import types
from numba.extending import intrinsic


@intrinsic
def release_fence(typingctx):
    """LLVM's release fence: the stores before it are visible to other
    threads before any store after it (no code on x86-64, where that holds
    already, but the compiler may no longer reorder across it)."""

    def codegen(context, builder, signature, args):
        builder.fence("release")
        return context.get_dummy_value()
    return types.void(), codegen


@intrinsic
def acquire_fence(typingctx):
    """LLVM's acquire fence: the loads after it are not done before the
    loads before it (no code on x86-64 either; it also stops the compiler
    from taking a second read of a counter for the first)."""

    def codegen(context, builder, signature, args):
        builder.fence("acquire")
        return context.get_dummy_value()
    return types.void(), codegen
