"""Benchmarks that print figures: ``python -m bot.bench core|search|tactics|threats|startup``.

The positions are fixed (seeded), so figures from two commits compare like for like; the
machines are shared and noisy, so run it more than once before trusting a difference.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psutil

from bot.config import Config
from bot.core import arrays, drills, state
from bot.core.board import Board, Point
from bot.core.proofnumber import dfpn_vct, new_table
from bot.core.searchstate import C_TSS_NODES
from bot.core.threats import vct
from bot.core.score import MATE_BOUND
from bot.engine import Engine
from bot.limits import Limits, SearchInfo

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
        drills.query_candidate_shapes(boards[0].state, 1, arrays.zeros(10, "int64"))
        start = time.perf_counter()
        pairs = sum(drills.make_unmake_candidates(b.state, b.side_to_move(), rounds)
                    for b in boards)
        make_seconds = time.perf_counter() - start
        tally = arrays.zeros(10, "int64")
        start = time.perf_counter()
        queries = sum(drills.query_candidate_shapes(b.state, rounds * 10, tally) for b in boards)
        query_seconds = time.perf_counter() - start
        state_bytes = sum(a.nbytes for name, a in boards[0].state._asdict().items()
                          if name not in ("shape_table", "class_table", "cell_values"))
        rows.append((f"{size}x{size} rule {rule}", pairs / make_seconds, queries / query_seconds,
                     state_bytes))
    tables = sum(t.nbytes for t in state._rule_tables.values()) + state.class_table().nbytes
    print(f"{'position set':<16}{'make+unmake/s':>16}{'shape queries/s':>18}{'state bytes':>13}")
    for name, make_rate, query_rate, state_bytes in rows:
        print(f"{name:<16}{make_rate:>16,.0f}{query_rate:>18,.0f}{state_bytes:>13,}")
    print(f"shared pattern tables: {tables / 2**20:.1f} MiB; evaluation table "
          f"{boards[0].state.cell_values.nbytes / 2**20:.1f} MiB per board; "
          f"peak RSS of this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


# Quiet early positions (offsets from the centre, black first) for the search signature.
SIGNATURE_OPENINGS = (
    ((0, 0), (1, 1), (1, 0), (-1, 1)),
    ((0, 0), (0, 1), (2, 0), (1, -1), (1, 1)),
    ((0, 0), (1, 0), (0, 2), (-1, 1)),
    ((0, 0), (-1, -1), (1, 1), (2, 0), (0, 1), (1, -2)),
    ((0, 0), (2, 2), (1, 0), (-1, 0), (0, -1), (0, 1)),
    ((0, 0), (1, 1), (2, 0), (-2, 1), (1, -1), (0, -1), (-1, 1)),
)
SIGNATURE_DEPTH = 6  # fixed depth for the node signature: deeper is a stricter check, slower


def search_signature() -> None:
    """Node count over fixed positions at a fixed depth (unchanged by a pure refactor), nodes
    per second, and the swing: the mean change of the score from one depth to the next (an
    evaluation that swings between odd and even depths misleads MTD(f)'s first guess)."""
    limits = Limits(timeout_turn_ms=600_000, max_depth=SIGNATURE_DEPTH)
    engine = Engine()
    total_nodes, total_ms = 0, 0.0
    swings: list[int] = []
    for size, rule in ((15, 0), (15, 4), (20, 1)):
        centre = size // 2
        for opening in SIGNATURE_OPENINGS:
            engine.new_game(size, size, rule)
            engine.setup([(centre + dx, centre + dy, 1 + i % 2)
                          for i, (dx, dy) in enumerate(opening)])
            engine.clear_hash()
            scores: list[int] = []
            result = engine.think(limits, lambda info: scores.append(info.score))
            total_nodes += result.nodes
            total_ms += result.elapsed_ms
            swings += [abs(b - a) for a, b in zip(scores, scores[1:]) if max(a, b) < MATE_BOUND]
    print(f"bench signature: {total_nodes} nodes at depth {SIGNATURE_DEPTH} over 18 positions; "
          f"{total_nodes * 1000 / total_ms:,.0f} nodes/s; swing between depths "
          f"{sum(swings) / max(1, len(swings)):.0f}")


# Must-defend positions (freestyle 15x15), made for this bench: the opponent (black) threatens
# to win; white to move must play one of the defences (cells found by hand, each checked to hold).
DEFENCES = (
    ("open three", [(6, 7), (7, 7), (8, 7), (2, 2)], [(7, 9), (12, 12), (1, 12)],
     {(4, 7), (5, 7), (9, 7), (10, 7)}),
    ("split three", [(5, 7), (6, 7), (8, 7), (2, 2)], [(7, 9), (12, 12), (1, 12)],
     {(4, 7), (7, 7), (9, 7)}),
    ("four-three point", [(5, 7), (6, 7), (7, 7), (8, 5), (8, 6), (12, 1)],
     [(4, 7), (1, 1), (1, 13), (13, 13), (0, 7)], {(8, 7), (9, 7), (8, 8), (8, 4)}),
)
TACTICS_SECONDS = 1.0  # a position counts as solved when the search gets it within this long
# The threat solver alone (the root's VCT, with quiet threats, given the whole second): the
# most threats it may use, and the fours of the VCF that makes a quiet move a threat.
SOLVER = Config(vct_nodes_per_ms=1_000_000, vct_max_nodes=10**9, vct_threats=12,
                vct_quiet_fours=3)
# ... and as a df-pn (bot.core.proofnumber), with a table of 2^20 entries (40 MiB)
DFPN_SOLVER = dataclasses.replace(SOLVER, vct_dfpn_entries=1 << 20)
PUZZLES = Path(__file__).resolve().parents[1] / "tests" / "data" / "renju_puzzles_quintet_mit.jsonl"


def _iterations(engine: Engine, stop_when: Callable[[SearchInfo], bool]) -> tuple[
        list[SearchInfo], Point]:
    """The iterations a search reports within TACTICS_SECONDS (it stops early once
    ``stop_when`` holds for one), and the move it plays."""
    infos: list[SearchInfo] = []

    def watch(info: SearchInfo) -> None:
        if info.elapsed_ms <= TACTICS_SECONDS * 1000:
            infos.append(info)
            if stop_when(info):
                engine.stop()

    timer = threading.Timer(TACTICS_SECONDS, engine.stop)
    timer.start()
    try:
        move = engine.think(Limits(timeout_turn_ms=600_000), watch).move
    finally:
        timer.cancel()
    return infos, move


def _puzzles() -> Iterator[tuple[dict[str, Any], list[tuple[int, int, int]]]]:
    """The puzzles (renju, 15x15) whose stone counts say who is to move, as our board infers
    it: each with its stones."""
    for line in PUZZLES.read_text().splitlines():
        case = json.loads(line)
        if case["counts_consistent_with_to_move"]:
            yield case, ([(x, y, 1) for x, y in case["black"]]
                         + [(x, y, 2) for x, y in case["white"]])


def threat_solvers(node_limit: int) -> None:
    """Each VCT puzzle for the threat-bounded deepening (threats.vct) and the df-pn
    (proofnumber.dfpn_vct, a fresh table of 2^20 entries) alone, both with SOLVER's quiet
    threats and at most ``node_limit`` nodes: plies of the win found, nodes and seconds."""
    engine = Engine()
    keys, data = new_table(1 << 20)
    quiet = SOLVER.vct_quiet_fours
    print(f"{'puzzle':<12}{'deepening plies/nodes/s':>28}{'df-pn plies/nodes/s':>28}")
    totals = {"deepening": [0, 0.0], "df-pn": [0, 0.0]}
    for case, stones in _puzzles():
        if case["task"] != "vct":
            continue
        engine.new_game(15, 15, 4)
        engine.setup(stones)
        board = engine.require_board()
        colour = board.side_to_move()
        cells = []
        for name in totals:
            keys.fill(0)
            start = time.perf_counter()
            if name == "df-pn":
                plies, _ = dfpn_vct(board.state, engine._search, keys, data, colour,
                                    node_limit, quiet, 0)
            else:
                plies, _ = vct(board.state, engine._search, colour, SOLVER.vct_threats,
                               node_limit, quiet)
            seconds = time.perf_counter() - start
            nodes = int(engine._search.ctrl[C_TSS_NODES])
            totals[name][0] += plies > 0
            totals[name][1] += seconds
            cells.append(f"{plies or '-':>6}{nodes:>12,}{seconds:>9.2f}")
        print(f"{case['id']:<12}{cells[0]:>28}{cells[1]:>28}")
    for name, (solved, seconds) in totals.items():
        print(f"{name}: {solved} solved, {seconds:.1f} s in all")


def tactics() -> None:
    """VCF and VCT puzzles (renju, quintet, MIT): solved when an iteration proves a win.
    Must-defend positions: solved when the move played after at most TACTICS_SECONDS is a
    defence; its time is that of the first iteration from which the best move stayed one.
    The VCT puzzles again for the threat solver alone (SOLVER, then DFPN_SOLVER): solved when
    it proves the win within TACTICS_SECONDS."""
    engine = Engine()
    solvers = {"vct solver": Engine(SOLVER), "vct df-pn": Engine(DFPN_SOLVER)}
    rows: dict[str, list[float | None]] = {"vcf": [], "vct": [], "defence": [],
                                           **{name: [] for name in solvers}}
    unsolved: list[str] = []
    for case, stones in _puzzles():
        engine.new_game(15, 15, 4)
        engine.setup(stones)
        infos, _ = _iterations(engine, lambda info: info.score > MATE_BOUND)
        won = [info.elapsed_ms / 1000 for info in infos if info.score > MATE_BOUND]
        rows[case["task"]].append(won[0] if won else None)
        if not won:
            unsolved.append(case["id"])
        for name, solver in solvers.items() if case["task"] == "vct" else ():
            solver.new_game(15, 15, 4)
            solver.setup(stones)
            result = solver.think(Limits(timeout_turn_ms=int(TACTICS_SECONDS * 1000),
                                         max_depth=1))
            proven = result.stopped_by == "proven" and result.elapsed_ms <= TACTICS_SECONDS * 1000
            rows[name].append(result.elapsed_ms / 1000 if proven else None)
            if not proven:
                unsolved.append(f"{case['id']} ({name})")
    for label, black, white, defences in DEFENCES:
        engine.new_game(15, 15, 0)
        engine.setup([(x, y, 1) for x, y in black] + [(x, y, 2) for x, y in white])
        infos, move = _iterations(engine, lambda info: False)
        steady = [i for i, info in enumerate(infos) if info.pv and info.pv[0] not in defences]
        first = steady[-1] + 1 if steady else 0
        solved = move in defences and first < len(infos)
        rows["defence"].append(infos[first].elapsed_ms / 1000 if solved else None)
        if not solved:
            unsolved.append(label)
    print(f"{'set':<12}{'solved':>10}{'mean s':>9}   (within {TACTICS_SECONDS:.0f} s each)")
    for name, times in rows.items():
        done = [t for t in times if t is not None]
        mean = f"{sum(done) / len(done):.2f}" if done else "-"
        print(f"{name:<12}{len(done):>6}/{len(times):<3}{mean:>9}")
    print(f"unsolved: {', '.join(unsolved) or 'none'}")


GOMOCUP_OPENING = ["7,7,2", "8,7,1", "8,8,2"]  # GomocupJudge sends the opening as BOARD rows


def first_move(cache_dir: str, extra: tuple[str, ...] = (), brain_command: list[str] | None = None,
               max_memory: int = 367001600) -> tuple[float, float]:
    """Seconds from process start to the first move, and the peak RSS in MiB of the brain's
    process tree (the sum of each process's peak), when START, the INFOs and BOARD arrive at
    once as GomocupJudge sends them.  ``max_memory`` 0 sends no memory limit."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    memory = [f"INFO max_memory {max_memory}"] if max_memory else []
    commands = ["START 15", "INFO timeout_turn 5000", "INFO timeout_match 180000", *memory,
                "INFO rule 0", "INFO game_type 1", "INFO time_left 180000", *extra, "BOARD",
                *GOMOCUP_OPENING, "DONE"]
    start = time.perf_counter()
    brain = subprocess.Popen(brain_command or [sys.executable, "-m", "protocol.brain"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True)
    assert brain.stdin is not None and brain.stdout is not None
    brain.stdin.write("\n".join(commands) + "\n")
    brain.stdin.flush()
    while True:
        line = brain.stdout.readline()
        if not line:
            raise RuntimeError(f"the brain ended before its first move (exit {brain.wait()})")
        if "," in line and not line.startswith("MESSAGE"):
            break
    elapsed = time.perf_counter() - start
    root = psutil.Process(brain.pid)
    peak_kib = sum(_peak_kib(process.pid) for process in [root, *root.children(recursive=True)])
    brain.stdin.write("END\n")
    brain.stdin.flush()
    brain.wait(timeout=30)
    return elapsed, peak_kib / 1024


def _peak_kib(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return next(int(row.split()[1]) for row in status.splitlines() if row.startswith("VmHWM"))


def executable(path: str, runs: int) -> None:
    """Size, start-up and peak memory of a frozen brain (build/freeze), and its search bench."""
    print(f"{path}: {Path(path).stat().st_size / 2**20:.2f} MiB "
          f"({Path(path).stat().st_size / 1e6:.2f} MB)")
    print(f"{'run':<5}{'depth-1 s':>11}{'first move s':>14}{'peak MiB':>10}"
          f"{'no limit: s':>13}{'peak MiB':>10}")
    with tempfile.TemporaryDirectory() as scratch:
        for run in range(runs):
            shallow, _ = first_move(scratch, ("INFO max_depth 1",), [path])
            limited, limited_mib = first_move(scratch, (), [path])
            free, free_mib = first_move(scratch, (), [path], max_memory=0)
            print(f"{run:<5}{shallow:>11.2f}{limited:>14.2f}{limited_mib:>10.0f}{free:>13.2f}"
                  f"{free_mib:>10.0f}")
    print("seconds from process start to the first move (START, INFOs and BOARD with a 3-stone "
          "opening sent at once); depth-1 isolates start-up; the first move searches a 5 s turn "
          "with max_memory 350 MiB, then with no INFO max_memory; peak RSS summed over the "
          "process tree (/proc VmHWM)")
    subprocess.run([path, "--bench", "search"], check=True)


def startup(runs: int) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        rows = []
        for run in range(runs):
            cold_dir = os.path.join(scratch, f"cold{run}")
            cold = first_move(cold_dir)  # empty cache: everything compiles
            warm = first_move(cold_dir)  # the cache the cold run wrote
            shallow = first_move(cold_dir, ("INFO max_depth 1",))  # start-up alone
            rows.append((cold, warm, shallow))
    print(f"{'run':<5}{'cold s':>9}{'cold MiB':>10}{'warm s':>9}{'warm MiB':>10}"
          f"{'warm depth-1 s':>16}")
    for run, ((cold_s, cold_mib), (warm_s, warm_mib), (shallow_s, _)) in enumerate(rows):
        print(f"{run:<5}{cold_s:>9.2f}{cold_mib:>10.0f}{warm_s:>9.2f}{warm_mib:>10.0f}"
              f"{shallow_s:>16.2f}")
    print("seconds from process start to the first move (START, INFOs and BOARD with a 3-stone "
          "opening sent at once; timeout_turn 5000 ms, so cold and warm include the search); "
          "depth-1 isolates start-up; peak RSS from /proc VmHWM")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot.bench", description=__doc__)
    parser.add_argument("what", choices=["core", "startup", "search", "tactics", "threats",
                                         "executable"],
                        help="which benchmark to run")
    parser.add_argument("path", nargs="?", default="dist/pbrain-sente",
                        help="the frozen brain, for 'executable'")
    parser.add_argument("--rounds", type=int, default=20, help="passes over each position")
    parser.add_argument("--runs", type=int, default=2, help="start-up runs (cold + warm each)")
    parser.add_argument("--nodes", type=int, default=10_000_000,
                        help="node limit of each threat solver, for 'threats'")
    args = parser.parse_args(argv)
    if args.what == "core":
        core(args.rounds)
    elif args.what == "search":
        search_signature()
    elif args.what == "tactics":
        tactics()
    elif args.what == "threats":
        threat_solvers(args.nodes)
    elif args.what == "executable":
        executable(args.path, args.runs)
    else:
        startup(args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
