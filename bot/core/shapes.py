"""Threat-shape vocabulary and the pattern tables behind it.

A *line key* describes the ten cells around an empty cell along one direction, five on each side,
2 bits per cell (``EMPTY`` 0, ``BLACK`` 1, ``WHITE`` 2, ``WALL`` 3).  Offsets -5..-1 use slots
0..4 and offsets +1..+5 use slots 5..9; slot ``i`` is bits ``2i, 2i+1``.  Five cells each side are
enough to classify every shape below under every rule: a five's end checks reach offset 5, and a
three's straight four lies within offsets -3..3 with its end checks at -5 and 5.

Shapes describe what one stone of a colour placed on the cell makes in one direction, counting
only lines that include that stone (``X`` own stone, ``*`` the cell, ``.`` empty, ``O`` blocker):
"""

from __future__ import annotations

from bot.core import arrays
from bot.core.jit import kernel, np

# Cell values on the board and in decoded line windows.
EMPTY, BLACK, WHITE, WALL = 0, 1, 2, 3
# In a decoded window the side we classify for is OWN and everything else that is not empty is a
# blocker: the other colour (OPP) or the board edge (WALL); caro tells the two apart.
OWN, OPP = 1, 2

HALF = 5  # cells on each side of the centre in a line key
KEY_BITS = 4 * HALF  # 20 bits: ten cells of 2 bits
KEY_COUNT = 1 << KEY_BITS
WINDOW = 2 * HALF + 1

# --- shapes along one line (4 bits) ---------------------------------------------------------
NONE = 0  #       .  *  .        nothing: no five can ever be made through this stone here
TWO = 1  #        O X * . .      two more stones can make a four (not an open four)
OPEN_TWO = 2  #   . X * . .      two more stones can make an open four
THREE = 3  #      O X X * .      one more stone makes a four (not an open four)
OPEN_THREE = 4  # . X X * .      one more stone makes an open four (or two fours on this line)
FOUR = 5  #       O X X X * .    one more stone makes a five, in exactly one way
FOUR_FOUR = 6  #  X . X * X . X  two fives threatened on this line, not a straight four
OPEN_FOUR = 7  #  . X X X * .    straight four: fives threatened at both ends
FIVE = 8  #       X X X X *      a winning five under the rule (exactly five, unblocked for caro)
OVERLINE = 9  #   X X X X X *    six or more where that does not win (exact five, renju black)

SHAPES = 10
SHAPE_NAMES = (
    "none", "two", "open_two", "three", "open_three", "four", "four_four", "open_four", "five",
    "overline",
)

# --- classes: a cell's four shapes combined, ordered so that "makes a four" is CLASS >= C_FOUR --
C_NONE = 0  #         no shape
C_TWO = 1  #          some two
C_OPEN_TWO = 2  #     one open two
C_DOUBLE_TWO = 3  #   two open twos
C_THREE = 4  #        a closed three
C_OPEN_THREE = 5  #   one open three
C_DOUBLE_THREE = 6  # two or more open threes (a renju foul for black if both are real)
C_FOUR = 7  #         one four, no open three
C_FOUR_THREE = 8  #   a four and an open three
C_DOUBLE_FOUR = 9  #  two fours, possibly on one line (a renju foul for black)
C_OPEN_FOUR = 10  #   a straight four
C_FIVE = 11  #        wins now
CLASSES = 12

CLASS_NAMES = (
    "none", "two", "open_two", "double_two", "three", "open_three", "double_three", "four",
    "four_three", "double_four", "open_four", "five",
)

# --- patterns: a cell's four shapes as a multiset (the order of the directions forgotten) -----
# Pattern numbers run over the multisets of four shapes, sorted descending, in lexicographic
# order: 0 is (none, none, none, none).  C(SHAPES + 3, 4) of them.
PATTERNS = 715
_PATTERN_SHAPES = tuple((a, b, c, d) for a in range(SHAPES) for b in range(a + 1)
                        for c in range(b + 1) for d in range(c + 1))


def pattern_shapes() -> list[tuple[int, int, int, int]]:
    """The four shapes of each pattern, largest first, indexed by pattern number."""
    return list(_PATTERN_SHAPES)


def pattern_name(pattern: int) -> str:
    """``open_three+two`` for a pattern: its shapes other than none, largest first."""
    names = [SHAPE_NAMES[shape] for shape in _PATTERN_SHAPES[pattern] if shape]
    return "+".join(names) or "none"


def build_pattern_table() -> np.ndarray:
    """uint16[2^16]: the pattern number of every word of four 4-bit shapes (words with a nibble
    that is no shape map to 0)."""
    number = arrays.zeros(1 << 16, "uint16")  # pattern number by its shapes as a word
    for index, (a, b, c, d) in enumerate(_PATTERN_SHAPES):
        number[a << 12 | b << 8 | c << 4 | d] = index
    table = arrays.zeros(1 << 16, "uint16")
    fill_pattern_table(number, table)
    return table


@kernel()
def fill_pattern_table(number: np.ndarray, table: np.ndarray) -> None:
    """``table[word] = number[w]``, ``w`` being the word's four shapes sorted largest first, or
    0 when a nibble of the word is no shape."""
    for word in range(1 << 16):
        a, b, c, d = word & 15, (word >> 4) & 15, (word >> 8) & 15, word >> 12
        if a >= SHAPES or b >= SHAPES or c >= SHAPES or d >= SHAPES:
            table[word] = 0
            continue
        if a < b:  # a sorting network: five compare-exchanges order four values
            a, b = b, a
        if c < d:
            c, d = d, c
        if a < c:
            a, c = c, a
        if b < d:
            b, d = d, b
        if b < c:
            b, c = c, b
        table[word] = number[a << 12 | b << 8 | c << 4 | d]


# --- what counts as a win along a line ------------------------------------------------------
WIN_FREESTYLE = 0  # five or more
WIN_EXACT = 1  #     exactly five
WIN_CARO = 2  #      six or more; exactly five unless opponent stones block both ends
WIN_CARO_EXACT = 3  # exactly five, unless opponent stones block both ends
WIN_DEFINITIONS = 4


@kernel()
def decode_key(key: int, line: np.ndarray) -> None:
    """Fill ``line`` (11 cells, centre index 5 left EMPTY) from a 20-bit line key."""
    for slot in range(2 * HALF):
        index = slot if slot < HALF else slot + 1
        line[index] = (key >> (2 * slot)) & 3
    line[HALF] = EMPTY


@kernel()
def swap_colours(key: int) -> int:
    """The key with BLACK and WHITE exchanged; WALL and EMPTY cells stay as they are."""
    low = key & 0x55555
    high = (key >> 1) & 0x55555
    return (low << 1) | high


@kernel()
def canonical_line_key(key: int) -> int:
    """The key with every cell beyond the first blocker on each side replaced by WALL.

    Those cells cannot affect any shape of the OWN colour, so keys equal after this reduction
    have equal shapes; the table builder classifies only reduced keys.
    """
    out = key
    for side in range(2):
        blocked = False
        for distance in range(1, HALF + 1):
            slot = HALF - distance if side == 0 else HALF - 1 + distance
            if blocked:
                out |= 3 << (2 * slot)
            elif ((key >> (2 * slot)) & 3) >= OPP:
                blocked = True
    return out


@kernel("UniTuple(int64, 2)(line, int64)")
def _run_bounds(line: np.ndarray, pos: int) -> tuple[int, int]:
    """First and last index of the run of OWN stones through ``pos`` inside the window."""
    left = pos
    while left > 0 and line[left - 1] == OWN:
        left -= 1
    right = pos
    while right < WINDOW - 1 and line[right + 1] == OWN:
        right += 1
    return left, right


@kernel("int64(line, int64)")
def _cell_or_empty(line: np.ndarray, index: int) -> int:
    if index < 0 or index >= WINDOW:
        return EMPTY
    return int(line[index])


@kernel("boolean(line, int64, int64)")
def _wins_at(line: np.ndarray, pos: int, win_def: int) -> bool:
    """Whether the OWN run through ``pos`` (already placed) wins under ``win_def``."""
    left, right = _run_bounds(line, pos)
    length = right - left + 1
    if win_def == WIN_FREESTYLE:
        return length >= 5
    if win_def == WIN_EXACT:
        return length == 5
    blocked_both = _cell_or_empty(line, left - 1) == OPP and _cell_or_empty(line, right + 1) == OPP
    if win_def == WIN_CARO and length >= 6:
        return True
    return length == 5 and not blocked_both


@kernel()
def _four_kind(line: np.ndarray, win_def: int) -> int:
    """With the centre placed: 0 no four, FOUR, FOUR_FOUR or OPEN_FOUR through the centre."""
    completions = 0
    first = -1
    second = -1
    for cell in range(WINDOW):
        if line[cell] != EMPTY:
            continue
        line[cell] = OWN
        left, right = _run_bounds(line, cell)
        if left <= HALF <= right and _wins_at(line, cell, win_def):
            if completions == 0:
                first = cell
            elif completions == 1:
                second = cell
            completions += 1
        line[cell] = EMPTY
    if completions == 0:
        return 0
    if completions == 1:
        return FOUR
    left, right = _run_bounds(line, HALF)
    if right - left == 3 and first == left - 1 and second == right + 1:
        return OPEN_FOUR
    return FOUR_FOUR


@kernel()
def classify_line(line: np.ndarray, win_def: int) -> int:
    """Shape made by an OWN stone on the empty centre of an 11-cell window (window restored)."""
    line[HALF] = OWN
    shape = NONE
    if _wins_at(line, HALF, win_def):
        shape = FIVE
    else:
        left, right = _run_bounds(line, HALF)
        if right - left + 1 >= 6:
            shape = OVERLINE
        elif right - left + 1 < 5:
            shape = _four_kind(line, win_def)
            if shape == 0:
                shape = _classify_below_four(line, win_def)
    line[HALF] = EMPTY
    return shape


@kernel()
def _classify_below_four(line: np.ndarray, win_def: int) -> int:
    """Threes and twos: how many more stones, and whether they can make an open four."""
    best = NONE
    for first in range(1, WINDOW - 1):
        if line[first] != EMPTY:
            continue
        line[first] = OWN
        kind = _four_kind(line, win_def)
        line[first] = EMPTY
        if kind >= FOUR_FOUR:
            return OPEN_THREE
        if kind == FOUR:
            best = THREE
    if best == THREE:
        return THREE
    for first in range(1, WINDOW - 1):
        if line[first] != EMPTY:
            continue
        line[first] = OWN
        for second in range(first + 1, WINDOW - 1):
            if line[second] != EMPTY:
                continue
            line[second] = OWN
            kind = _four_kind(line, win_def)
            line[second] = EMPTY
            if kind >= FOUR_FOUR:
                line[first] = EMPTY
                return OPEN_TWO
            if kind == FOUR:
                best = TWO
        line[first] = EMPTY
    return best


def build_shape_table(win_def: int) -> np.ndarray:
    """Shape of an OWN (= BLACK in the key) stone for all 2^20 keys; run once per definition."""
    table = arrays.zeros(KEY_COUNT, "uint8")
    fill_shape_table(win_def, table, arrays.zeros(KEY_COUNT, "uint8"),
                     arrays.zeros(WINDOW, "int8"))
    return table


@kernel()
def fill_shape_table(win_def: int, table: np.ndarray, memo: np.ndarray, line: np.ndarray) -> None:
    """Fill ``table`` (2^20 entries) with the shape of an OWN stone for each key; ``memo`` (as
    many entries) and ``line`` (WINDOW cells) are scratch space."""
    memo[:] = 255
    for key in range(KEY_COUNT):
        reduced = canonical_line_key(key)
        if memo[reduced] == 255:
            decode_key(reduced, line)
            memo[reduced] = classify_line(line, win_def)
        table[key] = memo[reduced]


def pair_table(black_view: np.ndarray, white_rule_view: np.ndarray) -> np.ndarray:
    """Both colours' shapes per key in one byte: BLACK's from ``black_view`` in the low four
    bits, WHITE's in the high four, from ``white_rule_view`` (a table for OWN = BLACK keys,
    under WHITE's win definition) read at the colour-swapped key."""
    out = arrays.zeros(KEY_COUNT, "uint8")
    fill_pair_table(black_view, white_rule_view, out)
    return out


@kernel()
def fill_pair_table(black_view: np.ndarray, white_rule_view: np.ndarray, out: np.ndarray) -> None:
    """``out[k] = black_view[k] | white_rule_view[swap_colours(k)] << 4`` for every key."""
    for key in range(KEY_COUNT):
        out[key] = black_view[key] | (white_rule_view[swap_colours(key)] << 4)


@kernel()
def class_of_shapes(s0: int, s1: int, s2: int, s3: int) -> int:
    """Combine the four directional shapes of one colour at one cell into a class."""
    fives = 0
    open_fours = 0
    fours = 0
    open_threes = 0
    threes = 0
    open_twos = 0
    twos = 0
    for shape in (s0, s1, s2, s3):
        if shape == FIVE:
            fives += 1
        elif shape == OPEN_FOUR:
            open_fours += 1
        elif shape == FOUR_FOUR:
            fours += 2
        elif shape == FOUR:
            fours += 1
        elif shape == OPEN_THREE:
            open_threes += 1
        elif shape == THREE:
            threes += 1
        elif shape == OPEN_TWO:
            open_twos += 1
        elif shape == TWO:
            twos += 1
    if fives:
        return C_FIVE
    if open_fours:
        return C_OPEN_FOUR
    if fours >= 2:
        return C_DOUBLE_FOUR
    if fours == 1:
        return C_FOUR_THREE if open_threes else C_FOUR
    if open_threes >= 2:
        return C_DOUBLE_THREE
    if open_threes == 1:
        return C_OPEN_THREE
    if threes:
        return C_THREE
    if open_twos >= 2:
        return C_DOUBLE_TWO
    if open_twos == 1:
        return C_OPEN_TWO
    if twos:
        return C_TWO
    return C_NONE


def build_class_table() -> np.ndarray:
    """Class for every 16-bit word of four 4-bit shapes (direction d in bits 4d..4d+3)."""
    table = arrays.zeros(1 << 16, "uint8")
    fill_class_table(table)
    return table


@kernel()
def fill_class_table(table: np.ndarray) -> None:
    """Fill ``table`` (2^16 entries) with the class of every word."""
    for word in range(1 << 16):
        table[word] = class_of_shapes(word & 15, (word >> 4) & 15, (word >> 8) & 15, word >> 12)
