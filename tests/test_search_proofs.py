"""What a search may call proven, and what it keeps when it is stopped."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from bot import driver
from bot.config import Config
from bot.core import searchstate
from bot.core.board import Board
from bot.core.score import MATE_BOUND
from bot.core.shapes import WHITE
from bot.core.threats import scan_threats
from bot.engine import Engine
from bot.limits import Limits
from tests import naive
from tests.conftest import PURE_PYTHON, scaled


# Every pruning rule off: all moves at full depth, leaf VCFs without a node budget (and the
# leaves' double-three wins on, so that the comparisons with plain searches cover them).
EXACT = Config(branch=1024, history=False, killers=False, lmr_moves=0, move_count=0,
               futility_margin=0, razor_margin=0, leaf_vcf_nodes=0, leaf_double_three=True)


def random_position(rng: random.Random, stones: int) -> list[tuple[int, int, int]]:
    """Stones scattered in the central 9x9 square, colours alternating (black first)."""
    placed: list[tuple[int, int, int]] = []
    taken: set[tuple[int, int]] = set()
    while len(placed) < stones:
        x, y = 7 + rng.randint(-4, 4), 7 + rng.randint(-4, 4)
        if (x, y) not in taken:
            taken.add((x, y))
            placed.append((x, y, 1 + len(placed) % 2))
    return placed


def test_every_mate_score_is_confirmed_by_a_search_without_the_branching_cap() -> None:
    # Seeded positions; with the cap's left-out moves counted as losses, position 180 was
    # "lost" (-29994) at depth 3 although the uncapped search finds -1979.
    rng = random.Random(5)
    # the threat-space search is off: its wins lie beyond the depth the check searches
    capped = Engine(Config(vct_nodes_per_ms=0))
    uncapped = Engine(replace(EXACT, vct_nodes_per_ms=0))
    claims = 0
    for _ in range(scaled(300)):
        stones = random_position(rng, rng.randint(6, 30))
        limits = Limits(timeout_turn_ms=600_000, max_depth=rng.choice((3, 4)))
        capped.new_game(15, 15, 0)
        capped.setup(stones)
        if capped.require_board().is_full():
            continue
        result = capped.think(limits)
        if abs(result.score) <= MATE_BOUND:
            continue
        claims += 1
        uncapped.new_game(15, 15, 0)
        uncapped.setup(stones)
        check = uncapped.think(limits)
        if result.score > MATE_BOUND:
            assert check.score > MATE_BOUND, (stones, result, check)
        else:
            assert check.score < -MATE_BOUND, (stones, result, check)
    assert claims >= scaled(300) // 15


@pytest.mark.pure_python
def test_a_stopped_iteration_keeps_the_win_a_pass_had_proved(
        monkeypatch: pytest.MonkeyPatch) -> None:
    board = Board(15, 15, 0)
    # black's open three on row 7 and black to move: (4,7) or (8,7) makes an open four
    board.setup([(5, 7, 1), (0, 0, 2), (6, 7, 1), (14, 0, 2), (7, 7, 1), (0, 14, 2)])
    ss = searchstate.new_search_state(1 << 12, Config().as_array(),
                                       Config().order_values)
    real = driver.alphabeta
    proved: list[int] = []

    def stop_after_a_proof(st, search, depth, beta, ply, colour):  # type: ignore[no-untyped-def]
        if proved:  # a stop arrives during the pass after the proof
            search.ctrl[searchstate.C_STOP] = 1
        value = real(st, search, depth, beta, ply, colour)
        if value > MATE_BOUND:
            proved.append(value)
        return value

    monkeypatch.setattr(driver, "alphabeta", stop_after_a_proof)
    iterations = list(driver.iterate(board, ss, 1, 10))
    assert len(iterations) == 1
    [last] = iterations
    assert last.score > MATE_BOUND and not last.complete
    assert board.point(last.best_cell) in {(4, 7), (8, 7)}


def _stop_at_depth(monkeypatch: pytest.MonkeyPatch, depth: int, after_fail_high: bool
                   ) -> list[tuple[int, int]]:
    """Stop the search during the iteration of ``depth``: at its first pass, or at the pass
    after the first one that proved a lower bound.  Returns the (bound, root move) of each
    fail-high pass of that iteration."""
    real = driver.alphabeta
    proved: list[tuple[int, int]] = []

    def stopping(st, search, d, beta, ply, colour):  # type: ignore[no-untyped-def]
        if d == depth and (proved or not after_fail_high):
            search.ctrl[searchstate.C_STOP] = 1
        value = real(st, search, d, beta, ply, colour)
        if d == depth and value >= beta and not search.ctrl[searchstate.C_STOP]:
            proved.append((value, int(search.ctrl[searchstate.C_BEST])))
        return value

    monkeypatch.setattr(driver, "alphabeta", stopping)
    return proved


QUIET = [(7, 7, 1), (8, 8, 2), (6, 8, 1), (8, 6, 2), (9, 7, 1), (6, 6, 2)]


@pytest.mark.parametrize("after_fail_high", [True, False])
def test_a_stopped_iteration_keeps_the_move_a_pass_had_proved_best(
        monkeypatch: pytest.MonkeyPatch, after_fail_high: bool) -> None:
    board = Board(15, 15, 0)
    board.setup(QUIET)
    ss = searchstate.new_search_state(1 << 14, Config().as_array(), Config().order_values)
    proved = _stop_at_depth(monkeypatch, 4, after_fail_high)
    iterations = list(driver.iterate(board, ss, board.side_to_move(), 10))
    assert [it.complete for it in iterations[:3]] == [True, True, True]
    assert all(-MATE_BOUND < it.score < MATE_BOUND for it in iterations)
    if after_fail_high:  # the move that proved a bound at depth 4 is the one to play
        assert len(iterations) == 4 and not iterations[3].complete
        assert (iterations[3].score, iterations[3].best_cell) == proved[-1]
    else:  # nothing proved at depth 4: depth 3's move stands
        assert len(iterations) == 3 and proved == []


@pytest.mark.pure_python
def test_a_renju_three_whose_four_points_are_fouls_does_not_bind_white() -> None:
    board = Board(15, 15, 4)
    # black's three on row 7 (3..5): each open-four point, (2,7) and (6,7), also completes a
    # four on a column (2,4..6 and 6,8..10, each closed by white), so both are double fours
    black = [(3, 7), (4, 7), (5, 7), (2, 4), (2, 5), (2, 6), (6, 8), (6, 9), (6, 10)]
    white = [(2, 3), (6, 11), (12, 12), (13, 0), (0, 13), (14, 5), (10, 14), (14, 9)]
    board.setup([(x, y, 1) for x, y in black] + [(x, y, 2) for x, y in white])
    assert board.side_to_move() == WHITE
    assert board.foul(2, 7) and board.foul(6, 7)
    assert not scan_threats(board.state, WHITE, True)[4]
    # ... while the same three with one legal four-point binds white
    board.remove(6, 10)
    assert not board.foul(6, 7)
    board.play(14, 14, 1)  # keep the stone counts
    assert scan_threats(board.state, WHITE, True)[4]


def test_history_and_killers_change_the_order_not_the_value() -> None:
    """Without the branching cap and reductions, the heuristics only reorder moves: the scores
    are the same."""
    rng = random.Random(1)
    plain = Engine(EXACT)
    ordered = Engine(replace(EXACT, history=True, killers=True))
    limits = Limits(timeout_turn_ms=600_000, max_depth=3)
    for _ in range(scaled(40)):
        stones = random_position(rng, rng.randint(4, 16))
        results = []
        for engine in (plain, ordered):
            engine.new_game(15, 15, 0)
            engine.setup(stones)
            results.append(engine.think(limits))
        assert results[0].score == results[1].score, stones


@pytest.mark.pure_python
@pytest.mark.parametrize("depth", [1, 2, pytest.param(3, marks=pytest.mark.skipif(
    PURE_PYTHON, reason="the depth-3 reference takes minutes as plain Python"))])
def test_mtdf_converges_to_the_full_window_value(depth: int) -> None:
    """Same move generator and node rules, no window, no table: the same value.  No branching
    cap (with one, the table's move bonus can reorder equal moves at the cut) and no history
    or killer moves, so every node has the same moves in both searches; 9x9 keeps it small."""
    rng = random.Random(depth)
    settings = EXACT
    engine = Engine(settings)
    reference = searchstate.new_search_state(1 << 10, settings.as_array(),
                                              settings.order_values)
    compared = 0
    positions = scaled(4 if depth == 3 else 8)  # the depth-3 reference is the slow one
    for _ in range(positions):
        # the central 9x9 square of random_position's 15x15 board, moved to a 9x9 board
        stones = [(x - 3, y - 3, c) for x, y, c in random_position(rng, rng.randint(3, 10))]
        engine.new_game(9, 9, 0)
        engine.setup(stones)
        board = engine.require_board()
        expected = naive.full_window_search(board, reference, depth, 0, board.side_to_move())
        result = engine.think(Limits(timeout_turn_ms=600_000, max_depth=depth))
        if result.depth == depth:  # a proven win ends the deepening early
            assert result.score == expected, stones
            compared += 1
    assert compared >= positions // 2


@pytest.mark.parametrize("pruning", [{"lmr_moves": 3}, {"lmr_moves": 3, "lmr_log": 100},
                                     {"move_count": 2},
                                     {"futility_margin": 100}, {"razor_margin": 50}])
def test_each_pruning_rule_searches_fewer_nodes_and_never_claims_a_loss_alone(
        pruning: dict[str, int]) -> None:
    """Late-move reductions (both shapes), move-count pruning, reverse futility and razoring,
    each alone: the same depth costs fewer nodes; a win the exact search proves on these seeded positions is still
    proven, and a loss is claimed only where the exact search proves it too (no rule may make
    a proof of its own)."""
    rng = random.Random(8)
    exact, pruned = Engine(EXACT), Engine(replace(EXACT, **pruning))
    limits = Limits(timeout_turn_ms=600_000, max_depth=4)
    nodes = {"exact": 0, "pruned": 0}
    for _ in range(scaled(12)):
        stones = random_position(rng, rng.randint(6, 14))
        results = {}
        for name, engine in (("exact", exact), ("pruned", pruned)):
            engine.new_game(15, 15, 0)
            engine.setup(stones)
            results[name] = engine.think(limits)
            nodes[name] += results[name].nodes
        if results["exact"].score > MATE_BOUND:
            assert results["pruned"].score > MATE_BOUND, stones
        if results["pruned"].score < -MATE_BOUND:
            assert results["exact"].score < -MATE_BOUND, stones
    assert nodes["pruned"] < 0.8 * nodes["exact"], nodes


def test_the_singular_extension_searches_deeper_and_proves_only_what_is_proven() -> None:
    """The table move searched a ply deeper when no other move comes near it: more nodes at
    the same depth; a win the exact search proves is still proven; and every win or loss it
    claims, the exact search proves one ply deeper (one extension at most along a line from a
    depth-3 root: only nodes with at least 2 plies left and not the root are extended)."""
    rng = random.Random(9)
    extended = Engine(replace(EXACT, singular_depth=2, singular_margin=0))
    exact = Engine(EXACT)
    nodes = {"exact": 0, "extended": 0}
    claims = 0
    for _ in range(scaled(24)):
        stones = random_position(rng, rng.randint(12, 24))
        results = {}
        for name, engine, depth in (("exact", exact, 3), ("extended", extended, 3),
                                    ("deeper", exact, 4)):
            engine.new_game(15, 15, 0)
            engine.setup(stones)
            results[name] = engine.think(Limits(timeout_turn_ms=600_000, max_depth=depth))
        nodes["exact"] += results["exact"].nodes
        nodes["extended"] += results["extended"].nodes
        if results["exact"].score > MATE_BOUND:
            assert results["extended"].score > MATE_BOUND, stones
        if abs(results["extended"].score) > MATE_BOUND:
            claims += 1
            assert results["deeper"].score * results["extended"].score > 0, stones
            assert abs(results["deeper"].score) > MATE_BOUND, stones
    assert nodes["extended"] > 1.1 * nodes["exact"], nodes
    assert claims > 0
