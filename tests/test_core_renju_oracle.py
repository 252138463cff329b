"""The renju package (PyPI, MIT) as an independent oracle for renju fouls.

Decision recorded here: when the move that would turn a three into a straight four also makes a
five, we still count the three (RIF: a three is a line that can become a straight four by a move
that is not forbidden, and a five is never forbidden).  The renju package, ported from
Piskvork's referee, does not count it.  Every disagreement must be exactly that case.
"""

from __future__ import annotations

import random

import pytest

from renju.check_forbid import get_foul_type

from bot.core.board import Board
from tests import naive
from tests.conftest import clustered_position, scaled

pytestmark = pytest.mark.pure_python


def oracle(pos: naive.Position, x: int, y: int) -> int:
    grid = [[pos.stones.get((i, j), 0) for j in range(pos.height)] for i in range(pos.width)]
    return get_foul_type(grid, x, y)


def test_fouls_agree_with_the_renju_package_except_the_recorded_convention() -> None:
    rng = random.Random(23)
    checked = disagreements = fouls = 0
    for _ in range(scaled(1500)):
        board, pos, around = clustered_position(rng, 15, 15, 4)
        for x, y in rng.sample(around, min(6, len(around))):
            ours, theirs = board.foul(x, y), oracle(pos, x, y)
            checked += 1
            fouls += ours != 0
            if ours != theirs:
                disagreements += 1
                assert naive.foul(pos, x, y, five_breaks_three=True) == theirs
                assert naive.foul(pos, x, y) == ours
    assert fouls > scaled(1500) // 30 and disagreements < checked // 100


def test_a_three_completed_by_a_five_still_counts() -> None:
    # ..XXXX..      row 9      (2,11) makes: a four down column 2, open threes along row 11
    # ..XXX...      row 10     and both diagonals.  Row 11's straight-four point (4,11) also
    # ..*X.X..      row 11     makes a five down column 4, so Piskvork's referee drops that
    # ...XX...      row 12     three; we keep it: (2,11) is a double three.
    # ..XXXXX.      row 13
    stones = [(2, 9), (2, 10), (2, 13), (3, 9), (3, 10), (3, 11), (3, 12), (3, 13), (4, 9),
              (4, 10), (4, 12), (4, 13), (5, 9), (5, 11), (5, 13), (6, 13)]
    board = Board(15, 15, 4)
    board.setup([(x, y, 1) for x, y in stones])
    pos = naive.Position(15, 15, 4, {p: 1 for p in stones})
    assert board.foul(2, 11) == 1
    assert oracle(pos, 2, 11) == 0
    board.play(2, 11, 1)
    assert board.wins(4, 11, 1)
