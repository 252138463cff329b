"""Kernels that change or query a BoardState: make/unmake, wins, renju fouls, canonical key.

All of them are allocation-free and index the padded board directly (no edge checks).  ``cell``
is a padded index (see bot.core.state) and ``colour`` is BLACK (1) or WHITE (2).  Callers (the
Python wrappers) guarantee that cells are on the board and that stones go on empty cells.
"""

from __future__ import annotations

from bot.core import shapes
from bot.core.jit import kernel, np
from bot.core.shapes import (
    BLACK, EMPTY, FIVE, FOUR, FOUR_FOUR, OPEN_FOUR, OPEN_THREE, OVERLINE, WALL,
)
from bot.core.state import (
    BoardState, M_CANDIDATES, M_CLASS_COUNTS, M_PLY, M_SYMMETRIES, M_VALUED, PAD,
)

# Renju fouls, numbered as the renju package and Piskvork's referee number them.
FOUL_NONE, FOUL_DOUBLE_THREE, FOUL_DOUBLE_FOUR, FOUL_OVERLINE = 0, 1, 2, 3

# Explicit signatures for the kernels other kernels call with cells and colours: arguments are
# converted to int64 instead of compiling another overload (for constants such as BLACK, numba
# would otherwise compile a Literal[int] version).


@kernel("void(state, int64, int64)")
def _refresh_shapes(st: BoardState, cell: int, direction: int) -> None:
    """Recompute both colours' shape in one direction, and their classes, from the line key
    (a shape the new key leaves as it was changes nothing else).  Indices are unsigned here
    (never negative: numba then leaves out its negative-index wraparound)."""
    at = np.uint64(cell)
    line = np.uint64(direction)
    key = np.uint64(st.keys[at, line])
    shift = 4 * direction
    keep = np.int64(0xFFFF) ^ (np.int64(15) << shift)  # every shape but this direction's
    counted = st.candidate_index[at] >= 0
    valued = st.meta[M_VALUED] != 0
    pair = np.int64(st.shape_table[key])  # BLACK's shape | WHITE's << 4
    for side in range(2):
        shape = (pair >> (4 * side)) & 15
        old_word = np.int64(st.words[side, at])
        if (old_word >> shift) & 15 == shape:
            continue
        word = (old_word & keep) | (shape << shift)
        st.words[side, at] = word
        kind = st.class_table[np.uint64(word)]
        if counted:
            if valued:
                for row in range(2):
                    st.value_sums[side, row] += (st.cell_values[row, np.uint64(word)]
                                                 - st.cell_values[row, np.uint64(old_word)])
            base = M_CLASS_COUNTS + side * shapes.CLASSES
            st.meta[np.uint64(base + st.classes[side, at])] -= 1
            st.meta[np.uint64(base + kind)] += 1
        st.classes[side, at] = kind


@kernel("void(state, int64, int64)")
def _count_candidate(st: BoardState, cell: int, sign: int) -> None:
    """Add (``sign`` 1) or take away (-1) the values and the classes of a cell entering or
    leaving the candidate list."""
    valued = st.meta[M_VALUED] != 0
    at = np.uint64(cell)  # (unsigned indices, as in _refresh_shapes)
    for side in range(2):
        st.meta[np.uint64(M_CLASS_COUNTS + side * shapes.CLASSES + st.classes[side, at])] += sign
        if valued:
            word = np.uint64(st.words[side, at])
            for row in range(2):
                st.value_sums[side, row] += sign * st.cell_values[row, word]


@kernel("void(state, int64, int64)")
def _toggle_lines(st: BoardState, cell: int, value: int) -> None:
    """XOR a stone of ``value`` into the keys of the cells within PAD that see ``cell`` along
    each line, and refresh the empty ones.  Each walk stops at the first wall: past the edge
    every further cell of a line is wall too (the padding is PAD cells wide), and a wall's
    keys are never read.  Indices are unsigned, as in ``_refresh_shapes``."""
    for direction in range(4):
        line = np.uint64(direction)
        step = st.steps[line]
        for distance in range(1, PAD + 1):
            after = cell + distance * step  # sees the stone at offset -distance
            stone = st.board[np.uint64(after)]
            if stone == WALL:
                break
            st.keys[np.uint64(after), line] ^= value << (2 * (PAD - distance))
            if stone == EMPTY:
                _refresh_shapes(st, after, direction)
        for distance in range(1, PAD + 1):
            before = cell - distance * step  # sees the stone at offset +distance
            stone = st.board[np.uint64(before)]
            if stone == WALL:
                break
            st.keys[np.uint64(before), line] ^= value << (2 * (PAD - 1 + distance))
            if stone == EMPTY:
                _refresh_shapes(st, before, direction)


@kernel("void(state, int64, int64)")
def make(st: BoardState, cell: int, colour: int) -> None:
    """Put a ``colour`` stone on the empty ``cell``; every table is updated incrementally."""
    meta = st.meta
    ply = meta[M_PLY]
    index = st.candidate_index[cell]
    st.history[ply, 0] = cell
    st.history[ply, 1] = index
    if index >= 0:  # swap-remove the cell from the candidate list
        _count_candidate(st, cell, -1)
        last = meta[M_CANDIDATES] - 1
        moved = st.candidates[last]
        st.candidates[index] = moved
        st.candidate_index[moved] = index
        st.candidates[last] = 0
        st.candidate_index[cell] = -1
        meta[M_CANDIDATES] = last
    st.board[cell] = colour
    _toggle_lines(st, cell, colour)
    for offset in st.near_offsets:
        other = cell + offset
        at = np.uint64(other)  # (unsigned indices, as in _refresh_shapes)
        st.near[at] += 1
        if st.near[at] == 1 and st.board[at] == EMPTY:
            count = meta[M_CANDIDATES]
            st.candidates[np.uint64(count)] = other
            st.candidate_index[at] = count
            meta[M_CANDIDATES] = count + 1
            _count_candidate(st, other, 1)
    st.hashes[0] ^= st.zobrist[0, colour, cell]
    meta[M_PLY] = ply + 1


@kernel("int64(state)")
def unmake(st: BoardState) -> int:
    """Take back the last stone exactly as ``make`` put it (LIFO); returns its cell."""
    meta = st.meta
    ply = meta[M_PLY] - 1
    cell = st.history[ply, 0]
    index = st.history[ply, 1]
    colour = int(st.board[cell])
    offsets = st.near_offsets
    for i in range(offsets.shape[0] - 1, -1, -1):  # reverse order pops the cells make appended
        other = cell + offsets[np.uint64(i)]
        at = np.uint64(other)  # (unsigned indices, as in _refresh_shapes)
        st.near[at] -= 1
        if st.near[at] == 0 and st.board[at] == EMPTY:
            count = meta[M_CANDIDATES] - 1
            _count_candidate(st, other, -1)
            st.candidates[np.uint64(count)] = 0
            st.candidate_index[at] = -1
            meta[M_CANDIDATES] = count
    st.board[cell] = EMPTY
    _toggle_lines(st, cell, colour)
    st.hashes[0] ^= st.zobrist[0, colour, cell]
    if index >= 0:  # put the cell back where it was, the displaced cell back at the end
        count = meta[M_CANDIDATES]
        if index < count:  # the cell was not the last entry: something took its place
            moved = st.candidates[index]
            st.candidates[count] = moved
            st.candidate_index[moved] = count
        st.candidates[index] = cell
        st.candidate_index[cell] = index
        meta[M_CANDIDATES] = count + 1
        _count_candidate(st, cell, 1)
    st.history[ply, 0] = 0
    st.history[ply, 1] = 0
    meta[M_PLY] = ply
    return int(cell)


@kernel("int64(state)")
def suspend_values(st: BoardState) -> int:
    """Stop make/unmake keeping the evaluation's sums, for a search that takes back every stone
    it plays (the sums depend only on the position, so they are right again when it is done):
    the df-pn on quintet-14 then takes 12% fewer instructions.  Returns the flag to give
    ``resume_values``."""
    valued = int(st.meta[M_VALUED])
    st.meta[M_VALUED] = 0
    return valued


@kernel("void(state, int64)")
def resume_values(st: BoardState, valued: int) -> None:
    """Keep the sums again as before ``suspend_values`` (which returned ``valued``)."""
    st.meta[M_VALUED] = valued


@kernel("boolean(state, int64, int64)")
def wins(st: BoardState, cell: int, colour: int) -> bool:
    """Whether a ``colour`` stone on the empty ``cell`` wins at once under the board's rule."""
    return bool(st.classes[colour - 1, cell] == shapes.C_FIVE)


@kernel("int64(state, int64, int64, int64)")
def shape_at(st: BoardState, cell: int, colour: int, direction: int) -> int:
    """Shape a ``colour`` stone on the empty ``cell`` makes along ``direction``."""
    return int((st.words[colour - 1, cell] >> (4 * direction)) & 15)


FOUL_UNKNOWN = -1  # foul_of_word: two open threes, whose reality only the board tells


@kernel("int64(int64)")
def foul_of_word(word: int) -> int:
    """The renju foul a black stone makes with the four shapes ``word`` (bot.core.state's
    words): FOUL_*, or FOUL_UNKNOWN when it makes two open threes or more and no other foul
    (``foul_kind`` then asks the board whether they are real)."""
    fours = 0
    open_threes = 0
    overline = False
    for direction in range(4):
        shape = (word >> (4 * direction)) & 15
        if shape == FIVE:
            return FOUL_NONE
        if shape == OVERLINE:
            overline = True
        elif shape == FOUR or shape == OPEN_FOUR:
            fours += 1
        elif shape == FOUR_FOUR:
            fours += 2
        elif shape == OPEN_THREE:
            open_threes += 1
    if overline:
        return FOUL_OVERLINE
    if fours >= 2:
        return FOUL_DOUBLE_FOUR
    return FOUL_NONE if open_threes < 2 else FOUL_UNKNOWN


@kernel("int64(state, int64)")
def foul_kind(st: BoardState, cell: int) -> int:
    """Renju foul of a black stone on the empty ``cell``: FOUL_* (a five is never a foul).

    A three counts only if one more black stone, itself not a foul, makes a straight four
    through it; that check recurses on the board with the stone placed (make/unmake).
    """
    word = st.words[0, cell]
    foul = foul_of_word(int(word))
    if foul != FOUL_UNKNOWN:
        return foul
    valued = suspend_values(st)
    make(st, cell, BLACK)
    real_threes = 0
    for direction in range(4):
        if ((word >> (4 * direction)) & 15) != OPEN_THREE:
            continue
        step = st.steps[direction]
        real = False
        for sign in (-1, 1):
            for distance in range(1, 5):
                other = cell + sign * distance * step
                value = st.board[other]
                if value == BLACK:
                    continue
                if (value == EMPTY
                        and ((st.words[0, other] >> (4 * direction)) & 15) == OPEN_FOUR
                        and foul_kind(st, other) == FOUL_NONE):
                    real = True
                break
            if real:
                break
        if real:
            real_threes += 1
            if real_threes >= 2:
                break
    unmake(st)
    resume_values(st, valued)
    return FOUL_DOUBLE_THREE if real_threes >= 2 else FOUL_NONE


@kernel()
def symmetric_hashes(st: BoardState) -> None:
    """Write the Zobrist keys of the position's other symmetric images to st.hashes[1:] (8
    square, 4 else), from the stones played (make/unmake keep only hashes[0], the search's
    key; the images are needed only for the book's canonical key)."""
    for sym in range(1, st.meta[M_SYMMETRIES]):
        key = np.uint64(0)
        for ply in range(st.meta[M_PLY]):
            cell = st.history[ply, 0]
            key ^= st.zobrist[sym, st.board[cell], cell]
        st.hashes[sym] = key


@kernel()
def canonical_hash(st: BoardState) -> tuple[np.uint64, int]:
    """Smallest Zobrist key over the board's symmetric images, and the symmetry that gave it."""
    symmetric_hashes(st)
    best = st.hashes[0]
    best_sym = 0
    for sym in range(1, st.meta[M_SYMMETRIES]):
        if st.hashes[sym] < best:
            best = st.hashes[sym]
            best_sym = sym
    return best, best_sym
