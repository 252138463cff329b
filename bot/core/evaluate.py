"""The static evaluation: a sum of per-cell values kept up to date by make/unmake.

Every candidate cell has, for each colour, a *shape word* (its four line shapes, see
bot.core.shapes).  ``BoardState.cell_values`` gives each word a value for the colour to move
(row 0) and for the colour that just moved (row 1); make/unmake keep, per colour, both rows
summed over the candidate cells (``BoardState.value_sums``), so the score of a position is two
array reads.  The table is built by ``cell_value_table`` from the weights in bot.config: a value
per class (the four shapes combined), per line shape, and per pattern (the four shapes as a
multiset), fitted to game outcomes by ``python -m bot.tune``.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.core import arrays, shapes
from bot.core.jit import kernel, np
from bot.core.state import M_CANDIDATES, BoardState, class_table

WORDS = 1 << 16
_pattern_table: list[np.ndarray] = []


def pattern_table() -> np.ndarray:
    """uint16[2^16]: the pattern number of each shape word (built once per process)."""
    if not _pattern_table:
        _pattern_table.append(shapes.build_pattern_table())
    return _pattern_table[0]


def cell_value_table(class_weights: tuple[Sequence[int], Sequence[int]],
                     shape_weights: tuple[Sequence[int], Sequence[int]],
                     pattern_weights: tuple[Sequence[int], Sequence[int]]) -> np.ndarray:
    """int32[2, 2^16]: for each row (0: the colour to move, 1: the other), a word's value is
    its class's weight, plus the weights of its four shapes, plus its pattern's weight."""
    table = arrays.zeros((2, WORDS), "int32")
    fill_cell_values(class_table(), pattern_table(),
                     arrays.from_list([list(row) for row in class_weights], "int64"),
                     arrays.from_list([list(row) for row in shape_weights], "int64"),
                     arrays.from_list([list(row) for row in pattern_weights], "int64"), table)
    return table


@kernel()
def fill_cell_values(classes: np.ndarray, patterns: np.ndarray, class_weights: np.ndarray,
                     shape_weights: np.ndarray, pattern_weights: np.ndarray,
                     out: np.ndarray) -> None:
    """``out[row, word]``: the word's class weight + its four shape weights + its pattern
    weight, from row ``row`` of each weight table; 0 for words with a nibble that is no shape.
    ``classes``/``patterns``: class_table() and pattern_table()."""
    for word in range(WORDS):
        valid = True
        for direction in range(4):
            if (word >> (4 * direction)) & 15 >= shapes.SHAPES:
                valid = False
        for row in range(2):
            value = 0
            if valid:
                value = class_weights[row, classes[word]] + pattern_weights[row, patterns[word]]
                for direction in range(4):
                    value += shape_weights[row, (word >> (4 * direction)) & 15]
            out[row, word] = value


@kernel()
def evaluate(st: BoardState, colour: int) -> int:
    """Static score for ``colour`` to move: its cells' values as the mover minus the
    opponent's cells' values as the side that just moved."""
    return int(st.value_sums[colour - 1, 0] - st.value_sums[2 - colour, 1])


@kernel()
def recount_values(st: BoardState) -> None:
    """Sum ``cell_values`` over the candidate cells afresh (after the table changed)."""
    st.value_sums[:, :] = 0
    for i in range(st.meta[M_CANDIDATES]):
        cell = st.candidates[i]
        for side in range(2):
            word = st.words[side, cell]
            for row in range(2):
                st.value_sums[side, row] += st.cell_values[row, word]


@kernel()
def pattern_counts(st: BoardState, colour: int, patterns: np.ndarray, out: np.ndarray) -> None:
    """The evaluation's features for ``colour`` to move: ``out[p]`` candidate cells with pattern
    ``p`` for the mover, ``out[PATTERNS + p]`` for the opponent (``patterns``: pattern_table())."""
    out[:] = 0
    own = colour - 1
    for i in range(st.meta[M_CANDIDATES]):
        cell = st.candidates[i]
        out[patterns[st.words[own, cell]]] += 1
        out[shapes.PATTERNS + patterns[st.words[1 - own, cell]]] += 1
