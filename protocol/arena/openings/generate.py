"""Make the built-in balanced openings: ``python -m protocol.arena.openings.generate``.

Random three-stone openings near the centre (black, white, black; white to move) are scored
by a short search of our own engine; those whose score is nearest zero are kept, in Gomocup's
offset format (x,y relative to the centre).  Re-running with the same seed gives the same files.

``--random N --out FILE`` instead writes N distinct random openings without any search (for
varied self-play, e.g. the game records ``python -m bot.tune`` learns from);
``--balanced N --candidates C --stones S --depth D --out FILE`` scores C such random openings
with a depth-D search and writes the N nearest zero (larger sets for matches: random openings
mostly favour black, which makes colour, not strength, decide most games); ``--judge BRAIN``
scores them by another brain's printed evaluation instead (our own search calls most random
three-stone openings even where a stronger engine sees black far ahead).
"""

from __future__ import annotations

import argparse
import random
import re
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from tqdm import tqdm

from bot.engine import Engine
from bot.limits import Limits
from protocol.arena.client import BrainClient, EngineSpec

SEED = 2026
CANDIDATES = 240  # random openings scored per board: more finds more balanced ones, slower
KEEP = 12  # as many as a Gomocup league uses
SPREAD = 2  # stones within this many cells of the centre
PROBE_DEPTH = 5  # search depth that scores a built-in opening: deeper judges better, slower

Offsets = tuple[tuple[int, int], ...]  # an opening: stones as offsets from the centre, black first


def builtin_candidates(rng: random.Random) -> list[Offsets]:
    """CANDIDATES draws of three stones within SPREAD of the centre, repeats dropped."""
    candidates = []
    seen = set()
    for _ in range(CANDIDATES):
        offsets = [(0, 0)]
        while len(offsets) < 3:
            cell = (rng.randint(-SPREAD, SPREAD), rng.randint(-SPREAD, SPREAD))
            if cell not in offsets:
                offsets.append(cell)
        key = tuple(offsets)
        if key not in seen:
            seen.add(key)
            candidates.append(key)
    return candidates


# "ev 120", "Eval -35", "Eval +M13" in a brain's MESSAGE lines (ours and Rapfi's forms)
EVAL_PATTERN = re.compile(r"\bev(?:al)?\s+([+-]?)(M?)(\d+)", re.IGNORECASE)
MATE_SCORE = 30_000  # what a judge's "M<plies>" (a mate) counts as, less the plies


def own_scores(size: int, depth: int) -> Callable[[Offsets], int]:
    """Score an opening (for the side to move) by a depth-``depth`` search of our engine."""
    engine = Engine()
    probe = Limits(timeout_turn_ms=0, max_depth=depth, time_left_ms=10_000_000,
                   timeout_match_ms=0)

    def score(offsets: Offsets) -> int:
        engine.new_game(size, size, 0)
        c = size // 2
        engine.setup([(c + dx, c + dy, 1 + i % 2) for i, (dx, dy) in enumerate(offsets)])
        return engine.think(probe).score
    return score


def judge_scores(size: int, brain: BrainClient, turn_ms: int
                 ) -> Callable[[Offsets], int | None]:
    """Score an opening by another brain given ``turn_ms`` a move: the last evaluation it
    prints while it thinks (``ev N`` or ``Eval N`` in a MESSAGE line), for the side to move;
    None when it printed none (it moved before a search finished)."""
    brain.send(f"START {size}")
    brain.read_answer(time.perf_counter() + 30)
    brain.send(f"INFO timeout_turn {turn_ms}", "INFO max_memory 0", "INFO rule 0",
               "INFO show_detail 1")

    def score(offsets: Offsets) -> int | None:
        c = size // 2
        mover = len(offsets) % 2  # the index parity of the side to move's stones
        brain.send("INFO time_left 100000000", "BOARD",
                   *(f"{c + dx},{c + dy},{1 if i % 2 == mover else 2}"
                     for i, (dx, dy) in enumerate(offsets)), "DONE")
        brain.read_move(time.perf_counter() + 10 + 2 * turn_ms / 1000)
        for line in reversed(brain.messages):
            found = EVAL_PATTERN.search(line)
            if found:
                sign = -1 if found.group(1) == "-" else 1
                value = int(found.group(3))
                return sign * (MATE_SCORE - value if found.group(2) else value)
        return None
    return score


def balanced_openings(candidates: Iterable[Offsets], keep: int,
                      score: Callable[[Offsets], int | None]
                      ) -> list[tuple[int, tuple[int, ...]]]:
    """The ``keep`` candidates (offsets from the centre, black first) whose ``score`` is
    nearest zero, as (|score|, flattened offsets), in order; unscored ones are left out."""
    scored = []
    for offsets in candidates:
        value = score(offsets)
        if value is not None:
            scored.append((abs(value), tuple(v for xy in offsets for v in xy)))
    scored.sort()
    return scored[:keep]


def random_offsets(count: int, stones: int, rng: random.Random) -> list[Offsets]:
    """``count`` distinct openings of ``stones`` stones within SPREAD + 1 of the centre."""
    seen: set[Offsets] = set()
    openings: list[Offsets] = []
    while len(openings) < count:
        offsets = [(0, 0)]
        while len(offsets) < stones:
            cell = (rng.randint(-SPREAD - 1, SPREAD + 1), rng.randint(-SPREAD - 1, SPREAD + 1))
            if cell not in offsets:
                offsets.append(cell)
        if tuple(offsets) not in seen:
            seen.add(tuple(offsets))
            openings.append(tuple(offsets))
    return openings


def random_openings(count: int, stones: int, rng: random.Random) -> list[str]:
    """``random_offsets`` as lines of the openings file format."""
    return [", ".join(f"{x},{y}" for x, y in offsets)
            for offsets in random_offsets(count, stones, rng)]


def _line(flat: tuple[int, ...], score: int) -> str:
    pairs = ", ".join(f"{flat[i]},{flat[i + 1]}" for i in range(0, len(flat), 2))
    return f"{pairs}  # {score}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m protocol.arena.openings.generate")
    parser.add_argument("--random", type=int, default=0, metavar="N",
                        help="write N random openings to --out instead of the built-in sets")
    parser.add_argument("--balanced", type=int, default=0, metavar="N",
                        help="write to --out the N most balanced of --candidates random openings")
    parser.add_argument("--candidates", type=int, default=2000,
                        help="random openings scored for --balanced")
    parser.add_argument("--depth", type=int, default=PROBE_DEPTH,
                        help="search depth that scores an opening for --balanced")
    parser.add_argument("--judge", metavar="BRAIN",
                        help="score --balanced openings by this brain's printed evaluation "
                             "(NAME=COMMAND) instead of our own search")
    parser.add_argument("--judge-ms", type=int, default=500, help="the judge's time a position")
    parser.add_argument("--size", type=int, default=15, help="board size for --balanced")
    parser.add_argument("--stones", type=int, default=4, help="stones per random opening")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--out", type=Path, help="file for --random or --balanced")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    if (args.random or args.balanced) and args.out is None:
        parser.error("--random and --balanced need --out FILE")
    if args.random:
        lines = random_openings(args.random, args.stones, rng)
        args.out.write_text(f"# {args.random} random openings of {args.stones} stones, offsets "
                            f"from the centre (seed {args.seed})\n" + "\n".join(lines) + "\n")
        print(f"wrote {args.out}")
        return
    if args.balanced:
        candidates = tqdm(random_offsets(args.candidates, args.stones, rng), unit="opening")
        if args.judge:
            judge = BrainClient(EngineSpec.parse(args.judge))
            try:
                kept = balanced_openings(candidates, args.balanced,
                                         judge_scores(args.size, judge, args.judge_ms))
            finally:
                judge.close()
            judged = f"judged by {judge.spec.name} at {args.judge_ms} ms"
        else:
            kept = balanced_openings(candidates, args.balanced, own_scores(args.size, args.depth))
            judged = f"depth {args.depth}"
        header = (f"# the {args.balanced} most balanced of {args.candidates} random openings of "
                  f"{args.stones} stones for {args.size}x{args.size} freestyle, offsets from the "
                  f"centre (seed {args.seed}, {judged}); the number after # is |score| for the "
                  f"side to move")
        args.out.write_text("\n".join([header] + [_line(flat, score) for score, flat in kept])
                            + "\n")
        print(f"wrote {args.out}")
        return
    for size in (15, 20):
        lines = [f"# {KEEP} balanced openings for {size}x{size} freestyle, offsets from the "
                 f"centre; made by protocol/arena/openings/generate.py (seed {SEED}, depth "
                 f"{PROBE_DEPTH}); the number after # is |score| for white to move"]
        lines += [_line(flat, score) for score, flat in
                  balanced_openings(builtin_candidates(rng), KEEP, own_scores(size, PROBE_DEPTH))]
        path = Path(__file__).parent / f"openings_{size}x{size}.txt"
        path.write_text("\n".join(lines) + "\n")
        print(f"wrote {path.name}")


if __name__ == "__main__":
    main()
