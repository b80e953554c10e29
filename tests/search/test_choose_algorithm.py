"""The one place that decides algorithm and weight."""

import pytest

from pdbsearch.errors import PdbsearchError
from pdbsearch.search import ALGORITHMS, choose_algorithm


@pytest.mark.parametrize("algo, weight, expected", [
    (None, None, ("astar", 1.0)),
    (None, 1, ("astar", 1.0)),
    (None, 3, ("wastar", 3.0)),
    ("wastar", 2.5, ("wastar", 2.5)),
    ("wastar", None, ("wastar", 1.0)),
    ("greedy", 1.0, ("greedy", 1.0)),
    ("bfs", None, ("bfs", 1.0)),
])
def test_choices(algo, weight, expected):
    assert choose_algorithm(algo, weight) == expected


@pytest.mark.parametrize("algo", [a for a, spec in ALGORITHMS.items() if not spec.uses_weight])
def test_a_weight_is_refused_by_algorithms_that_ignore_it(algo):
    with pytest.raises(PdbsearchError, match="does not use a weight"):
        choose_algorithm(algo, 2)


@pytest.mark.parametrize("weight", [0.5, -1, float("nan"), float("inf"), "heavy"])
def test_bad_weights(weight):
    with pytest.raises(PdbsearchError, match="weight"):
        choose_algorithm(None, weight)


def test_unknown_algorithm():
    with pytest.raises(PdbsearchError, match="choose from"):
        choose_algorithm("dfs")
