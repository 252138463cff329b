"""The transposition table: entry layout, probe, store and the principal variation.

Entries come in buckets of BUCKET consecutive slots; a key's bucket is given by its low bits
(the table has a power of two entries).  Entry ``i``:

    keys[i]        full 64-bit Zobrist key of the position (0 = empty slot)
    data[i, LOWER] lower bound of the score   } mate scores relative to the node
    data[i, UPPER] upper bound of the score   } (bot.core.score.to_node)
    data[i, INFO]  generation << 32 | depth << 16 | (best cell + 1)   (best cell -1 = none)

A store for a key already in the bucket uses its entry: at the same depth it narrows the bound
the search proved (MTD(f) visits a node with several windows), deeper it starts the bounds
afresh, and shallower it changes nothing (the deeper bounds answer every probe the shallower
ones would, and more).  A new key replaces the bucket's least valuable entry: one from an earlier
search (generation) before one of this search, and among those the shallowest.
"""

from __future__ import annotations

from bot.core import arrays
from bot.core.jit import kernel, np
from bot.core.moves import make, unmake
from bot.core.score import INFINITY, to_node, to_root
from bot.core.state import BoardState

LOWER, UPPER, INFO = range(3)
DATA_SLOTS = 3
ENTRY_BYTES = 8 + DATA_SLOTS * 8
MIN_ENTRIES = 1 << 10  # a multiple of BUCKET
CELL_MASK = 0xFFFF
DEPTH_SHIFT = 16
DEPTH_MASK = 0xFFFF
GENERATION_SHIFT = 32
GENERATION_MASK = 0xFFFF
# Entries per bucket: more keeps deep entries longer against a stream of shallow ones, at the
# cost of comparing more keys per probe.
BUCKET = 4
# In the choice of the entry to replace, an entry of an earlier search counts as this much
# shallower: larger clears old entries sooner.
AGE_PENALTY = 64


def new_table(entries: int, resident: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(keys, data) for ``entries`` rounded down to a power of two (at least MIN_ENTRIES).

    With ``resident`` every page is written once, so the process's memory already counts the
    whole table: what is measured before a search is what is used once the search has filled
    it.  Without, pages are taken as the search first writes them (a fast start)."""
    count = max(MIN_ENTRIES, 1 << (max(1, int(entries)).bit_length() - 1))
    keys = arrays.zeros(count, "uint64")
    data = arrays.zeros((count, DATA_SLOTS), "int64")
    if resident:
        keys.fill(0)
        data.fill(0)
    return keys, data


def table_bytes(keys: np.ndarray, data: np.ndarray) -> int:
    return int(keys.nbytes + data.nbytes)


def clear(keys: np.ndarray) -> None:
    """Forget every entry (a zero key marks an empty slot)."""
    keys.fill(0)


@kernel()
def _bucket(keys: np.ndarray, key: np.uint64) -> int:
    """The first slot of ``key``'s bucket."""
    return int(np.int64(key & np.uint64(keys.shape[0] - 1)) & np.int64(-BUCKET))


@kernel()
def _find(keys: np.ndarray, key: np.uint64) -> int:
    """The slot holding ``key`` in its bucket, or -1."""
    base = _bucket(keys, key)
    for j in range(BUCKET):
        if keys[base + j] == key:
            return base + j
    return -1


@kernel()
def _depth(data: np.ndarray, slot: int) -> int:
    """The depth the entry in ``slot`` was searched to."""
    return int((data[slot, INFO] >> DEPTH_SHIFT) & DEPTH_MASK)


@kernel()
def probe(keys: np.ndarray, data: np.ndarray, key: np.uint64, depth: int, beta: int,
          ply: int) -> tuple[int, int, bool]:
    """(best cell or -1, score, cut): ``cut`` when an entry of at least ``depth`` proves the
    score on one side of ``beta`` (then ``score`` is that bound, counted from the root)."""
    slot = _find(keys, key)
    if slot < 0:
        return -1, 0, False
    info = data[slot, INFO]
    move = (info & CELL_MASK) - 1
    if _depth(data, slot) >= depth:
        lower = to_root(data[slot, LOWER], ply)
        if lower >= beta:
            return move, lower, True
        upper = to_root(data[slot, UPPER], ply)
        if upper < beta:
            return move, upper, True
    return move, 0, False


@kernel()
def lower_bound(keys: np.ndarray, data: np.ndarray, key: np.uint64, ply: int) -> tuple[int, int]:
    """(depth, lower bound counted from the root) of the position's entry; (-1, -INFINITY)
    without one."""
    slot = _find(keys, key)
    if slot < 0:
        return -1, -INFINITY
    return _depth(data, slot), to_root(data[slot, LOWER], ply)


@kernel()
def store(keys: np.ndarray, data: np.ndarray, key: np.uint64, depth: int, score: int,
          beta: int, move: int, ply: int, generation: int) -> None:
    """Record that a ``depth`` search of the position scored ``score`` against ``beta``: a lower
    bound when ``score >= beta``, else an upper bound; ``move`` is its best cell.
    ``generation`` numbers the search (see the module docstring on replacement)."""
    slot = _find(keys, key)
    if slot >= 0 and _depth(data, slot) > depth:
        return
    if slot < 0:
        base = _bucket(keys, key)
        slot = base
        lowest = 1 << 40
        for j in range(BUCKET):
            value = _depth(data, base + j)
            if keys[base + j] == 0:
                value = -AGE_PENALTY - 1
            elif ((data[base + j, INFO] >> GENERATION_SHIFT) & GENERATION_MASK) != generation:
                value -= AGE_PENALTY
            if value < lowest:
                lowest = value
                slot = base + j
    if keys[slot] != key or _depth(data, slot) != depth:
        keys[slot] = key
        data[slot, LOWER] = -INFINITY
        data[slot, UPPER] = INFINITY
    if score >= beta:
        data[slot, LOWER] = to_node(score, ply)
    else:
        data[slot, UPPER] = to_node(score, ply)
    data[slot, INFO] = ((generation & GENERATION_MASK) << GENERATION_SHIFT
                        | (depth << DEPTH_SHIFT) | (move + 1))


@kernel()
def best_move(keys: np.ndarray, data: np.ndarray, key: np.uint64) -> int:
    """The stored best cell of the position, or -1 without an entry."""
    slot = _find(keys, key)
    if slot < 0:
        return -1
    return int((data[slot, INFO] & CELL_MASK) - 1)


@kernel()
def principal_variation(st: BoardState, keys: np.ndarray, data: np.ndarray, first: int,
                        colour: int, out: np.ndarray) -> int:
    """Fill ``out`` with the expected line from ``first`` (``colour`` to play it), following the
    table's best moves while they land on empty cells; returns its length.  The board is left
    as it was."""
    length = 0
    cell = first
    while cell >= 0 and length < out.shape[0] and st.board[cell] == 0:
        out[length] = cell
        length += 1
        make(st, cell, colour)
        colour = 3 - colour
        cell = best_move(keys, data, st.hashes[0])
    for _ in range(length):
        unmake(st)
    return length
