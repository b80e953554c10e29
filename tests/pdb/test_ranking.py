"""Combinatorial ranking: a bijection with no unused slots."""

from itertools import combinations
from math import comb

import numpy as np
import pytest

from pdbsearch.pdb.ranking import (binomial_table, rank_subset, rank_subset_py,
                                   unrank_subset, unrank_subset_py)


@pytest.mark.parametrize("n,k", [(5, 1), (7, 2), (9, 3), (12, 4), (6, 6)])
def test_rank_is_a_bijection_and_matches_reference(n, k):
    binom = binomial_table(n, k)
    ranks = []
    out = np.zeros(k, dtype=np.int64)
    for subset in combinations(range(n), k):
        r = rank_subset(binom, np.array(subset, dtype=np.int64))
        assert r == rank_subset_py(list(subset))
        unrank_subset(binom, n, r, out)
        assert tuple(out) == subset == tuple(unrank_subset_py(n, k, r))
        ranks.append(r)
    assert sorted(ranks) == list(range(comb(n, k)))
