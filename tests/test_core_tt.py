"""The transposition table: bounds, buckets and replacement."""

from __future__ import annotations

import numpy as np

from bot.core import tt
from bot.core.score import MATE


def same_bucket_keys(count: int) -> list[np.uint64]:
    """Distinct keys whose low bits (and so bucket) are the same in a MIN_ENTRIES table."""
    return [np.uint64((i + 1) << 32 | 0x2A4) for i in range(count)]


def test_a_stored_bound_cuts_only_at_its_side_of_beta_and_depth() -> None:
    keys, data = tt.new_table(tt.MIN_ENTRIES)
    key = np.uint64(0x1234_5678_9ABC)
    tt.store(keys, data, key, 5, 80, 70, 42, 0, 1)  # a lower bound: >= 80
    assert tt.probe(keys, data, key, 5, 75, 0) == (42, 80, True)
    assert tt.probe(keys, data, key, 5, 100, 0)[2] is False  # 80 does not reach 100
    assert tt.probe(keys, data, key, 6, 75, 0)[2] is False  # too shallow for depth 6
    tt.store(keys, data, key, 5, 120, 130, 42, 0, 1)  # same depth: adds an upper bound 120
    assert tt.probe(keys, data, key, 5, 125, 0) == (42, 120, True)
    assert tt.probe(keys, data, key, 5, 75, 0) == (42, 80, True)
    assert tt.probe(keys, data, key, 5, 100, 0)[2] is False  # between the bounds
    tt.store(keys, data, key, 7, 60, 100, 7, 0, 1)  # deeper: the old bounds are dropped
    assert tt.probe(keys, data, key, 5, 75, 0) == (7, 60, True)  # the new upper bound
    assert tt.probe(keys, data, key, 5, 50, 0) == (7, 0, False)  # the lower bound 80 is gone
    assert tt.best_move(keys, data, key) == 7
    tt.store(keys, data, key, 4, 200, 150, 9, 0, 1)  # shallower: the deeper entry stands
    assert tt.probe(keys, data, key, 4, 150, 0) == (7, 60, True)  # no ">= 200" recorded
    assert tt.best_move(keys, data, key) == 7


def test_mate_scores_are_kept_relative_to_the_node() -> None:
    keys, data = tt.new_table(tt.MIN_ENTRIES)
    key = np.uint64(99)
    tt.store(keys, data, key, 3, MATE - 7, 0, 1, 4, 1)  # found at ply 4: mate in 3 from there
    assert tt.probe(keys, data, key, 3, 0, 6)[1] == MATE - 9  # seen at ply 6: 2 plies later


def test_a_bucket_holds_four_keys_and_replaces_the_shallowest() -> None:
    keys, data = tt.new_table(tt.MIN_ENTRIES)
    first, second, third, fourth, fifth = same_bucket_keys(5)
    for depth, key in zip((6, 2, 8, 4), (first, second, third, fourth)):
        tt.store(keys, data, key, depth, 50, 0, depth, 0, 1)
    assert all(tt.best_move(keys, data, k) >= 0 for k in (first, second, third, fourth))
    tt.store(keys, data, fifth, 5, 50, 0, 5, 0, 1)
    assert tt.best_move(keys, data, second) == -1  # depth 2 made room
    assert [tt.best_move(keys, data, k) for k in (first, third, fourth, fifth)] == [6, 8, 4, 5]


def test_entries_of_an_earlier_search_go_before_shallower_ones_of_this_search() -> None:
    keys, data = tt.new_table(tt.MIN_ENTRIES)
    old, *current, new = same_bucket_keys(5)
    tt.store(keys, data, old, 12, 50, 0, 1, 0, 1)  # deep, but from search 1
    for key in current:
        tt.store(keys, data, key, 3, 50, 0, 2, 0, 2)
    tt.store(keys, data, new, 3, 50, 0, 3, 0, 2)
    assert tt.best_move(keys, data, old) == -1
    assert all(tt.best_move(keys, data, k) == 2 for k in current)
