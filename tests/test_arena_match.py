"""The match runner: referee outcomes with misbehaving brains, records, statistics."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import pytest

from bot.core.board import Board
from bot.warmup import exercise_every_kernel
from protocol.arena import match, records, stats
from protocol.arena.client import BrainClient, EngineSpec
from protocol.arena.openings import generate

FAKE = str(Path(__file__).parent / "fakebrain.py")
FAST = match.MatchSettings(timeout_turn_ms=300, tolerance_ms=700, max_memory=150 * 2**20)


def fake(mode: str) -> EngineSpec:
    return EngineSpec(mode, (sys.executable, FAKE, mode))


def job(black: EngineSpec, white: EngineSpec, settings: match.MatchSettings = FAST,
        opening: tuple = ((7, 7), (8, 8), (6, 8))) -> match.GameJob:
    return match.GameJob(0, 0, black, white, opening, settings, True)


@pytest.mark.parametrize("mode, cause", [
    ("crash", "crash"), ("hang", "timeout"), ("late", "timeout"), ("occupied", "illegal"),
    ("offboard", "illegal"), ("leak", "memory"),
])
def test_each_failure_is_recorded_with_its_cause(mode: str, cause: str) -> None:
    # after a 3-stone opening white moves first, so the misbehaving brain plays white; only the
    # timeouts are tested against FAST's second: the other brains get half a minute, so that a
    # loaded machine (start-up, 200 MB written) cannot turn their fault into a timeout
    settings = FAST if cause == "timeout" else dataclasses.replace(FAST, tolerance_ms=30_000)
    record = match.play_game(job(fake("good"), fake(mode), settings))
    assert (record.winner, record.cause) == (1, cause), record


def test_a_first_move_is_not_charged_for_the_opponents_first_move() -> None:
    # after a 3-stone opening white moves first and takes 1.5 s of a 3 s limit; black's clock
    # for its own first move (start-up included) starts when its turn comes, as GomocupJudge
    # keeps it suspended until then, so black is charged its start-up and answer, not 1.5 s
    settings = dataclasses.replace(FAST, tolerance_ms=2700, adjudicate=6)
    record = match.play_game(job(fake("good"), fake("slowstart"), settings))
    assert record.cause == "adjudicated", record
    white_first, black_first = record.moves[0][2], record.moves[1][2]
    assert white_first >= 1500 and black_first < 1500, record.moves


def test_junk_lines_are_skipped_and_the_game_goes_on() -> None:
    record = match.play_game(job(fake("junk"), fake("good"),
                                 match.MatchSettings(timeout_turn_ms=300, adjudicate=12)))
    assert record.cause == "adjudicated" and record.winner == 0
    assert len(record.moves) == 12


def test_renju_fouls_by_black_lose() -> None:
    settings = match.MatchSettings(rule=4, timeout_turn_ms=300)
    # black's next "good" move (the centre-nearest empty cell) is (7,7): a double three here
    opening = ((6, 7), (0, 0), (7, 6), (14, 0), (7, 8), (0, 14), (8, 7), (14, 14))
    record = match.play_game(job(fake("good"), fake("good"), settings, opening))
    assert (record.winner, record.cause, record.detail) == (2, "forbidden", "7,7")


def test_a_match_goes_on_after_crashes_and_keeps_every_record(tmp_path: Path) -> None:
    openings = [((7, 7), (8, 8), (6, 8))]
    jobs = match.schedule(fake("crash"), fake("good"), openings, 4, FAST, 1, False, False)
    state = match.run_match(jobs, 2, tmp_path, None, pgn=True, progress=False)
    assert len(state.games) == 4
    assert all(g.cause == "crash" for g in state.games)
    assert sum(state.points(g) for g in state.games) == 0
    lines = (tmp_path / "results.jsonl").read_text().splitlines()
    assert len(lines) == 4 and json.loads(lines[0])["cause"] == "crash"
    assert (tmp_path / "games.pgn").read_text().count("[Result ") == 4
    text = match.summary(state, None)
    assert "crash" in text and "elo" in text


def test_a_short_match_between_two_sente_brains(tmp_path: Path) -> None:
    # The brains load the kernels from numba's cache; on a fresh clone this file runs before
    # anything has filled it, and compiling at the first move would overrun any turn limit.
    # What is checked is the records, not the clock: the tolerance leaves each brain half a
    # minute a move: beside the other test worker, on a slow day, a move took over 6 s (both
    # games lost on time by White, session 57; the test alone passed in 16 s).
    exercise_every_kernel()
    out = tmp_path / "m"
    match.main(["--selfplay", "", "branch=8", "--games", "2", "--concurrency", "2",
                       "--timeout-turn", "200", "--tolerance", "30000", "--out", str(out),
                       "--quiet", "--pgn",
                       "--symmetry", "--seed", "3"])
    games = sorted((out / "games").glob("*.sgf"))
    assert len(games) == 2
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    for result in results:
        stem = out / "games" / f"{result['index'] + 1:05d}"
        sgf_moves = records.parse_sgf_moves(stem.with_suffix(".sgf").read_text())
        width, height, psq_moves = records.parse_psq(stem.with_suffix(".psq").read_text())
        assert (width, height) == (15, 15) and sgf_moves == psq_moves
        board = Board(15, 15, 0)
        won = False
        for x, y, _ in sgf_moves:
            assert not won
            won = board.play(x, y)
        assert won == (result["cause"] == "five")
        assert result["cause"] in ("five", "full_board")
    assert "pairs 1" in (out / "summary.txt").read_text()


def _canonical_image(opening: tuple[tuple[int, int], ...],
                     size: int) -> tuple[frozenset[tuple[int, int]], ...]:
    """The opening's black and white stones in whichever of the board's 8 symmetries sorts
    first: the same for every image of the opening."""
    images = []
    for turn in range(8):
        cells = [(x, y) if turn < 4 else (y, x) for x, y in opening]
        cells = [(size - 1 - x if turn & 1 else x, size - 1 - y if turn & 2 else y)
                 for x, y in cells]
        images.append((frozenset(cells[0::2]), frozenset(cells[1::2])))
    return min(images, key=lambda image: (sorted(image[0]), sorted(image[1])))


def test_openings_in_both_formats() -> None:
    assert match.parse_opening("-1,0, 0,0, 1,1", 15, 15) == ((6, 7), (7, 7), (8, 8))
    assert match.parse_opening("h8i9", 15, 15) == ((7, 7), (8, 6))
    for size in (15, 20):
        openings = match.load_openings("builtin", size, size)
        assert len(openings) >= 8 and all(len(o) == 3 for o in openings)
        # the balanced sets load (on the board, no repeated cell: load_openings checks) and
        # hold no opening twice in any symmetry of the board
        balanced = match.load_openings(str(match.OPENINGS_DIR / f"balanced_{size}x{size}.txt"),
                                       size, size)
        classes = {_canonical_image(opening, size) for opening in balanced}
        assert len(balanced) >= 40 and len(classes) == len(balanced)


def test_schedule_plays_each_opening_with_both_colours() -> None:
    a, b = fake("good"), fake("crash")
    openings = [((7, 7),), ((6, 6),), ((5, 5),)]
    jobs = match.schedule(a, b, openings, 6, FAST, 5, True, True)
    assert [j.pair for j in jobs] == [0, 0, 1, 1, 2, 2]
    for first, second in zip(jobs[::2], jobs[1::2]):
        assert first.opening == second.opening
        assert (first.black, first.white) == (second.white, second.black)
    again = match.schedule(a, b, openings, 6, FAST, 5, True, True)
    assert [j.opening for j in again] == [j.opening for j in jobs]


def test_elo_estimate_and_sprt() -> None:
    assert stats.elo_from_score(0.5) == 0
    assert abs(stats.elo_from_score(stats.score_from_elo(100)) - 100) < 1e-9
    est = stats.estimate([2, 1, 1.5, 1, 0.5, 2, 1.5, 1])
    assert est.pentanomial == (0, 1, 3, 2, 2)
    assert est.elo_low < est.elo < est.elo_high and est.elo > 0 and est.los > 0.9
    sprt = stats.Sprt(0, 20, 0.05, 0.05)
    assert sprt.decision([2.0, 1.5] * 100) == "H1"
    assert sprt.decision([0.0, 0.5] * 100) == "H0"
    assert sprt.decision([1.0, 1.5, 0.5]) is None
    # a few equal pairs (zero variance) decide nothing; many equal pairs accept H0
    assert sprt.decision([1.0, 1.0]) is None and sprt.decision([1.0] * 10) is None
    assert stats.Sprt(0, 30, 0.05, 0.05).decision([1.0] * 2000) == "H0"


def test_openings_judged_by_a_brain_keep_the_most_balanced() -> None:
    """The judge's printed evaluations decide (for the side to move: with three stones white,
    one stone against two), mates count as far from balanced, and the judge is closed."""
    judge = BrainClient(fake("judge"))
    try:
        score = generate.judge_scores(15, judge, 100)
        one_each = ((0, 0), (1, 1))
        three = ((0, 0), (1, 1), (2, 2))
        four = ((0, 0), (1, 1), (2, 2), (3, 3))
        six = ((0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (5, 5))
        assert [score(o) for o in (one_each, three, four)] == [0, -10, 0]
        assert score(six) == generate.MATE_SCORE - 7
        kept = generate.balanced_openings([six, three, one_each], 2, score)
        assert kept == [(0, (0, 0, 1, 1)), (10, (0, 0, 1, 1, 2, 2))]
    finally:
        judge.close()
    assert not judge.alive
