"""Board state: a NamedTuple of arrays (bot.core.arrays) made by one typed constructor.

Layout: the playing area of ``width`` x ``height`` cells sits in a padded array.  Each row has
``PAD`` wall cells before it (which are also the right border of the row above), and there are
``PAD`` wall rows above and ``PAD + 1`` below, so stepping up to ``PAD`` cells in any of the four
directions from a playing cell never leaves the array.  Cell ``(x, y)`` has index
``(y + PAD) * stride + PAD + x`` with ``stride = width + PAD``.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

from bot.core import arrays, shapes
from bot.core.errors import RuleError, SizeError
from bot.core.jit import np

PAD = shapes.HALF  # line keys read five cells on each side
MIN_SIDE, MAX_SIDE = 5, 32
NEAR_RADIUS = 2  # candidate moves: empty cells within this Chebyshev distance of a stone

# Rule bits of the Gomocup INFO rule value.
RULE_EXACT = 1
RULE_CONTINUOUS = 2
RULE_RENJU = 4
RULE_CARO = 8
KNOWN_RULE_BITS = RULE_EXACT | RULE_CONTINUOUS | RULE_RENJU | RULE_CARO

# meta[] slots: fixed geometry, whether the board keeps the evaluation's sums (M_VALUED: 0 when
# it has no cell values, as the book's threat searches; make/unmake then skip the sums), then
# counters the kernels update: from M_CLASS_COUNTS on, the
# candidate cells of each class per colour (meta[M_CLASS_COUNTS + (colour - 1) * CLASSES +
# class]), so a kernel knows without a scan whether anyone has a five, a four or a three to play.
(M_WIDTH, M_HEIGHT, M_STRIDE, M_SIZE, M_SYMMETRIES, M_RULE, M_PLY, M_CANDIDATES,
 M_VALUED) = range(9)
M_CLASS_COUNTS = 9
META_SLOTS = M_CLASS_COUNTS + 2 * shapes.CLASSES

ZOBRIST_SEED = 20260522  # fixed forever: opening-book keys are stored on disk
ZOBRIST_SIDE = MAX_SIDE  # Zobrist values are drawn for a 32 x 32 grid of image coordinates
# The values, drawn once by numpy's PCG64 from ZOBRIST_SEED and shipped as data (the frozen
# brain has no numpy): little-endian uint64, BLACK's 32 x 32 then WHITE's; tests/test_core_board.py
# draws them again and compares.
ZOBRIST_FILE = Path(__file__).with_name("zobrist.bin")


class BoardState(NamedTuple):
    """Everything a kernel needs to know about one position; see the module docstring."""

    meta: np.ndarray  # int64[META_SLOTS]: geometry and counters (M_* slots)
    board: np.ndarray  # int8[size]: EMPTY, BLACK, WHITE or WALL per padded cell
    keys: np.ndarray  # int32[size, 4]: line key of each cell in each direction
    words: np.ndarray  # uint16[2, size]: four 4-bit shapes per colour (direction d at bits 4d)
    classes: np.ndarray  # uint8[2, size]: class of the four shapes per colour
    near: np.ndarray  # int16[size]: stones within NEAR_RADIUS (Chebyshev)
    candidates: np.ndarray  # int64[size]: empty cells with near > 0, first meta[M_CANDIDATES]
    candidate_index: np.ndarray  # int64[size]: position in candidates, or -1
    cell_values: np.ndarray  # int32[2, 2^16]: a candidate cell's value per shape word (row 0
    # when its colour is to move, row 1 when the other is; see bot.core.evaluate)
    value_sums: np.ndarray  # int64[2, 2]: per colour, cell_values summed over candidate cells
    history: np.ndarray  # int64[max_ply, 2]: played cell and its former candidate index
    hashes: np.ndarray  # uint64[8]: Zobrist key of the position (kept by make/unmake), then of its
    # other symmetric images (written only when asked: bot.core.moves.symmetric_hashes)
    steps: np.ndarray  # int64[4]: index step of each direction (→, ↓, ↘, ↙)
    near_offsets: np.ndarray  # int64[(2R+1)^2 - 1]: index offsets of the candidate neighbourhood
    zobrist: np.ndarray  # uint64[8, 3, size]: value of a BLACK/WHITE stone (index 1/2) per image
    shape_table: np.ndarray  # uint8[2^20]: per line key BLACK's shape | WHITE's shape << 4
    class_table: np.ndarray  # uint8[2^16]: class per shape word


def win_definitions(rule: int) -> tuple[int, int]:
    """(black, white) win definitions for a Gomocup rule bit mask; RuleError if unsupported."""
    if rule < 0 or rule & ~KNOWN_RULE_BITS:
        raise RuleError(f"unsupported rule bits in {rule}: known bits are 1, 2, 4 and 8")
    if rule & RULE_RENJU and rule & RULE_CARO:
        raise RuleError(f"rule {rule} asks for both renju (4) and caro (8)")
    if rule & RULE_RENJU:
        return shapes.WIN_EXACT, shapes.WIN_FREESTYLE
    if rule & RULE_CARO:
        caro = shapes.WIN_CARO_EXACT if rule & RULE_EXACT else shapes.WIN_CARO
        return caro, caro
    plain = shapes.WIN_EXACT if rule & RULE_EXACT else shapes.WIN_FREESTYLE
    return plain, plain


_definition_tables: dict[int, np.ndarray] = {}
_rule_tables: dict[tuple[int, int], np.ndarray] = {}
_class_table: list[np.ndarray] = []


def definition_table(win_def: int) -> np.ndarray:
    """Shape table for an OWN = BLACK key under one win definition (built once per process)."""
    if win_def not in _definition_tables:
        _definition_tables[win_def] = shapes.build_shape_table(win_def)
    return _definition_tables[win_def]


def rule_shape_table(rule: int) -> np.ndarray:
    """uint8[2^20]: both colours' shapes for a line key, BLACK's in the low four bits and
    WHITE's in the high four (one read gives both)."""
    black_def, white_def = win_definitions(rule)
    if (black_def, white_def) not in _rule_tables:
        _rule_tables[(black_def, white_def)] = shapes.pair_table(
            definition_table(black_def), definition_table(white_def))
    return _rule_tables[(black_def, white_def)]


def class_table() -> np.ndarray:
    if not _class_table:
        _class_table.append(shapes.build_class_table())
    return _class_table[0]


@cache
def zobrist_values() -> tuple[tuple[int, ...], ...]:
    """[3][32 * 32]: fixed random values per colour (row 1 BLACK, row 2 WHITE) and cell; row 0
    (EMPTY) is zeros.  Read once per process."""
    cells = ZOBRIST_SIDE * ZOBRIST_SIDE
    values = tuple(memoryview(ZOBRIST_FILE.read_bytes()).cast("Q").tolist())
    return (0,) * cells, values[:cells], values[cells:]


def symmetry_image(sym: int, x: int, y: int, width: int, height: int) -> tuple[int, int]:
    """Image of (x, y) under symmetry ``sym`` (0..3 any board, 4..7 square boards only).

    0 identity, 1 mirror left-right, 2 mirror top-bottom, 3 rotate 180, 4 transpose,
    5 rotate 90 clockwise, 6 rotate 90 anticlockwise, 7 anti-transpose.
    """
    right, bottom = width - 1 - x, height - 1 - y
    images = ((x, y), (right, y), (x, bottom), (right, bottom),
              (y, x), (bottom, x), (y, right), (bottom, right))
    return images[sym]


def cell_index(x: int, y: int, stride: int) -> int:
    return (y + PAD) * stride + PAD + x


def new_state(width: int, height: int, rule: int,
              cell_values: np.ndarray | None = None) -> BoardState:
    """An empty board of ``width`` x ``height`` under the Gomocup ``rule`` bit mask, evaluated
    with ``cell_values`` (int32[2, 2^16]; None: every cell is worth 0): a copy of the arrays of
    the first such board this process made (``_empty_state``), the shape and class tables
    shared (no kernel writes them)."""
    for side in (width, height):
        if not MIN_SIDE <= side <= MAX_SIDE:
            raise SizeError(f"board side {side} is outside {MIN_SIDE}..{MAX_SIDE}")
    empty = _empty_state(width, height, rule)
    kept = {"shape_table": empty.shape_table, "class_table": empty.class_table}
    if cell_values is not None:
        kept["cell_values"] = cell_values.copy()  # its own copy
    state = BoardState(*(kept[name] if name in kept else array.copy()
                         for name, array in zip(BoardState._fields, empty, strict=True)))
    state.meta[M_VALUED] = int(cell_values is not None)
    return state


@cache
def _empty_state(width: int, height: int, rule: int) -> BoardState:
    """The empty board ``new_state`` copies, worked out once per size and rule (its line keys
    and shapes cell by cell in Python: about 30 ms natively)."""
    shape_table = rule_shape_table(rule)
    stride = width + PAD
    size = (height + 2 * PAD + 1) * stride
    symmetries = 8 if width == height else 4

    meta = arrays.zeros(META_SLOTS, "int64")
    meta[M_WIDTH], meta[M_HEIGHT], meta[M_STRIDE], meta[M_SIZE] = width, height, stride, size
    meta[M_SYMMETRIES], meta[M_RULE] = symmetries, rule

    board = arrays.full(size, shapes.WALL, "int8")
    values = zobrist_values()
    zobrist = arrays.zeros((8, 3, size), "uint64")
    for y in range(height):
        for x in range(width):
            cell = cell_index(x, y, stride)
            board[cell] = shapes.EMPTY
            for sym in range(symmetries):
                ix, iy = symmetry_image(sym, x, y, width, height)
                for colour in (shapes.BLACK, shapes.WHITE):
                    zobrist[sym, colour, cell] = values[colour][iy * ZOBRIST_SIDE + ix]

    steps = arrays.from_list([1, stride, stride + 1, stride - 1], "int64")
    keys = arrays.zeros((size, 4), "int32")
    words = arrays.zeros((2, size), "uint16")
    classes = arrays.zeros((2, size), "uint8")
    table = class_table()
    _fill_wall_keys(board, keys, steps, width, height, stride)
    for y in range(height):
        for x in range(width):
            cell = cell_index(x, y, stride)
            for colour in (shapes.BLACK, shapes.WHITE):
                word = 0
                for direction in range(4):
                    pair = int(shape_table[keys[cell, direction]])
                    word |= ((pair >> (4 * (colour - 1))) & 15) << (4 * direction)
                words[colour - 1, cell] = word
                classes[colour - 1, cell] = table[word]

    radius = range(-NEAR_RADIUS, NEAR_RADIUS + 1)
    near_offsets = arrays.from_list(
        [dy * stride + dx for dy in radius for dx in radius if dx or dy], "int64")
    return BoardState(
        meta=meta,
        board=board,
        keys=keys,
        words=words,
        classes=classes,
        near=arrays.zeros(size, "int16"),
        candidates=arrays.zeros(size, "int64"),
        candidate_index=arrays.full(size, -1, "int64"),
        cell_values=arrays.zeros((2, 1 << 16), "int32"),  # (every cell worth 0)
        value_sums=arrays.zeros((2, 2), "int64"),
        history=arrays.zeros((width * height + 1, 2), "int64"),
        hashes=arrays.zeros(8, "uint64"),
        steps=steps,
        near_offsets=near_offsets,
        zobrist=zobrist,
        shape_table=shape_table,
        class_table=table,
    )


def _fill_wall_keys(board: np.ndarray, keys: np.ndarray, steps: np.ndarray,
                    width: int, height: int, stride: int) -> None:
    """Line keys of the empty board: only wall cells contribute."""
    for y in range(height):
        for x in range(width):
            cell = cell_index(x, y, stride)
            for direction in range(4):
                key = 0
                for offset in range(-PAD, PAD + 1):
                    if offset == 0:
                        continue
                    value = int(board[cell + offset * int(steps[direction])])
                    slot = offset + PAD if offset < 0 else offset + PAD - 1
                    key |= value << (2 * slot)
                keys[cell, direction] = key


def state_type() -> Any:
    """The numba type of every BoardState, for kernels that need an explicit signature."""
    import numba
    import numpy as np

    def empty(dtype: type, ndim: int) -> np.ndarray:
        return np.zeros((0,) * ndim, dtype=dtype)

    sample = BoardState(
        meta=empty(np.int64, 1), board=empty(np.int8, 1), keys=empty(np.int32, 2),
        words=empty(np.uint16, 2), classes=empty(np.uint8, 2), near=empty(np.int16, 1),
        candidates=empty(np.int64, 1), candidate_index=empty(np.int64, 1),
        cell_values=empty(np.int32, 2), value_sums=empty(np.int64, 2),
        history=empty(np.int64, 2), hashes=empty(np.uint64, 1), steps=empty(np.int64, 1),
        near_offsets=empty(np.int64, 1), zobrist=empty(np.uint64, 3),
        shape_table=empty(np.uint8, 1), class_table=empty(np.uint8, 1),
    )
    return numba.typeof(sample)
