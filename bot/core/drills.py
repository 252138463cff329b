"""Tight loops over the board kernels, for benchmarks: no Python between the calls measured."""

from __future__ import annotations

from bot.core.jit import kernel, np
from bot.core.moves import make, shape_at, unmake
from bot.core.state import BoardState, M_CANDIDATES


@kernel()
def make_unmake_candidates(st: BoardState, colour: int, rounds: int) -> int:
    """Make and unmake every current candidate move ``rounds`` times; returns the pairs done."""
    pairs = 0
    count = st.meta[M_CANDIDATES]
    for _ in range(rounds):
        for i in range(count):
            make(st, st.candidates[i], colour)
            unmake(st)
            pairs += 1
    return pairs


@kernel()
def query_candidate_shapes(st: BoardState, rounds: int, out: np.ndarray) -> int:
    """Read both colours' four shapes at every candidate ``rounds`` times; tallies into out[10]."""
    queries = 0
    count = st.meta[M_CANDIDATES]
    for _ in range(rounds):
        for i in range(count):
            cell = st.candidates[i]
            for colour in range(1, 3):
                for direction in range(4):
                    out[shape_at(st, cell, colour, direction)] += 1
                    queries += 1
    return queries
