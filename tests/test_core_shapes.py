"""The shape vocabulary and the tables behind it."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from bot.core import shapes, state
from tests import naive
from tests.conftest import PURE_PYTHON, scaled

pytestmark = pytest.mark.pure_python


def test_vocabulary_matches_the_documented_numbers() -> None:
    assert shapes.SHAPE_NAMES[shapes.OPEN_FOUR] == "open_four"
    assert shapes.CLASS_NAMES[shapes.C_FOUR_THREE] == "four_three"
    assert len(shapes.SHAPE_NAMES) == 10 and len(shapes.CLASS_NAMES) == 12
    assert (naive.OPEN_THREE, naive.FIVE, naive.C_DOUBLE_FOUR) == (
        shapes.OPEN_THREE, shapes.FIVE, shapes.C_DOUBLE_FOUR)


def test_class_table_is_the_naive_combination_of_every_shape_quadruple() -> None:
    table = state.class_table()
    for quad in itertools.product(range(10), repeat=4):
        word = quad[0] | quad[1] << 4 | quad[2] << 8 | quad[3] << 12
        assert table[word] == naive.combine(list(quad)), quad


def test_classes_that_make_a_four_are_exactly_those_from_c_four_up() -> None:
    table = state.class_table()
    for quad in itertools.product(range(10), repeat=4):
        word = quad[0] | quad[1] << 4 | quad[2] << 8 | quad[3] << 12
        has_four = any(s in (shapes.FOUR, shapes.FOUR_FOUR, shapes.OPEN_FOUR, shapes.FIVE)
                       for s in quad)
        assert (table[word] >= shapes.C_FOUR) == has_four


def test_swap_colours_exchanges_black_and_white_only() -> None:
    rng = random.Random(3)
    line = np.zeros(shapes.WINDOW, dtype=np.int8)
    swapped = np.zeros(shapes.WINDOW, dtype=np.int8)
    for _ in range(scaled(2000)):
        key = rng.randrange(shapes.KEY_COUNT)
        shapes.decode_key(key, line)
        shapes.decode_key(shapes.swap_colours(key), swapped)
        expected = np.where(line == 1, 2, np.where(line == 2, 1, line))
        assert (swapped == expected).all()


def test_cells_beyond_a_blocker_never_change_a_shape() -> None:
    rng = random.Random(4)
    for win_def in range(shapes.WIN_DEFINITIONS):
        table = state.definition_table(win_def)
        for _ in range(scaled(3000)):
            key = rng.randrange(shapes.KEY_COUNT)
            assert table[key] == table[shapes.canonical_line_key(key)]


def _fours_of(shape: np.ndarray) -> np.ndarray:
    """How many fives a shape threatens (a five: more than any four)."""
    return np.select([shape == shapes.FIVE, np.isin(shape, (shapes.FOUR_FOUR, shapes.OPEN_FOUR)),
                      shape == shapes.FOUR], [9, 2, 1], 0)


def test_an_opponent_stone_never_adds_to_a_colours_fours() -> None:
    """What bot.core.threats.vcf relies on to leave out the block of its last four: a stone of
    the opponent on an empty cell of a line never gives a colour more fives threatened there, an
    open four or a five it did not have (every line key, every win definition), and so never
    turns a cell into one of an open four, a double four or a five."""
    keys = np.arange(shapes.KEY_COUNT, dtype=np.int64)
    for win_def in range(shapes.WIN_DEFINITIONS):
        table = np.asarray(state.definition_table(win_def)).astype(np.int64)  # own = BLACK
        for offset in range(2 * shapes.HALF):
            empty = keys[((keys >> (2 * offset)) & 3) == 0]
            before = table[empty]
            after = table[empty | (shapes.WHITE << (2 * offset))]
            assert (_fours_of(after) <= _fours_of(before)).all()
            assert not ((after == shapes.OPEN_FOUR)
                        & ~np.isin(before, (shapes.OPEN_FOUR, shapes.FIVE))).any()
            assert not ((after == shapes.FIVE) & (before != shapes.FIVE)).any()
    classes = np.asarray(state.class_table()).astype(np.int64)
    winning = (shapes.C_OPEN_FOUR, shapes.C_DOUBLE_FOUR, shapes.C_FIVE)
    words = np.arange(1 << 16, dtype=np.int64)
    quads = np.stack([(words >> (4 * d)) & 15 for d in range(4)])
    valid = (quads < shapes.SHAPES).all(axis=0) & ~np.isin(classes, winning)
    for direction in range(4):
        for old, new in itertools.product(range(shapes.SHAPES), repeat=2):
            if (_fours_of(np.array(new)) > _fours_of(np.array(old))
                    or (new == shapes.OPEN_FOUR and old not in (shapes.OPEN_FOUR, shapes.FIVE))
                    or (new == shapes.FIVE and old != shapes.FIVE)):
                continue
            chosen = words[valid & (quads[direction] == old)]
            changed = (chosen & ~(15 << (4 * direction))) | (new << (4 * direction))
            assert not np.isin(classes[changed], winning).any(), (direction, old, new)


@pytest.mark.skipif(PURE_PYTHON, reason="compares the compiled kernel with its Python source")
def test_jitted_line_classifier_equals_its_python_source() -> None:
    """The same kernel run as plain Python (what NUMBA_DISABLE_JIT=1 would run)."""
    rng = random.Random(5)
    line = np.zeros(shapes.WINDOW, dtype=np.int8)
    for _ in range(scaled(300)):
        key = shapes.canonical_line_key(rng.randrange(shapes.KEY_COUNT))
        shapes.decode_key(key, line)
        for win_def in range(shapes.WIN_DEFINITIONS):
            assert shapes.classify_line(line, win_def) == shapes.classify_line.py_func(
                line, win_def)


def test_win_definitions_decode_rule_bits() -> None:
    assert state.win_definitions(0) == (shapes.WIN_FREESTYLE, shapes.WIN_FREESTYLE)
    assert state.win_definitions(1) == (shapes.WIN_EXACT, shapes.WIN_EXACT)
    assert state.win_definitions(4) == (shapes.WIN_EXACT, shapes.WIN_FREESTYLE)
    assert state.win_definitions(5) == (shapes.WIN_EXACT, shapes.WIN_FREESTYLE)
    assert state.win_definitions(8) == (shapes.WIN_CARO, shapes.WIN_CARO)
    assert state.win_definitions(9) == (shapes.WIN_CARO_EXACT, shapes.WIN_CARO_EXACT)
    assert state.win_definitions(2) == (shapes.WIN_FREESTYLE, shapes.WIN_FREESTYLE)
