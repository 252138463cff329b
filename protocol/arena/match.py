"""sente-match: self-play and engine-versus-engine matches between Gomocup brains.

Every game is an independent ``GameJob`` (small, picklable) run by ``play_game``, so a process
pool here, or a cluster later, can run them without changing the referee.  The referee judges
wins with our own core under the match's rule.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import sys
import time
from collections import Counter
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bot.core.board import Board
from bot.core.errors import BoardError
from bot.core.notation import parse_move_list
from bot.core.state import symmetry_image
from protocol.arena import records, stats
from protocol.arena.client import BrainClient, BrainFailure, EngineSpec

DEFAULT_TOLERANCE_MS = 1000
OPENINGS_DIR = Path(__file__).parent / "openings"
RENJU_DRAW_STONES = 200  # Gomocup: a renju game is drawn after 200 stones
CLOSE_GRACE_S = 2.0  # how long a brain may take to exit after END before it is killed


Opening = tuple[tuple[int, int], ...]  # stones in the order played, black first


@dataclass(frozen=True)
class MatchSettings:
    """What every game of a match shares."""

    width: int = 15
    height: int = 15
    rule: int = 0
    timeout_turn_ms: int = 1000
    timeout_match_ms: int = 0
    max_memory: int = 350 * 2**20
    tolerance_ms: int = DEFAULT_TOLERANCE_MS
    reuse: bool = False  # Piskvork style (RESTART); else GomocupJudge style (fresh process)
    adjudicate: int = 0  # declare a draw after this many moves (0: never)
    game_type: int = 1
    folder: str = ""


@dataclass(frozen=True)
class GameJob:
    index: int
    pair: int
    black: EngineSpec
    white: EngineSpec
    opening: Opening
    settings: MatchSettings
    first_is_black: bool  # whether the match's first engine plays black in this game


# --- openings ---------------------------------------------------------------------------------
OFFSET = re.compile(r"-?\d+")


def parse_opening(line: str, width: int, height: int) -> Opening:
    """Gomocup offsets (``-1,0, 0,0, 1,1`` from the centre) or a move list (``h8i9``: column
    letter, row number counted from the bottom as in renju notation)."""
    if any(c.isalpha() for c in line):
        return tuple(parse_move_list(line, width, height))
    numbers = [int(v) for v in OFFSET.findall(line)]
    if len(numbers) % 2:
        raise ValueError(f"odd number of offsets in opening {line!r}")
    cx, cy = width // 2, height // 2
    return tuple((cx + numbers[i], cy + numbers[i + 1]) for i in range(0, len(numbers), 2))


def load_openings(source: str, width: int, height: int) -> list[Opening]:
    """Openings from a file, or the built-in set for the board (``builtin``); each is checked
    to be on the board and free of repeated cells."""
    path = Path(source) if source != "builtin" else OPENINGS_DIR / f"openings_{width}x{height}.txt"
    if not path.exists():
        raise ValueError(f"no openings file {path} (built-in sets: 15x15 and 20x20)")
    openings = []
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            opening = parse_opening(line, width, height)
            Board(width, height, 0).setup(
                [(x, y, 1 + i % 2) for i, (x, y) in enumerate(opening)])
            openings.append(opening)
    return openings


def schedule(first: EngineSpec, second: EngineSpec, openings: list[Opening], games: int,
             settings: MatchSettings, seed: int, shuffle: bool, symmetry: bool) -> list[GameJob]:
    """Game pairs: each opening once with each engine as black; ``games`` rounded up to pairs."""
    rng = random.Random(seed)
    order = list(range(len(openings)))
    if shuffle:
        rng.shuffle(order)
    symmetries = 8 if settings.width == settings.height else 4
    jobs: list[GameJob] = []
    for pair in range((games + 1) // 2):
        opening = openings[order[pair % len(order)]]
        if symmetry:
            sym = rng.randrange(symmetries)
            opening = tuple(symmetry_image(sym, x, y, settings.width, settings.height)
                            for x, y in opening)
        for first_is_black in (True, False):
            black, white = (first, second) if first_is_black else (second, first)
            jobs.append(GameJob(len(jobs), pair, black, white, opening, settings,
                                first_is_black))
    return jobs


# --- the referee ------------------------------------------------------------------------------
_reused: dict[tuple[EngineSpec, str], BrainClient] = {}  # per worker process, Piskvork mode


def _open_brain(spec: EngineSpec, role: str, settings: MatchSettings) -> tuple[BrainClient, bool]:
    """A brain ready for a new game, and whether its clock started at process start."""
    key = (spec, role)
    if settings.reuse and key in _reused and _reused[key].alive:
        brain = _reused[key]
        brain.send("RESTART")
        brain.read_answer(time.perf_counter() + 30)
        return brain, False
    brain = BrainClient(spec)
    if settings.reuse:
        _reused[key] = brain
    size = (f"START {settings.width}" if settings.width == settings.height
            else f"RECTSTART {settings.width},{settings.height}")
    brain.send(size)  # like GomocupJudge, the INFOs follow without waiting for OK
    brain.send(f"INFO timeout_turn {settings.timeout_turn_ms}",
               f"INFO timeout_match {settings.timeout_match_ms}",
               f"INFO max_memory {settings.max_memory}", f"INFO rule {settings.rule}",
               f"INFO game_type {settings.game_type}")
    if settings.folder:
        brain.send(f"INFO folder {settings.folder}")
    return brain, not settings.reuse


def play_game(job: GameJob) -> records.GameRecord:
    """Referee one game to its end; never hangs: every wait has a wall-clock bound."""
    s = job.settings
    record = records.GameRecord(job.index, job.black.name, job.white.name, s.width, s.height,
                                s.rule, list(job.opening), pair=job.pair,
                                first_is_black=job.first_is_black)
    board = Board(s.width, s.height, s.rule)
    for x, y in job.opening:
        board.play(x, y)
    brains: dict[int, BrainClient] = {}
    fresh_clock: dict[int, bool] = {}
    told: dict[int, int] = {1: -1, 2: -1}  # plies each brain has seen (-1: nothing yet)
    time_left = {1: float(s.timeout_match_ms), 2: float(s.timeout_match_ms)}
    colour = board.side_to_move()
    players = {1: (job.black, "A" if job.first_is_black else "B"),
               2: (job.white, "B" if job.first_is_black else "A")}
    try:
        while True:
            if board.is_full() or (s.rule & 4 and board.ply >= RENJU_DRAW_STONES):
                record.cause = "full_board" if board.is_full() else "200_stones"
                return record
            if s.adjudicate and len(record.moves) >= s.adjudicate:
                record.cause = "adjudicated"
                return record
            if colour not in brains:
                # started at its first turn: GomocupJudge keeps a new brain suspended until
                # then, so its first move pays for its own start-up, never for the opponent's
                brains[colour], fresh_clock[colour] = _open_brain(*players[colour], s)
            x, y, ms = _request_move(brains[colour], board, colour, told, time_left, s,
                                     fresh_clock)
            record.moves.append((x, y, ms))
            fault = _illegal(board, x, y, colour)
            if fault:
                record.winner, record.cause, record.detail = 3 - colour, fault, f"{x},{y}"
                return record
            if s.max_memory and brains[colour].memory_bytes() > s.max_memory:
                record.winner, record.cause = 3 - colour, "memory"
                record.detail = f"{brains[colour].memory_bytes()} bytes"
                return record
            if board.play(x, y, colour):
                record.winner, record.cause = colour, "five"
                return record
            colour = 3 - colour
    except BrainFailure as failure:
        record.winner, record.cause, record.detail = 3 - colour, failure.cause, failure.detail
        if colour in brains:
            brains[colour].kill()
        return record
    finally:
        for brain in brains.values():
            if not s.reuse or not brain.alive:
                brain.close(CLOSE_GRACE_S)


def _request_move(brain: BrainClient, board: Board, colour: int, told: dict[int, int],
                  time_left: dict[int, float], s: MatchSettings,
                  fresh_clock: dict[int, bool]) -> tuple[int, int, int]:
    """Send INFO time_left and BOARD (first request) or TURN; wait for the move within
    min(timeout_turn, time left) + tolerance, measured on the wall clock."""
    limit = float(s.timeout_turn_ms) if s.timeout_turn_ms > 0 else float("inf")
    if s.timeout_match_ms > 0:
        limit = min(limit, time_left[colour])
    if limit == float("inf"):
        limit = 3_600_000.0  # no limits at all: an hour is still a bound
    left = int(time_left[colour]) if s.timeout_match_ms > 0 else 2147483647
    moves = board.moves()
    start = time.perf_counter()
    if told[colour] < 0:
        if fresh_clock[colour]:
            start = brain.started  # GomocupJudge: the first move pays for process start-up
        rows = [f"{x},{y},{1 if board.stone(x, y) == colour else 2}" for x, y in moves]
        brain.send(f"INFO time_left {left}", "BOARD", *rows, "DONE")
    else:
        x, y = moves[-1]
        brain.send(f"INFO time_left {left}", f"TURN {x},{y}")
    told[colour] = board.ply
    deadline = start + (limit + s.tolerance_ms) / 1000.0
    move = brain.read_move(deadline)
    elapsed = (time.perf_counter() - start) * 1000.0
    time_left[colour] -= elapsed
    return move[0], move[1], int(elapsed)


def _illegal(board: Board, x: int, y: int, colour: int) -> str:
    if not (0 <= x < board.width and 0 <= y < board.height):
        return "illegal"  # off the board (GomocupJudge counts it as a crash)
    if board.stone(x, y):
        return "illegal"
    if colour == 1 and board.foul(x, y):
        return "forbidden"
    return ""


# --- running a match --------------------------------------------------------------------------
@dataclass
class MatchState:
    """Results so far, from the first engine's point of view."""

    first: str
    second: str
    games: list[records.GameRecord] = field(default_factory=list)
    decision: str | None = None

    def points(self, game: records.GameRecord) -> float:
        if game.winner == 0:
            return 0.5
        first_colour = 1 if game.first_is_black else 2
        return 1.0 if game.winner == first_colour else 0.0

    def pair_points(self) -> list[float]:
        by_pair: dict[int, list[float]] = {}
        for game in self.games:
            by_pair.setdefault(game.pair, []).append(self.points(game))
        return [sum(p) for p in by_pair.values() if len(p) == 2]

    def score_line(self) -> str:
        wins = sum(self.points(g) == 1.0 for g in self.games)
        losses = sum(self.points(g) == 0.0 for g in self.games)
        draws = len(self.games) - wins - losses
        line = f"{self.first} vs {self.second}: +{wins} -{losses} ={draws}"
        est = stats.estimate(self.pair_points())
        if est:
            line += f"  elo {est.elo:+.0f} [{est.elo_low:+.0f}, {est.elo_high:+.0f}]"
        return line


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle


def run_match(jobs: list[GameJob], concurrency: int, out: Path, sprt: stats.Sprt | None,
              pgn: bool, progress: bool = True) -> MatchState:
    """Play the jobs, K at a time; records are written as games end, so Ctrl-C keeps them."""
    from tqdm import tqdm

    out.mkdir(parents=True, exist_ok=True)
    (out / "games").mkdir(exist_ok=True)
    first = jobs[0].black.name if jobs else ""
    second = jobs[0].white.name if jobs else ""
    state = MatchState(first, second)
    bar = tqdm(total=len(jobs), unit="game", disable=not progress, dynamic_ncols=True)
    pending = list(reversed(jobs))
    running: dict[Future[records.GameRecord], GameJob] = {}
    executor = ProcessPoolExecutor(max_workers=concurrency, initializer=_ignore_sigint)
    try:
        while pending or running:
            while pending and len(running) < concurrency and state.decision is None:
                job = pending.pop()
                running[executor.submit(play_game, job)] = job
            if not running:
                break
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                running.pop(future)
                game = future.result()
                state.games.append(game)
                _write_game(out, game, pgn)
                bar.update(1)
                bar.set_postfix_str(state.score_line(), refresh=True)
            if sprt is not None and state.decision is None:
                state.decision = sprt.decision(state.pair_points())
    except KeyboardInterrupt:
        bar.write("interrupted: the games played so far are kept")
        for future in running:
            future.cancel()
    finally:
        executor.shutdown(wait=True, cancel_futures=True)
        bar.close()
    return state


def _write_game(out: Path, game: records.GameRecord, pgn: bool) -> None:
    stem = out / "games" / f"{game.index + 1:05d}"
    stem.with_suffix(".sgf").write_text(records.sgf(game))
    stem.with_suffix(".psq").write_text(records.psq(game))
    with open(out / "results.jsonl", "a") as results:
        results.write(json.dumps(asdict(game)) + "\n")
    if pgn:
        with open(out / "games.pgn", "a") as games:
            games.write(records.pgn(game))


def summary(state: MatchState, sprt: stats.Sprt | None) -> str:
    """Wins, losses and draws by colour and by cause; Elo, LOS and the SPRT state."""
    lines = [state.score_line()]
    table: Counter[tuple[str, str]] = Counter()
    causes: Counter[tuple[str, str]] = Counter()
    for game in state.games:
        first_black = game.first_is_black
        colour = "black" if first_black else "white"
        points = state.points(game)
        table[(colour, {1.0: "won", 0.0: "lost", 0.5: "drew"}[points])] += 1
        causes[(game.cause, {1: "black", 2: "white", 0: "-"}[game.winner])] += 1
    lines.append(f"{state.first} as black: +{table['black', 'won']} -{table['black', 'lost']} "
                 f"={table['black', 'drew']};  as white: +{table['white', 'won']} "
                 f"-{table['white', 'lost']} ={table['white', 'drew']}")
    endings = [f"{cause} x{n}" if winner == "-" else f"{cause} ({winner} won) x{n}"
               for (cause, winner), n in sorted(causes.items())]
    lines.append("endings: " + (", ".join(endings) or "none"))
    est = stats.estimate(state.pair_points())
    if est:
        lines.append(f"pairs {est.pairs}, pentanomial {list(est.pentanomial)}, score "
                     f"{est.score:.3f}, elo {est.elo:+.1f} (95% {est.elo_low:+.1f} .. "
                     f"{est.elo_high:+.1f}), LOS {est.los:.1%}")
    if sprt is not None:
        low, high = sprt.bounds
        lines.append(f"SPRT elo0={sprt.elo0} elo1={sprt.elo1} alpha={sprt.alpha} "
                     f"beta={sprt.beta}: LLR {sprt.llr(state.pair_points()):.2f} "
                     f"[{low:.2f}, {high:.2f}] -> {state.decision or 'undecided'}")
    return "\n".join(lines)


# --- command line -----------------------------------------------------------------------------
def selfplay_spec(label: str, params: str) -> EngineSpec:
    """Our own brain with --param overrides, e.g. ``branch=12 vcf_depth=8``."""
    command = [sys.executable, "-m", "protocol.brain"]
    for param in params.split():
        command += ["--param", param]
    return EngineSpec(f"{label}[{params}]" if params else label, tuple(command))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="sente-match", description=__doc__.split("\n\n")[0])
    who = parser.add_mutually_exclusive_group(required=True)
    who.add_argument("--engine", nargs=2, metavar=("FIRST", "SECOND"),
                     help="two brains as NAME=COMMAND (e.g. 'Sente=pbrain-sente')")
    who.add_argument("--selfplay", nargs=2, metavar=("PARAMS_A", "PARAMS_B"),
                     help="our own engine twice with different --param sets ('' = defaults)")
    parser.add_argument("--games", type=int, default=20, help="games (rounded up to pairs)")
    parser.add_argument("--concurrency", type=int, default=1, help="games at once")
    parser.add_argument("--size", default="15", help="N or WxH")
    parser.add_argument("--rule", type=int, default=0, help="Gomocup rule bits (0, 1, 4, 8, 9)")
    parser.add_argument("--timeout-turn", type=int, default=1000, help="ms per move")
    parser.add_argument("--timeout-match", type=int, default=0, help="ms per game (0: none)")
    parser.add_argument("--max-memory", type=int, default=350 * 2**20, help="bytes (0: none)")
    parser.add_argument("--tolerance", type=int, default=DEFAULT_TOLERANCE_MS, help="ms")
    parser.add_argument("--openings", default="builtin", help="file of openings, or builtin")
    parser.add_argument("--random-order", action="store_true", help="shuffle the openings")
    parser.add_argument("--symmetry", action="store_true", help="random symmetry per opening")
    parser.add_argument("--seed", type=int, default=1, help="seed for order and symmetry")
    parser.add_argument("--reuse", action="store_true",
                        help="Piskvork style: one process per engine, RESTART between games")
    parser.add_argument("--adjudicate", type=int, default=0, help="draw after N moves")
    parser.add_argument("--sprt", nargs=4, type=float, metavar=("ELO0", "ELO1", "ALPHA", "BETA"),
                        help="stop when the SPRT decides")
    parser.add_argument("--pgn", action="store_true", help="also write games.pgn")
    parser.add_argument("--out", default="matches/latest", help="folder for records")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)

    width, _, height = args.size.partition("x")
    settings = MatchSettings(int(width), int(height or width), args.rule, args.timeout_turn,
                             args.timeout_match, args.max_memory, args.tolerance, args.reuse,
                             args.adjudicate)
    try:
        Board(settings.width, settings.height, settings.rule)
        openings = load_openings(args.openings, settings.width, settings.height)
    except (BoardError, ValueError) as error:
        parser.error(str(error))
    if args.engine:
        first, second = (EngineSpec.parse(text) for text in args.engine)
    else:
        first, second = (selfplay_spec(label, params)
                         for label, params in zip("AB", args.selfplay))
    jobs = schedule(first, second, openings, args.games, settings, args.seed,
                    args.random_order, args.symmetry)
    sprt = stats.Sprt(*args.sprt) if args.sprt else None
    out = Path(args.out)
    state = run_match(jobs, args.concurrency, out, sprt, args.pgn, progress=not args.quiet)
    text = summary(state, sprt)
    (out / "summary.txt").write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
