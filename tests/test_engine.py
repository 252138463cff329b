"""Every way a search ends: each gives a legal move and says why it ended, by flags and node
counts, never by how long it took."""

from __future__ import annotations

import threading

import pytest

from bot import engine as engine_module
from bot.core import tt
from bot.engine import MAX_DEPTH, SWAP2_MARGIN, Engine
from bot.limits import Limits
from bot.timeman import Budget

UNHURRIED = Limits(timeout_turn_ms=600_000)  # ten minutes: only the limit under test can end it
OPENING = [(7, 7, 1), (8, 8, 2), (7, 8, 1), (6, 6, 2)]


def engine_at(stones: list[tuple[int, int, int]] = OPENING, rule: int = 0) -> Engine:
    engine = Engine()
    engine.new_game(15, 15, rule)
    engine.setup(stones)
    return engine


def assert_legal(engine: Engine, move: tuple[int, int]) -> None:
    board = engine.require_board()
    assert board.is_legal(*move, board.side_to_move()), move


@pytest.mark.pure_python
def test_the_depth_limit_ends_the_search_after_that_iteration() -> None:
    engine = engine_at()
    result = engine.think(Limits(timeout_turn_ms=600_000, max_depth=3))
    assert (result.depth, result.stopped_by) == (3, "depth")
    assert_legal(engine, result.move)


@pytest.mark.parametrize("limit", [300, 5000, 40000])
def test_the_node_limit_ends_the_search_at_that_count(limit: int) -> None:
    engine = engine_at()
    result = engine.think(Limits(timeout_turn_ms=600_000, max_nodes=limit))
    assert result.stopped_by == "nodes"
    # the main search stops at the limit; a VCF probe already under way may add a few nodes
    assert limit <= result.nodes <= limit + 200
    assert_legal(engine, result.move)


def test_the_timer_stops_a_search_that_nothing_else_would_end(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # no soft budget, no depth or node limit: only the hard timer can end this search
    monkeypatch.setattr(engine_module.timeman, "budget",
                        lambda limits, optimum_percent: Budget(optimum_ms=float("inf"),
                                                               maximum_ms=150.0))
    engine = engine_at()
    result = engine.think(UNHURRIED)
    assert result.stopped_by == "time"
    assert 0 < result.depth < MAX_DEPTH
    assert_legal(engine, result.move)


def test_a_stop_from_another_thread_ends_a_running_search() -> None:
    engine = engine_at()
    deep_enough = threading.Event()
    results = []

    def think() -> None:
        results.append(engine.think(UNHURRIED, lambda info: info.depth >= 2 and deep_enough.set()))

    thinker = threading.Thread(target=think)
    thinker.start()
    assert deep_enough.wait(120)
    engine.stop()
    thinker.join(120)
    assert not thinker.is_alive()
    [result] = results
    assert result.stopped_by == "request" and result.depth >= 2
    assert_legal(engine, result.move)


@pytest.mark.pure_python
def test_a_stop_sent_before_the_search_starts_still_stops_it() -> None:
    # the brain numbers its input lines: TURN is line 4, the YXSTOP sent with it line 5, and
    # the reader thread passes the stop on before the search for line 4 has started
    engine = engine_at()
    engine.stop(issued_at=5)
    result = engine.think(UNHURRIED, request=4)
    assert (result.stopped_by, result.depth) == ("request", 0)
    assert_legal(engine, result.move)


def test_a_stop_sent_while_idle_does_not_stop_the_next_search() -> None:
    engine = engine_at()
    engine.stop(issued_at=5)  # YXSTOP at line 5 with nothing to stop
    later = engine.think(Limits(timeout_turn_ms=600_000, max_depth=3), request=6)
    assert (later.stopped_by, later.depth) == ("depth", 3)
    engine.stop()  # no line number: only a running search would stop
    again = engine.think(Limits(timeout_turn_ms=600_000, max_depth=3))
    assert (again.stopped_by, again.depth) == ("depth", 3)


def test_every_stop_still_avoids_renju_fouls_for_black() -> None:
    # black to move with a double-three point at (7,7) ringed by its own stones
    stones = [(6, 7, 1), (0, 0, 2), (7, 6, 1), (14, 0, 2), (7, 8, 1), (0, 14, 2), (8, 7, 1),
              (14, 14, 2)]
    for limits, stop_first in ((Limits(max_nodes=50, timeout_turn_ms=600_000), False),
                               (UNHURRIED, True), (Limits(max_depth=1), False)):
        engine = engine_at(stones, rule=4)
        if stop_first:
            engine.stop(issued_at=2)
        result = engine.think(limits, request=1)
        assert engine.require_board().foul(*result.move) == 0
        assert_legal(engine, result.move)


@pytest.mark.pure_python
def test_new_game_starts_from_an_empty_table() -> None:
    """A position searched after new_game costs exactly what it costs a fresh engine: no entry
    of the previous game can cut the search short."""
    limits = Limits(timeout_turn_ms=600_000, max_depth=4)
    fresh = engine_at().think(limits)
    engine = engine_at()
    engine.think(limits)
    engine.new_game(15, 15, 0)
    engine.setup(OPENING)
    again = engine.think(limits)
    assert (again.nodes, again.move, again.score) == (fresh.nodes, fresh.move, fresh.score)


@pytest.mark.pure_python
def test_a_rule_change_keeps_the_stones_and_starts_from_an_empty_table() -> None:
    limits = Limits(timeout_turn_ms=600_000, max_depth=4)
    fresh = engine_at(rule=4).think(limits)
    engine = engine_at(rule=0)
    engine.think(limits)
    engine.set_rule(4)
    board = engine.require_board()
    assert board.rule == 4 and board.moves() == [(x, y) for x, y, _ in OPENING]
    again = engine.think(limits)
    assert (again.nodes, again.move, again.score) == (fresh.nodes, fresh.move, fresh.score)


def test_a_table_too_big_for_the_machine_falls_back_to_one_that_fits() -> None:
    engine = engine_at()
    engine.set_memory(hash_mib=100_000_000)  # about 95 TiB
    assert 0 < engine.table_bytes() <= 2**40
    result = engine.think(Limits(timeout_turn_ms=600_000, max_depth=2))
    assert result.stopped_by == "depth"


RSS_GROWTH = """
import psutil
from bot.core import tt
process = psutil.Process()
before = process.memory_info().rss
keys, data = tt.new_table(2**22, resident={resident})  # 128 MiB
print((process.memory_info().rss - before) / tt.table_bytes(keys, data))
"""


@pytest.mark.parametrize("resident", [True, False])
def test_a_new_table_is_resident_from_the_start_only_when_asked(resident: bool) -> None:
    """So what the process measures before a search is what it uses once the table is full.
    Measured in a fresh process: in this one, memory freed by earlier tests may be reused."""
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-c", RSS_GROWTH.format(resident=resident)],
                         capture_output=True, text=True, check=True)
    share = float(run.stdout.strip())
    assert share >= 0.95 if resident else share <= 0.05, share


def test_the_table_fits_under_max_memory_with_the_rest_of_the_process() -> None:
    import psutil

    engine = engine_at()
    engine.think(Limits(timeout_turn_ms=600_000, max_depth=2))  # every kernel loaded
    engine.set_memory(hash_mib=1)
    engine.table_bytes()
    used = psutil.Process().memory_info().rss
    limit = used + 64 * 2**20  # room for a 16 MiB table beside the 48 MiB headroom
    engine.set_memory(max_memory=limit, hash_mib=4096)
    assert 2 * 2**20 <= engine.table_bytes() <= 16 * 2**20
    assert psutil.Process().memory_info().rss <= limit


SWAP2_LIMITS = Limits(timeout_turn_ms=600_000, max_depth=4)


def swap2_after(stones: list[tuple[int, int]]) -> tuple[Engine, object]:
    engine = Engine()
    engine.new_game(15, 15, 0)
    engine.setup([(x, y, 1 if i % 2 == 0 else 2) for i, (x, y) in enumerate(stones)])
    return engine, engine.swap2(SWAP2_LIMITS)


def test_swap2_proposes_three_stones_around_the_centre() -> None:
    engine, answer = swap2_after([])
    assert not answer.swap and len(answer.stones) == 3
    board = engine.require_board()
    assert [board.stone(*p) for p in answer.stones] == [1, 2, 1]
    assert all(abs(x - 7) <= 2 and abs(y - 7) <= 2 for x, y in answer.stones)


def test_the_proposed_opening_is_the_most_balanced_of_the_26() -> None:
    engine = Engine()
    engine.new_game(15, 15, 0)
    opening, score = engine.balanced_opening(SWAP2_LIMITS)
    assert abs(score) <= SWAP2_MARGIN and engine.require_board().ply == 0
    # searched one by one, no other opening is nearer 0 (a fresh engine for each search)
    scores = {}
    for white in ((8, 7), (8, 6)):
        for x in range(5, 10):
            for y in range(5, 10):
                if (x, y) not in ((7, 7), white):
                    fresh = Engine()
                    fresh.new_game(15, 15, 0)
                    fresh.setup([(7, 7, 1), (*white, 2), (x, y, 1)])
                    scores[fresh.require_board().canonical_key()[0]] = (
                        fresh.think(SWAP2_LIMITS).score)
    assert len(scores) == 26
    assert abs(score) <= min(abs(s) for s in scores.values())


@pytest.mark.parametrize("stones", [
    [(7, 7), (0, 14), (8, 8)],  # black's two central stones against a white stone in a corner
    [(6, 7), (0, 0), (7, 7), (14, 14), (8, 7)],  # black's open three, white's stones in corners
], ids=["three", "five"])
def test_swap2_takes_black_when_black_is_clearly_better(stones: list[tuple[int, int]]) -> None:
    engine, answer = swap2_after(stones)
    assert answer.swap and not answer.stones
    assert engine.require_board().ply == len(stones)  # nothing played


@pytest.mark.parametrize("stones", [
    [(0, 0), (7, 7), (14, 14)],  # black's stones in corners, white's in the centre
    [(0, 0), (7, 7), (14, 0), (8, 8), (0, 14)],
], ids=["three", "five"])
def test_swap2_keeps_white_and_plays_when_white_is_better(stones: list[tuple[int, int]]) -> None:
    engine, answer = swap2_after(stones)
    assert not answer.swap and len(answer.stones) == 1
    board = engine.require_board()
    assert board.stone(*answer.stones[0]) == 2 and board.ply == len(stones) + 1


def test_swap2_proposes_two_more_stones_when_the_three_are_balanced() -> None:
    engine, answer = swap2_after([(7, 7), (8, 6), (8, 8)])
    assert not answer.swap and len(answer.stones) == 2
    board = engine.require_board()
    assert [board.stone(*p) for p in answer.stones] == [2, 1] and board.ply == 5
