"""Make the built-in balanced openings: ``python -m protocol.arena.openings.generate``.

Random three-stone openings near the centre (black, white, black; white to move) are scored
by a short search of our own engine; those whose score is nearest zero are kept, in Gomocup's
offset format (x,y relative to the centre).  Re-running with the same seed gives the same files.

``--random N --out FILE`` instead writes N distinct random openings without any search (for
varied self-play, e.g. the game records ``python -m bot.tune`` learns from).
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from bot.engine import Engine
from bot.limits import Limits

SEED = 2026
CANDIDATES = 240  # random openings scored per board: more finds more balanced ones, slower
KEEP = 12  # as many as a Gomocup league uses
SPREAD = 2  # stones within this many cells of the centre
PROBE = Limits(timeout_turn_ms=0, max_depth=5, time_left_ms=10_000_000, timeout_match_ms=0)


def balanced_openings(size: int, rng: random.Random) -> list[tuple[int, tuple[int, ...]]]:
    engine = Engine()
    scored = []
    seen = set()
    for _ in range(CANDIDATES):
        offsets = [(0, 0)]
        while len(offsets) < 3:
            cell = (rng.randint(-SPREAD, SPREAD), rng.randint(-SPREAD, SPREAD))
            if cell not in offsets:
                offsets.append(cell)
        key = tuple(offsets)
        if key in seen:
            continue
        seen.add(key)
        engine.new_game(size, size, 0)
        c = size // 2
        engine.setup([(c + dx, c + dy, 1 + i % 2) for i, (dx, dy) in enumerate(offsets)])
        result = engine.think(PROBE)
        scored.append((abs(result.score), tuple(v for xy in offsets for v in xy)))
    scored.sort()
    return scored[:KEEP]


def random_openings(count: int, stones: int, rng: random.Random) -> list[str]:
    """``count`` distinct openings of ``stones`` stones within SPREAD + 1 of the centre."""
    seen: set[tuple[tuple[int, int], ...]] = set()
    lines: list[str] = []
    while len(lines) < count:
        offsets = [(0, 0)]
        while len(offsets) < stones:
            cell = (rng.randint(-SPREAD - 1, SPREAD + 1), rng.randint(-SPREAD - 1, SPREAD + 1))
            if cell not in offsets:
                offsets.append(cell)
        if tuple(offsets) not in seen:
            seen.add(tuple(offsets))
            lines.append(", ".join(f"{x},{y}" for x, y in offsets))
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m protocol.arena.openings.generate")
    parser.add_argument("--random", type=int, default=0, metavar="N",
                        help="write N random openings to --out instead of the balanced sets")
    parser.add_argument("--stones", type=int, default=4, help="stones per random opening")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--out", type=Path, help="file for the random openings")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    if args.random:
        if args.out is None:
            parser.error("--random needs --out FILE")
        lines = random_openings(args.random, args.stones, rng)
        args.out.write_text(f"# {args.random} random openings of {args.stones} stones, offsets "
                            f"from the centre (seed {args.seed})\n" + "\n".join(lines) + "\n")
        print(f"wrote {args.out}")
        return
    for size in (15, 20):
        lines = [f"# {KEEP} balanced openings for {size}x{size} freestyle, offsets from the "
                 f"centre; made by protocol/arena/openings/generate.py (seed {SEED}, depth "
                 f"{PROBE.max_depth}); the number after # is |score| for white to move"]
        for score, flat in balanced_openings(size, rng):
            pairs = ", ".join(f"{flat[i]},{flat[i + 1]}" for i in range(0, len(flat), 2))
            lines.append(f"{pairs}  # {score}")
        path = Path(__file__).parent / f"openings_{size}x{size}.txt"
        path.write_text("\n".join(lines) + "\n")
        print(f"wrote {path.name}")


if __name__ == "__main__":
    main()
