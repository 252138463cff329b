"""The board kernels against their naive twins, round trips, keys and the wrapper's errors."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core import shapes, state
from bot.core.board import Board
from bot.core.errors import (
    CoordinateError, HistoryError, OccupiedError, RuleError, SizeError,
)
from tests import naive
from tests.conftest import RULES, SIZES, clustered_position, scaled

pytestmark = pytest.mark.pure_python

POSITIONS_PER_CASE = scaled(340)  # x 3 sizes: over a thousand positions per rule
# The evaluation's sums are recounted naively (every candidate, every direction) on one
# position in this many: the slowest check, and a hundred positions per rule are plenty.
COUNT_EVERY = 10
# A random evaluation table: every shape word its own value, so a sum kept wrongly shows.
CELL_VALUES = np.random.default_rng(5).integers(-1000, 1000, size=(2, 1 << 16), dtype=np.int32)


def word(four_shapes: list[int]) -> int:
    return sum(shape << (4 * d) for d, shape in enumerate(four_shapes))


def test_shipped_zobrist_values_are_the_seeded_draw() -> None:
    """bot/core/zobrist.bin holds numpy's PCG64 draw from ZOBRIST_SEED (book keys depend on
    it), with EMPTY's row all zeros."""
    rng = np.random.Generator(np.random.PCG64(state.ZOBRIST_SEED))
    drawn = rng.integers(0, 2**64, size=(3, state.ZOBRIST_SIDE ** 2), dtype=np.uint64)
    values = state.zobrist_values()
    assert list(values[0]) == [0] * state.ZOBRIST_SIDE ** 2
    assert [list(row) for row in values[1:]] == drawn[1:].tolist()
    assert len(set(values[1] + values[2])) == 2 * state.ZOBRIST_SIDE ** 2


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_kernels_agree_with_naive_twins(rule: int, size: tuple[int, int]) -> None:
    rng = random.Random(rule * 1000 + size[0] * 37 + size[1])
    width, height = size
    values = state.zobrist_values()
    for index in range(POSITIONS_PER_CASE):
        board, pos, around = clustered_position(rng, width, height, rule, CELL_VALUES)
        for x, y in rng.sample(around, min(4, len(around))):
            for colour in (naive.BLACK, naive.WHITE):
                got = [board.shape(x, y, colour, d) for d in range(4)]
                want = [naive.shape(pos, x, y, colour, d) for d in range(4)]
                assert got == want, (rule, size, sorted(pos.stones.items()), (x, y), colour)
                assert board.cell_class(x, y, colour) == naive.combine(want)
                assert board.wins(x, y, colour) == naive.wins(pos, x, y, colour)
            if rule & 4:
                assert board.foul(x, y) == naive.foul(pos, x, y), (sorted(pos.stones.items()),
                                                                   (x, y))
        assert set(board.candidates()) == naive.candidates(pos)
        assert len(board.candidates()) == len(naive.candidates(pos))
        for colour in (naive.BLACK, naive.WHITE) if index % COUNT_EVERY == 0 else ():
            legal = [board.cell(x, y) for y in range(height) for x in range(width)
                     if (x, y) not in pos.stones
                     and not (colour == naive.BLACK and rule & 4 and naive.foul(pos, x, y))]
            assert board.legal_cells(colour) == legal
            words = [word([naive.shape(pos, x, y, colour, d) for d in range(4)])
                     for x, y in naive.candidates(pos)]
            sums = [int(CELL_VALUES[row, words].sum()) for row in range(2)]
            assert list(board.state.value_sums[colour - 1]) == sums
            kinds = Counter(naive.cell_class(pos, x, y, colour) for x, y in naive.candidates(pos))
            assert kept_class_counts(board, colour) == [kinds[k] for k in range(shapes.CLASSES)]
        assert board.symmetric_hashes() == naive.hashes(pos, values)


def kept_class_counts(board: Board, colour: int) -> list[int]:
    """The candidate cells of each class for ``colour``, as make/unmake keep them."""
    start = state.M_CLASS_COUNTS + (colour - 1) * shapes.CLASSES
    return [int(n) for n in board.state.meta[start:start + shapes.CLASSES]]


def assert_value_sums_recount(board: Board) -> None:
    """The incrementally kept value sums and class counts equal a sum and a count over the
    candidate cells."""
    for colour in (1, 2):
        words = [word([board.shape(x, y, colour, d) for d in range(4)])
                 for x, y in board.candidates()]
        sums = [int(CELL_VALUES[row, words].sum()) for row in range(2)]
        assert list(board.state.value_sums[colour - 1]) == sums
        kinds = Counter(board.cell_class(x, y, colour) for x, y in board.candidates())
        assert kept_class_counts(board, colour) == [kinds[k] for k in range(shapes.CLASSES)]


def snapshot(board: Board) -> dict[str, np.ndarray]:
    return {name: np.copy(array) for name, array in board.state._asdict().items()}


@settings(max_examples=scaled(60), deadline=None)
@given(data=st.data(), rule=st.sampled_from(RULES), size=st.sampled_from(SIZES))
def test_make_unmake_round_trip_restores_every_array(data: st.DataObject, rule: int,
                                                    size: tuple[int, int]) -> None:
    width, height = size
    board = Board(width, height, rule, CELL_VALUES)
    points = [(x, y) for x in range(width) for y in range(height)]
    prefix = data.draw(st.lists(st.sampled_from(points), max_size=40, unique=True))
    for x, y in prefix:
        board.play(x, y)
    before = snapshot(board)
    rest = [p for p in points if p not in set(prefix)]
    extra = data.draw(st.lists(st.sampled_from(rest), min_size=1, max_size=30, unique=True))
    for x, y in extra:
        board.play(x, y)
    assert_value_sums_recount(board)
    for x, y in reversed(extra):
        assert board.undo() == (x, y)
        assert_value_sums_recount(board)
    after = snapshot(board)
    for name, array in before.items():
        assert np.array_equal(array, after[name]), name


def test_a_board_without_values_skips_the_sums_until_it_is_given_a_table() -> None:
    """The book's threat searches run on boards without cell values: make/unmake keep the
    class counts there but not the sums, which a table given later counts afresh."""
    rng = random.Random(17)
    board = Board(15, 15, 1)
    points = rng.sample([(x, y) for x in range(15) for y in range(15)], 40)
    for x, y in points[:30]:
        board.play(x, y)
        assert not board.state.value_sums.any()
        for colour in (1, 2):
            kinds = Counter(board.cell_class(x, y, colour) for x, y in board.candidates())
            assert kept_class_counts(board, colour) == [kinds[k] for k in range(shapes.CLASSES)]
    board.set_cell_values(CELL_VALUES)
    assert_value_sums_recount(board)
    for x, y in points[30:]:
        board.play(x, y)
        assert_value_sums_recount(board)
    for _ in points[20:]:
        board.undo()
        assert_value_sums_recount(board)


@pytest.mark.parametrize("rule", RULES)
def test_a_new_board_is_the_empty_board_worked_out_afresh_whatever_was_played_before(
        rule: int) -> None:
    """Boards are copies of one empty board per size and rule: playing on one leaves the
    next one empty, and each equals the empty board worked out cell by cell."""
    played = Board(15, 15, rule, CELL_VALUES)
    for x, y in [(7, 7), (8, 8), (7, 8), (0, 0), (14, 14)]:
        played.play(x, y)
    fresh = Board(15, 15, rule, CELL_VALUES)
    assert fresh.state.board is not played.state.board
    afresh = state._empty_state.__wrapped__(15, 15, rule)
    valued_meta = np.copy(afresh.meta)
    valued_meta[state.M_VALUED] = 1  # the board was given cell values
    for name, array in snapshot(fresh).items():
        expected = {"cell_values": CELL_VALUES, "meta": valued_meta}.get(name)
        assert np.array_equal(array, getattr(afresh, name) if expected is None else expected), name
    assert fresh.moves() == [] and fresh.candidates() == []


def transform(stones: list[tuple[int, int, int]], sym: int, w: int,
              h: int) -> list[tuple[int, int, int]]:
    return [(*naive.image(sym, x, y, w, h), c) for x, y, c in stones]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_symmetric_positions_share_the_canonical_key(size: tuple[int, int]) -> None:
    width, height = size
    rng = random.Random(width * height)
    for _ in range(scaled(100)):
        board, pos, _ = clustered_position(rng, width, height, 0)
        stones = [(x, y, c) for (x, y), c in pos.stones.items()]
        key, sym = board.canonical_key()
        for image in range(8 if width == height else 4):
            other = Board(width, height, 0)
            other.setup(transform(stones, image, width, height))
            assert other.canonical_key()[0] == key
        # the symmetry that gave the key maps the position onto the one whose plain key it is
        image_board = Board(width, height, 0)
        image_board.setup(transform(stones, sym, width, height))
        assert image_board.hash == key


def test_different_positions_get_different_canonical_keys() -> None:
    rng = random.Random(11)
    seen: dict[int, frozenset[tuple[int, int, int]]] = {}
    for _ in range(scaled(3000)):
        board, pos, _ = clustered_position(rng, 15, 15, 0)
        # the canonical form of the stone set: the smallest image as a sorted tuple
        forms = [tuple(sorted(transform([(x, y, c) for (x, y), c in pos.stones.items()],
                                        s, 15, 15))) for s in range(8)]
        form = frozenset(min(forms))
        key = board.canonical_key()[0]
        assert seen.setdefault(key, form) == form
    assert len(seen) > scaled(3000) * 5 // 6


def test_play_reports_wins_and_undo_restores_the_side_to_move() -> None:
    board = Board(15, 15, 0)
    for x in range(4):
        assert not board.play(x, 0)
        board.play(x, 5)
    assert board.side_to_move() == naive.BLACK
    assert board.play(4, 0)
    assert board.undo() == (4, 0)
    assert board.moves()[-1] == (3, 5)


@pytest.mark.parametrize("call, error", [
    (lambda b: b.play(15, 0), CoordinateError),
    (lambda b: b.play(-1, 3), CoordinateError),
    (lambda b: b.play(7, 7), OccupiedError),
    (lambda b: b.play(1, 1, 3), ValueError),
    (lambda b: b.play(1.5, 1), CoordinateError),
    (lambda b: b.play(True, 1), CoordinateError),
    (lambda b: b.remove(0, 0), OccupiedError),
    (lambda b: b.setup([(1, 1, 1), (1, 1, 2)]), OccupiedError),
    (lambda b: b.setup([(1, 1, 1), (99, 1, 2)]), CoordinateError),
    (lambda b: b.shape(1, 1, 1, 4), ValueError),
])
def test_bad_input_raises_a_clear_value_error_and_changes_nothing(call, error) -> None:
    board = Board(15, 15, 4)
    board.play(7, 7)
    board.play(8, 8)
    before = snapshot(board)
    with pytest.raises(error) as raised:
        call(board)
    assert isinstance(raised.value, ValueError) and str(raised.value)
    after = snapshot(board)
    for name, array in before.items():
        assert np.array_equal(array, after[name]), name


@pytest.mark.parametrize("args, error", [
    ((4, 4, 0), SizeError), ((33, 15, 0), SizeError), ((15, 15, 16), RuleError),
    ((15, 15, 12), RuleError), ((15, 15, -1), RuleError), (("15", 15, 0), ValueError),
])
def test_unsupported_boards_are_refused(args: tuple, error: type) -> None:
    with pytest.raises(error):
        Board(*args)


def test_undo_on_an_empty_board_is_refused() -> None:
    with pytest.raises(HistoryError):
        Board(15).undo()


def test_remove_takes_back_any_stone() -> None:
    board = Board(15, 15, 0)
    for point in [(7, 7), (8, 8), (6, 6), (9, 9)]:
        board.play(*point)
    board.remove(8, 8)
    fresh = Board(15, 15, 0)
    fresh.setup([(7, 7, 1), (6, 6, 1), (9, 9, 2)])
    assert board.symmetric_hashes() == fresh.symmetric_hashes()
    assert set(board.candidates()) == set(fresh.candidates())
    assert board.shape(5, 5, 1, 2) == fresh.shape(5, 5, 1, 2)


def test_every_board_side_from_5_to_32_works_at_the_edges() -> None:
    for side in (5, 6, 31, 32):
        board = Board(side, 5 if side > 20 else side, 0)
        for x in range(5):
            won = board.play(x, board.height - 1, naive.BLACK)
        assert won
