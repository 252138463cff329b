"""Benchmarks that print figures: ``python -m bot.bench core``.

The positions are fixed (seeded), so figures from two commits compare like for like; the
machines are shared and noisy, so run it more than once before trusting a difference.
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import time

import numpy as np

from bot.core import drills, state
from bot.core.board import Board

BENCH_SEED = 7
BENCH_GAMES = 24  # fixed positions: more gives steadier figures and a longer run
BENCH_PLIES = 40


def bench_positions(size: int, rule: int) -> list[Board]:
    """Fixed middle-game-like positions: random stones near the centre, colours alternating."""
    rng = random.Random(BENCH_SEED)
    boards = []
    for _ in range(BENCH_GAMES):
        board = Board(size, size, rule)
        centre = size // 2
        while board.ply < BENCH_PLIES:
            x, y = centre + rng.randint(-5, 5), centre + rng.randint(-5, 5)
            if board.stone(x, y) == 0:
                board.play(x, y)
        boards.append(board)
    return boards


def core(rounds: int) -> None:
    rows = []
    for size, rule in ((15, 0), (15, 4), (20, 0)):
        boards = bench_positions(size, rule)
        drills.make_unmake_candidates(boards[0].state, 1, 1)  # compile or load before timing
        drills.query_candidate_shapes(boards[0].state, 1, np.zeros(10, np.int64))
        start = time.perf_counter()
        pairs = sum(drills.make_unmake_candidates(b.state, b.side_to_move(), rounds)
                    for b in boards)
        make_seconds = time.perf_counter() - start
        tally = np.zeros(10, dtype=np.int64)
        start = time.perf_counter()
        queries = sum(drills.query_candidate_shapes(b.state, rounds * 10, tally) for b in boards)
        query_seconds = time.perf_counter() - start
        state_bytes = sum(a.nbytes for name, a in boards[0].state._asdict().items()
                          if name not in ("shape_table", "class_table"))
        rows.append((f"{size}x{size} rule {rule}", pairs / make_seconds, queries / query_seconds,
                     state_bytes))
    tables = sum(t.nbytes for t in state._rule_tables.values()) + state.class_table().nbytes
    print(f"{'position set':<16}{'make+unmake/s':>16}{'shape queries/s':>18}{'state bytes':>13}")
    for name, make_rate, query_rate, state_bytes in rows:
        print(f"{name:<16}{make_rate:>16,.0f}{query_rate:>18,.0f}{state_bytes:>13,}")
    print(f"shared pattern tables: {tables / 2**20:.1f} MiB; "
          f"peak RSS of this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot.bench", description=__doc__)
    parser.add_argument("what", choices=["core"], help="which benchmark to run")
    parser.add_argument("--rounds", type=int, default=20, help="passes over each position")
    args = parser.parse_args(argv)
    if args.what == "core":
        core(args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
