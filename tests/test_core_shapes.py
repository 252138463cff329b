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
