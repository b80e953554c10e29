"""The learned-pattern store against the plain-Python definition of a match,
on random patterns and states (two key words, so anchors span words)."""

from __future__ import annotations

import numpy as np

from pdbsearch.pdb.learned import (COUNT, FULL, learned_add, learned_add_counting,
                                   learned_match, new_store, reference_match, stored_counts,
                                   stored_patterns)

KEY_WORDS = 2
PLAYERS = 70          # player indices 0..69: two region words


def _words(bits, n_words):
    out = np.zeros(n_words, np.uint64)
    for b in bits:
        out[b >> 6] |= np.uint64(1 << (b & 63))
    return out


def test_matches_equal_the_definition_on_random_patterns():
    rng = np.random.default_rng(12)
    store = new_store(KEY_WORDS, PLAYERS, capacity=64)
    mask = np.full(KEY_WORDS, ~np.uint64(0), np.uint64)
    patterns = []
    for _ in range(40):
        bits = set(rng.choice(100, size=rng.integers(1, 4), replace=False).tolist())
        region = set(rng.choice(PLAYERS, size=rng.integers(1, 30), replace=False).tolist())
        assert learned_add(store, _words(bits, KEY_WORDS), _words(region, 2)) >= 0
        patterns.append((bits, region))
    assert stored_patterns(store) == patterns
    before = [a.copy() for a in store]
    hits = 0
    for _ in range(2000):
        pieces = set(rng.choice(100, size=rng.integers(3, 25), replace=False).tolist())
        player = int(rng.integers(PLAYERS))
        expected = reference_match(patterns, pieces, player)
        assert learned_match(store, _words(pieces, KEY_WORDS), mask, player) == expected
        hits += expected
    assert hits > 50
    # Matching writes nothing: a search in another thread may match while
    # this one does (pdbsearch.fences).
    assert all(np.array_equal(a, b) for a, b in zip(store, before))


def test_counting_patterns_match_as_the_definition_says():
    """Plain and counting patterns mixed: a counting one matches only with
    at least ``need`` pieces on its counted bits."""
    rng = np.random.default_rng(31)
    store = new_store(KEY_WORDS, PLAYERS, capacity=64)
    mask = np.full(KEY_WORDS, ~np.uint64(0), np.uint64)
    patterns, counts = [], []
    for i in range(40):
        bits = set(rng.choice(100, size=rng.integers(1, 3), replace=False).tolist())
        region = set(rng.choice(PLAYERS, size=rng.integers(10, 60), replace=False).tolist())
        if i % 3 == 0:
            counted, need = set(), 0
            row = learned_add(store, _words(bits, KEY_WORDS), _words(region, 2))
        else:
            counted = set(rng.choice(100, size=rng.integers(5, 40), replace=False).tolist())
            need = int(rng.integers(1, 6))
            row = learned_add_counting(store, _words(bits, KEY_WORDS), _words(region, 2),
                                       _words(counted, KEY_WORDS), need)
        assert row == i
        patterns.append((bits, region))
        counts.append((counted, need))
    assert stored_patterns(store) == patterns and stored_counts(store) == counts
    outcomes = {True: 0, False: 0}
    count_decided = 0
    for _ in range(3000):
        pieces = set(rng.choice(100, size=rng.integers(3, 30), replace=False).tolist())
        player = int(rng.integers(PLAYERS))
        expected = reference_match(patterns, pieces, player, counts)
        assert learned_match(store, _words(pieces, KEY_WORDS), mask, player) == expected
        outcomes[expected] += 1
        # States the count alone turns from a match into none.
        count_decided += expected != reference_match(patterns, pieces, player)
    assert outcomes[True] > 100 and outcomes[False] > 100 and count_decided > 50


def test_a_full_store_refuses_and_says_so():
    store = new_store(1, 10, capacity=2)
    one = np.ones(1, np.uint64)
    assert learned_add(store, one, one) == 0
    assert learned_add(store, one * 2, one) == 1
    assert learned_add(store, one * 4, one) == -1
    assert store.info[COUNT] == 2 and store.info[FULL] == 1
    assert learned_add(store, np.zeros(1, np.uint64), one) == -1 or store.info[FULL] == 1


def test_bits_outside_the_piece_mask_are_ignored():
    store = new_store(1, 10, capacity=4)
    learned_add(store, _words({3, 5}, 1), _words({2}, 1))
    key = _words({3, 5, 60}, 1)
    assert learned_match(store, key, _words(range(64), 1), 2)
    assert not learned_match(store, key, _words(range(64), 1), 3)
    assert not learned_match(store, key, _words({3, 60}, 1), 2)   # 5 masked out
