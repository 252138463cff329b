"""Tactics through the engine facade: wins in one, blocks, open threes, VCF puzzles."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

import numpy as np
import pytest

from bot.config import Config
from bot.core.board import Board
from bot.core import searchstate
from bot.core.score import MATE_BOUND
from bot.core.movepick import refute_root_moves
from bot.core.shapes import C_FIVE, C_FOUR, C_OPEN_THREE
from bot.core import threats
from bot.core.threats import (
    double_three_win, leaf_vcf, scan_threats, threat_defences, vcf, vcf_line, vct,
)
from bot.engine import Engine
from bot.limits import Limits
from tests import naive
from tests.conftest import DATA, PURE_PYTHON, clustered_position, scaled

pytestmark = pytest.mark.pure_python

# Depth, not time, bounds every search here, so a slow machine cannot change an outcome.
QUICK = Limits(timeout_turn_ms=600_000, max_depth=4)


def engine_with(rule: int, black: list, white: list, size: int = 15) -> Engine:
    engine = Engine()
    engine.new_game(size, size, rule)
    engine.setup([(x, y, 1) for x, y in black] + [(x, y, 2) for x, y in white])
    return engine


@pytest.mark.parametrize("rule", [0, 1, 4, 8, 9])
def test_takes_a_win_in_one(rule: int) -> None:
    engine = engine_with(rule, [(3, 3), (4, 3), (5, 3), (6, 3)], [(3, 5), (4, 5), (5, 9), (9, 9)])
    assert engine.think(QUICK).move in {(2, 3), (7, 3)}


@pytest.mark.parametrize("rule", [0, 1, 4, 8, 9])
def test_blocks_a_four(rule: int) -> None:
    engine = engine_with(rule, [(7, 7), (8, 8), (9, 9), (10, 10), (1, 13)],
                         [(6, 6), (3, 12), (12, 3), (13, 1)])
    assert engine.think(QUICK).move == (11, 11)


@pytest.mark.parametrize("rule", [0, 1, 4])
def test_answers_an_open_three_on_its_line(rule: int) -> None:
    engine = engine_with(rule, [(6, 7), (7, 7), (8, 7)], [(3, 3), (12, 12)])
    move = engine.think(QUICK).move
    assert move[1] == 7 and 3 <= move[0] <= 10


def test_white_exploits_a_forbidden_block_in_renju() -> None:
    # White's four at row 5 has its only completion (7,7), a double-three point for black,
    # so black cannot block: white wins with the four.
    black = [(6, 7), (7, 6), (7, 8), (8, 7), (0, 0), (14, 14)]
    white = [(3, 3), (4, 4), (5, 5), (11, 0), (12, 0), (13, 14)]
    engine = engine_with(4, black, white)
    # white to move (counts equal: 6 and 6 means black to move; add a black stone far away)
    engine.play(0, 14, 1)
    result = engine.think(QUICK)
    assert result.move == (6, 6) and result.score > MATE_BOUND


@pytest.mark.skipif(PURE_PYTHON, reason="six renju searches: minutes as plain Python")
def test_never_plays_a_forbidden_point_as_black() -> None:
    engine = engine_with(4, [(6, 7), (7, 6), (7, 8), (8, 7)], [(0, 0), (14, 0), (0, 14), (14, 14)])
    for _ in range(3):
        result = engine.think(QUICK)
        assert engine.board.foul(*result.move) == 0
        engine.play(*result.move)
        engine.play(*engine.think(QUICK).move)


def all_puzzles(task: str) -> list[dict]:
    lines = (DATA / "renju_puzzles_quintet_mit.jsonl").read_text().splitlines()
    return [case for case in map(json.loads, filter(None, lines)) if case["task"] == task]


def puzzles(task: str) -> list[dict]:
    return [c for c in all_puzzles(task) if c["answers"].get("attacker_moves", 99) <= 20]


@pytest.mark.parametrize("case", puzzles("vcf"), ids=lambda c: c["id"])
def test_vcf_puzzles_are_solved_by_the_vcf_kernel(case: dict) -> None:
    engine = engine_with(4, case["black"], case["white"])
    colour = 1 if case["to_move"] == "black" else 2
    moves = case["answers"]["attacker_moves"]
    # within as many fours as the published line has attacker moves, a win is found ...
    assert vcf(engine.board.state, engine._search, colour, moves) > 0
    # ... and where the source claims its line is the shortest, two fours fewer find nothing
    if case["answers"].get("minimal_depth_claimed"):
        assert vcf(engine.board.state, engine._search, colour, moves - 2) == 0


@pytest.mark.parametrize("case", [c for c in puzzles("vcf") if c["counts_consistent_with_to_move"]],
                         ids=lambda c: c["id"])
def test_engine_plays_a_winning_first_move_in_vcf_puzzles(case: dict) -> None:
    engine = engine_with(4, case["black"], case["white"])
    result = engine.think(QUICK)
    assert result.score > MATE_BOUND
    engine.play(*result.move)
    # after the attacker's move the defender is lost whatever it does
    reply = engine.think(QUICK)
    assert reply.score < -MATE_BOUND, (result, reply)


@pytest.mark.parametrize("case", [c for c in all_puzzles("vct")
                                  if c["id"] in ("quintet-01", "quintet-08", "quintet-09",
                                                  "quintet-10", "quintet-12", "quintet-21")],
                         ids=lambda c: c["id"])
def test_vct_finds_the_published_first_move_of_threat_puzzles(case: dict) -> None:
    # the six VCT puzzles the kernel solves within 8 threats (the other five need more)
    engine = engine_with(4, case["black"], case["white"])
    board = engine.require_board()
    plies, cell = vct(board.state, engine._search, board.side_to_move(), 8, 200_000, 0)
    assert plies > 0
    assert list(board.point(cell)) in case["answers"]["winning_first_moves_known"]


def test_a_forgotten_memo_makes_the_threat_search_find_what_a_fresh_one_finds() -> None:
    case = next(c for c in all_puzzles("vct") if c["id"] == "quintet-08")
    engine = engine_with(4, case["black"], case["white"])
    board, search = engine.require_board(), engine._search
    ctrl = search.ctrl

    def solve() -> tuple[tuple[int, int], int]:
        found = vct(board.state, search, board.side_to_move(), 8, 200_000, 0)
        return found, int(ctrl[searchstate.C_TSS_NODES])

    fresh, fresh_nodes = solve()
    remembered, remembered_nodes = solve()
    assert fresh[0] > 0 and remembered == fresh and remembered_nodes < fresh_nodes
    searchstate.forget_threats(search)
    assert solve() == (fresh, fresh_nodes)
    searchstate.forget_threats(search)
    epoch = int(ctrl[searchstate.C_THREAT_EPOCH])
    engine.think(QUICK)  # a new search zeroes the control block, but not the memo's epoch
    assert ctrl[searchstate.C_THREAT_EPOCH] == epoch


INTERIOR_VCT = Config(interior_vct_nodes=5000, interior_vct_depth=1, interior_vct_threats=8)


@pytest.mark.parametrize("case", [c for c in all_puzzles("vct")
                                  if c["id"] in ("quintet-01", "quintet-08", "quintet-09",
                                                  "quintet-12", "quintet-21")],
                         ids=lambda c: c["id"])
def test_the_vct_inside_the_search_proves_threat_wins_a_shallow_search_misses(case: dict
                                                                               ) -> None:
    """Three plies reach the attacker's second move only: without the VCT at its nodes the
    search sees no mate; with it (Config.interior_vct_nodes), the mate is proved and the move
    played is a published winning first move."""
    limits = Limits(timeout_turn_ms=600_000, max_depth=3)
    plain = engine_with(4, case["black"], case["white"]).think(limits)
    assert plain.score < MATE_BOUND
    engine = Engine(INTERIOR_VCT)
    engine.new_game(15, 15, 4)
    engine.setup([(x, y, 1) for x, y in case["black"]] + [(x, y, 2) for x, y in case["white"]])
    result = engine.think(limits)
    assert result.score > MATE_BOUND
    assert list(result.move) in case["answers"]["winning_first_moves_known"]


QUIET_PUZZLE_NODES = 400_000  # enough for the quiet threats (about 97 k), within a second


@pytest.mark.skipif(PURE_PYTHON, reason="800 k threat nodes take minutes as plain Python")
def test_quiet_threats_find_the_published_first_move_of_a_puzzle_that_opens_quietly() -> None:
    """quintet-11: Black's winning first move G12 makes only an open two, after which Black
    would win by fours were it its turn; the fours and threes alone find nothing within the
    same nodes, the quiet threats find G12."""
    case = next(c for c in all_puzzles("vct") if c["id"] == "quintet-11")
    engine = engine_with(4, case["black"], case["white"])
    board = engine.require_board()
    attacker = board.side_to_move()
    assert vct(board.state, engine._search, attacker, 12, QUIET_PUZZLE_NODES, 0) == (0, -1)
    plies, cell = vct(board.state, engine._search, attacker, 12, QUIET_PUZZLE_NODES, 3)
    assert plies > 0
    assert list(board.point(cell)) in case["answers"]["winning_first_moves_known"]
    assert board.cell_class(*board.point(cell), attacker) < C_OPEN_THREE


@pytest.mark.skipif(PURE_PYTHON, reason="a million threat nodes take minutes as plain Python")
def test_the_deepening_with_quiet_threats_does_not_hold_up_a_win_by_threes_and_fours() -> None:
    """quintet-16: Black wins by seven threats, fours and threes alone.  With quiet threats
    searched too, at each depth before the next (their search grows about eightfold a depth),
    the same win took 32 M nodes instead of 0.45 M; sharing the nodes between the two
    deepenings (threats.QUIET_SHARE) finds it within a fraction more than the plain search."""
    case = next(c for c in all_puzzles("vct") if c["id"] == "quintet-16")
    engine = engine_with(4, case["black"], case["white"])
    board, search = engine.require_board(), engine._search
    attacker = board.side_to_move()
    found, nodes = [], []
    for quiet_fours in (0, 3):
        searchstate.forget_threats(search)
        found.append(vct(board.state, search, attacker, 12, 10**8, quiet_fours))
        nodes.append(int(search.ctrl[searchstate.C_TSS_NODES]))
    assert found[0][0] > 0 and found[1] == found[0]
    assert list(board.point(found[0][1])) in case["answers"]["winning_first_moves_known"]
    assert nodes[1] <= nodes[0] * (1 + 2 / threats.QUIET_SHARE)


def test_the_engine_plays_a_threat_win_found_before_the_main_search() -> None:
    case = next(c for c in all_puzzles("vct") if c["id"] == "quintet-09")
    engine = engine_with(4, case["black"], case["white"])
    engine.config = Config(vct_nodes_per_ms=3)
    result = engine.think(Limits(timeout_turn_ms=600_000, max_depth=1))
    assert result.stopped_by == "proven" and result.score > MATE_BOUND
    assert list(result.move) in case["answers"]["winning_first_moves_known"]


@pytest.mark.parametrize("limit", [500, 5000])
def test_vct_keeps_to_its_node_budget_vcf_probes_included(limit: int) -> None:
    # quintet-16 needs more threats than allowed here: the search runs into its budget
    case = next(c for c in all_puzzles("vct") if c["id"] == "quintet-16")
    engine = engine_with(4, case["black"], case["white"])
    board = engine.require_board()
    ctrl = engine._search.ctrl
    ctrl[searchstate.C_NODES] = 0
    assert vct(board.state, engine._search, board.side_to_move(), 10, limit, 0) == (0, -1)
    spent = int(ctrl[searchstate.C_TSS_NODES])
    assert limit < spent <= limit + 1000, spent
    assert ctrl[searchstate.C_NODES] <= spent  # the defender's VCF probes were inside it
    assert engine._search.ctrl[searchstate.C_TSS_LIMIT] == 0  # leaf VCFs are not limited


def four_rich_position(rng: random.Random, size: int) -> list[tuple[int, int, int]]:
    """Stones packed into a small square: many threes and fours for both sides."""
    cells = [(x, y) for x in range(2, size - 2) for y in range(2, size - 2)]
    rng.shuffle(cells)
    count = rng.randint(8, 16)
    return [(x, y, 1 + i % 2) for i, (x, y) in enumerate(cells[:count])]


@pytest.mark.pure_python
@pytest.mark.parametrize("rule", [0, 1])
def test_vcf_with_its_memo_agrees_with_brute_force(rule: int) -> None:
    """One search state for every position, so the memo carries results between them and
    between fours limits; win or no win must match the brute-force solver each time."""
    rng = random.Random(rule)
    engine = Engine()
    wins = 0
    for _ in range(scaled(60)):
        stones = four_rich_position(rng, 9)
        engine.new_game(9, 9, rule)
        engine.setup(stones)
        board = engine.require_board()
        colour = board.side_to_move()
        position = naive.Position(9, 9, rule, {(x, y): c for x, y, c in stones})
        if any(naive.wins(position, x, y, 3 - colour) for x, y in naive.candidates(position)):
            continue  # the side to move must block first: not a VCF question
        for fours in (1, 3, 2):
            expected = naive.vcf_wins(position, colour, fours)
            assert (vcf(board.state, engine._search, colour, fours) > 0) == expected, stones
            wins += expected
    assert wins >= scaled(60) // 10  # the positions do hold wins to find


def empty_cells_of_four_rich_positions(seed: int, rule: int) -> Iterator[tuple[Board, int, int]]:
    """(board, colour, cell) for both colours and every empty cell of four-rich 11x11
    positions under ``rule``, the board left as it was after each."""
    rng = random.Random(seed)
    engine = Engine()
    for _ in range(scaled(80)):
        engine.new_game(11, 11, rule)
        engine.setup(four_rich_position(rng, 11))
        board = engine.require_board()
        for colour in (1, 2):
            for x in range(11):
                for y in range(11):
                    if board.stone(x, y) == 0:
                        yield board, colour, board.cell(x, y)


@pytest.mark.parametrize("rule", [0, 1, 4, 8, 9])
def test_what_a_stone_read_from_the_line_keys_may_win_is_what_playing_it_shows(
        rule: int) -> None:
    """What the VCF reads instead of playing its last four (threats._four_may_win_more: an
    open four or a double four made, or under renju a five black might not block) equals what
    make, the class counts and the foul check say, on every empty cell of four-rich positions
    where the side to move has no open four nor double four yet."""
    from bot.core.moves import make, unmake

    outcomes = [0, 0]  # nothing more, perhaps more
    for board, colour, cell in empty_cells_of_four_rich_positions(30 + rule, rule):
        st = board.state
        if not threats._no_winning_four(st, colour):
            continue
        read = bool(threats._four_may_win_more(st, cell, colour))
        make(st, cell, colour)
        fives = [other for other in range(len(st.board)) if st.board[other] == 0
                 and st.classes[colour - 1, other] == C_FIVE]
        unblockable = rule == 4 and colour == 2 and not all(
            threats.is_legal(st, five, 1) for five in fives)
        played = not threats._no_winning_four(st, colour) or unblockable
        unmake(st)
        assert read == played, (rule, colour, board.point(cell), board.moves())
        outcomes[played] += 1
    assert min(outcomes) > scaled(80), outcomes


def test_a_white_four_whose_block_is_an_overline_for_black_may_win_more() -> None:
    """Renju: white's four at e6 can only be blocked at e7, where black would make six."""
    engine = engine_with(4, [(1, 6), (2, 6), (3, 6), (5, 6), (6, 6), (4, 1)],
                         [(4, 2), (4, 3), (4, 4), (9, 9), (0, 9), (9, 0)], size=11)
    board = engine.require_board()
    st = board.state
    assert board.foul(4, 6) != 0 and threats._no_winning_four(st, 2)
    assert threats._four_may_win_more(st, board.cell(4, 5), 2)
    assert not threats._four_may_win_more(st, board.cell(9, 8), 2)  # (no four there)


@pytest.mark.parametrize("rule", [0, 1, 4, 8, 9])
def test_winning_fours_read_after_an_opponent_stone_are_those_the_scan_finds_after_it(
        rule: int) -> None:
    """What the df-pn reads instead of playing a defender's reply (threats.wins_by_four_after)
    equals the threat scan after make, on every empty cell of four-rich positions, for both
    colours; it may decline (-1) only for black under renju."""
    from bot.core.moves import make, unmake

    cells = np.zeros(1024, dtype=np.int64)
    outcomes = [0, 0, 0]  # declined, no win left, a win left
    for board, colour, stone in empty_cells_of_four_rich_positions(50 + rule, rule):
        st = board.state
        count = threats.winning_four_cells(st, colour, cells)
        read = int(threats.wins_by_four_after(st, colour, cells, count, stone))
        make(st, stone, 3 - colour)
        played = int(scan_threats(st, colour, False)[3] >= 0)
        unmake(st)
        outcomes[read + 1] += 1
        assert read in (played, -1), (rule, colour, board.point(stone), board.moves())
        assert read >= 0 or (rule == 4 and colour == 1)
    assert outcomes[1] > scaled(80) and outcomes[2] > scaled(80), outcomes


@pytest.mark.pure_python
@pytest.mark.parametrize("rule", [0, 1, 4])
def test_double_three_wins_agree_with_brute_force_and_are_threat_wins(rule: int) -> None:
    """The kernel equals its slow twin (which knows nothing of renju: under renju black never
    claims and only white's claims are compared), and every win it claims is a win by
    continuous threats within two threats for the brute-force solver (freestyle, exact five).
    Such wins are rare in random positions: the seeded positions run until a few are found."""
    rng = random.Random(10 + rule)
    engine = Engine()
    claimed = checked = 0
    wanted = 1 if rule == 4 else 3  # renju: white's claims only
    for _ in range(600):
        if claimed >= wanted and checked >= scaled(40):
            break
        cells = [(x, y) for x in range(2, 9) for y in range(2, 9)]
        rng.shuffle(cells)
        stones = [(x, y, 1 + i % 2) for i, (x, y) in enumerate(cells[:rng.randint(8, 14)])]
        engine.new_game(11, 11, rule)
        engine.setup(stones)
        board = engine.require_board()
        colour = board.side_to_move()
        position = naive.Position(11, 11, rule, {(x, y): c for x, y, c in stones})
        if any(naive.wins(position, x, y, c) for x, y in naive.candidates(position)
               for c in (1, 2)):
            continue  # a five to play or to block comes first
        won = bool(double_three_win(board.state, colour))
        checked += 1
        if rule == 4 and colour == 1:
            assert not won
            continue
        assert won == naive.double_three_win(position, colour), stones
        if won and rule != 4:
            assert naive.vct_wins(position, colour, 2), stones
        claimed += won
    assert claimed >= wanted


def test_a_leaf_vcf_gives_up_within_its_node_budget() -> None:
    case = next(c for c in puzzles("vcf") if c["answers"]["attacker_moves"] >= 5)
    engine = engine_with(4, case["black"], case["white"])
    board = engine.require_board()
    colour = 1 if case["to_move"] == "black" else 2
    fours = case["answers"]["attacker_moves"]
    ctrl = engine._search.ctrl
    assert leaf_vcf(board.state, engine._search, colour, fours, 3) == 0
    assert 3 < ctrl[searchstate.C_TSS_NODES] <= 5 and ctrl[searchstate.C_TSS_LIMIT] == 0
    # a search cut short remembered nothing: with the budget lifted, the win is found
    assert leaf_vcf(board.state, engine._search, colour, fours, 0) > 0


@pytest.mark.pure_python
def test_the_defences_of_a_threat_are_the_moves_after_which_brute_force_finds_no_vcf() -> None:
    rng = random.Random(11)
    engine = Engine()
    mask = np.zeros(searchstate.MAX_CELLS, dtype=np.int8)
    threatened = 0
    for _ in range(scaled(40)):
        stones = four_rich_position(rng, 9)
        engine.new_game(9, 9, 0)
        engine.setup(stones)
        board = engine.require_board()
        colour, other = board.side_to_move(), 3 - board.side_to_move()
        position = naive.Position(9, 9, 0, {(x, y): c for x, y, c in stones})
        cells = naive.candidates(position)
        if any(naive.wins(position, x, y, c) for x, y in cells for c in (1, 2)):
            continue  # a five to make or to block first
        count = threat_defences(board.state, engine._search, colour, 3, 10**9, mask)
        if not naive.vcf_wins(position, other, 3):
            assert count == -1
            continue
        threatened += 1
        expected = set()
        for x, y in cells:
            position.stones[(x, y)] = colour
            if not naive.vcf_wins(position, other, 3):
                expected.add((x, y))
            del position.stones[(x, y)]
        marked = {board.point(int(c)) for c in np.flatnonzero(mask)}
        assert marked == expected and count == len(expected), stones
    assert threatened >= scaled(40) // 8


@pytest.mark.parametrize("case", puzzles("vcf"), ids=lambda c: c["id"])
def test_the_vcf_line_is_a_sequence_of_fours_and_forced_blocks_that_wins(case: dict) -> None:
    engine = engine_with(4, case["black"], case["white"])
    board = engine.require_board()
    attacker = 1 if case["to_move"] == "black" else 2
    line = np.zeros(256, dtype=np.int64)
    length = vcf_line(board.state, engine._search, attacker, 20, line)
    points = [board.point(int(c)) for c in line[:length]]
    assert length > 0
    i = 0
    while not board.wins(*points[i], attacker):
        assert board.is_legal(*points[i], attacker)
        counter = [p for p in board.candidates() if board.wins(*p, 3 - attacker)]
        assert not counter or points[i] in counter, "a block that made a four is answered"
        board.play(*points[i], attacker)
        after = [p for p in board.candidates() if board.wins(*p, attacker)]
        if len(after) >= 2 or (len(after) == 1 and not board.is_legal(*after[0], 3 - attacker)):
            assert set(after) <= set(points[i + 1:])  # the winning cells close the line
            return
        assert len(after) == 1 and after[0] == points[i + 1], "the reply is the forced block"
        board.play(*points[i + 1], 3 - attacker)
        i += 2
    assert i == length - 1  # ends with the five


def test_a_threat_with_one_defence_is_answered_at_once_with_it() -> None:
    # found by a seeded scan of random positions: black to move, white would win by fours
    # were it white's turn, and only (5, 6) stops every such win
    stones = [(6, 8, 1), (7, 8, 2), (6, 4, 1), (5, 5, 2), (8, 7, 1), (5, 7, 2), (6, 5, 1),
              (8, 6, 2), (9, 4, 1), (5, 8, 2), (8, 8, 1), (8, 9, 2), (9, 9, 1), (6, 6, 2)]
    engine = Engine(Config(root_defence=True))
    engine.new_game(15, 15, 0)
    engine.setup(stones)
    result = engine.think(QUICK)
    assert result.stopped_by == "forced" and result.move == (5, 6)
    # a budget too small to check every move gives no answer rather than a wrong one
    mask = np.ones(searchstate.MAX_CELLS, dtype=np.int8)
    board = engine.require_board()
    engine.clear_hash()  # no remembered VCF results
    assert threat_defences(board.state, engine._search, 1, 12, 50, mask) == -1
    assert not mask.any() and engine._search.ctrl[searchstate.C_TSS_LIMIT] == 0
    # without the root defence the search still finds it, only later
    engine.config = Config(root_defence=False)
    assert engine.think(QUICK).move == (5, 6)


def test_under_a_threat_the_root_searches_only_the_defences() -> None:
    rng = random.Random(2)
    engine = Engine(Config(root_defence=True))
    mask = np.zeros(searchstate.MAX_CELLS, dtype=np.int8)
    checked = 0
    wanted = 1 if PURE_PYTHON else 3
    for _ in range(200):  # until enough threatened positions are seen
        if checked >= wanted:
            break
        engine.new_game(15, 15, 0)
        engine.setup([(x + 3, y + 3, c) for x, y, c in four_rich_position(rng, 9)])
        board = engine.require_board()
        colour = board.side_to_move()
        threats = scan_threats(board.state, colour, True)
        if (threats[0] >= 0 or threats[1] > 0 or threats[3] >= 0
                or vcf(board.state, engine._search, colour, 12) > 0):
            continue  # a win of our own, or a five to block, comes first
        if threat_defences(board.state, engine._search, colour, 12, 20_000, mask) > 1:
            result = engine.think(QUICK)
            assert mask[board.cell(*result.move)] == 1
            checked += 1
    assert checked >= wanted


def small_threat_position(engine: Engine, rng: random.Random
                          ) -> tuple[list[tuple[int, int, int]], Board, naive.Position]:
    """A seeded 9x9 freestyle position of 6 to 10 stones packed together (threes and fours
    for both sides), set up in ``engine``: its stones, board and brute-force twin."""
    stones = four_rich_position(rng, 9)[:rng.randint(6, 10)]
    engine.new_game(9, 9, 0)
    engine.setup(stones)
    position = naive.Position(9, 9, 0, {(x, y): c for x, y, c in stones})
    return stones, engine.require_board(), position


@pytest.mark.pure_python
def test_vct_with_its_memo_agrees_with_brute_force() -> None:
    rng = random.Random(4)
    engine = Engine()
    wins = checked = 0
    for _ in range(200):  # the seeded positions, until enough wins and non-wins are checked
        if checked >= scaled(24) and 0 < wins < checked:
            break
        stones, board, position = small_threat_position(engine, rng)
        colour = board.side_to_move()
        for threats in (1, 2):
            expected = naive.vct_wins(position, colour, threats)
            plies, _ = vct(board.state, engine._search, colour, threats, 10**9, 0)
            assert (plies > 0) == expected, (stones, threats)
            wins += expected
            checked += 1
    assert 0 < wins < checked


@pytest.mark.skipif(PURE_PYTHON, reason="brute-force VCTs after every root move: long as plain Python")
def test_the_root_moves_taken_out_lose_to_threats_and_the_others_do_not() -> None:
    """refute_root_moves takes out of the root exactly the moves after which the opponent
    wins by continuous threats (brute force, same threats), and leaves the root whole when
    every move loses."""
    rng = random.Random(6)
    engine = Engine()
    search = engine._search
    taken_out = kept = 0
    for _ in range(300):  # the seeded positions, until enough of each are checked
        if taken_out >= scaled(12) and kept >= scaled(12):
            break
        stones, board, position = small_threat_position(engine, rng)
        colour = board.side_to_move()
        if any(naive.wins(position, x, y, c) for x, y in naive.candidates(position)
               for c in (1, 2)):
            continue  # a five to play or to block: nothing is tried
        search.ctrl[searchstate.C_ROOT_FILTER] = 0
        losing = refute_root_moves(board.state, search, colour, 99, 2, 10**9)
        moves = [(x, y) for x, y in board.candidates() if board.is_legal(x, y, colour)]
        lost = {}
        for x, y in moves:
            position.stones[(x, y)] = colour
            lost[(x, y)] = naive.vct_wins(position, 3 - colour, 2)
            del position.stones[(x, y)]
        if all(lost.values()) or not any(lost.values()):
            assert losing == 0 and search.ctrl[searchstate.C_ROOT_FILTER] == 0
            continue
        assert losing == sum(lost.values()) and search.ctrl[searchstate.C_ROOT_FILTER] == 1
        for x, y in moves:
            assert search.root_mask[board.cell(x, y)] == (0 if lost[(x, y)] else 1), (
                stones, (x, y))
            taken_out += lost[(x, y)]
            kept += not lost[(x, y)]
    assert taken_out >= scaled(12) and kept >= scaled(12)


def attacker_cluster(rng: random.Random, size: int) -> list[tuple[int, int, int]]:
    """Black's stones packed near the centre, as many White stones anywhere: Black, to
    move, often has quiet moves that threaten a win by fours."""
    count = rng.randint(4, 7)
    near = [(x, y) for x in range(1, size - 1) for y in range(1, size - 1)]
    rng.shuffle(near)
    far = [(x, y) for x in range(size) for y in range(size) if (x, y) not in near[:count]]
    rng.shuffle(far)
    return [(x, y, 1) for x, y in near[:count]] + [(x, y, 2) for x, y in far[:count]]


@pytest.mark.parametrize("rule", [0, 1, 4, 8, 9])
def test_a_defender_stone_outside_the_relevance_zone_leaves_the_vcf_winning(rule: int) -> None:
    """The claim the VCT's quiet threats (and its attacker's moves, where the defender
    threatens a VCF) rest on: wherever the defender may play outside the zone of the
    attacker's VCF, that same VCF, replayed, still wins (and every cell where the defender
    makes a four is in the zone).  Outside caro and renju the zone is the cells of the win,
    the defender's fours and the cells that would make a block a four: a small part of the
    board (every cell within five along the lines of the win would be about a third)."""
    rng = random.Random(20 + rule)
    search = Engine()._search
    line = np.zeros(64, np.int64)
    zone = np.zeros(searchstate.MAX_MOVES, np.int64)
    checked = 0
    zone_cells = empty_cells = 0
    for _ in range(scaled(150)):
        board, _, _ = clustered_position(rng, 15, 15, rule)
        state = board.state
        for attacker in (1, 2):
            length = vcf_line(state, search, attacker, 8, line)
            if length == 0 or scan_threats(state, 3 - attacker, True)[1] > 0:
                continue  # no VCF, or the defender must block a five anyway
            count = threats.relevance_zone(state, search, 3 - attacker, line, length, zone)
            inside = {int(cell) for cell in zone[:count]}
            assert len(inside) == count
            zone_cells += count
            empty_cells += sum(1 for _ in board.empty_points())
            for x, y in board.empty_points():
                cell = board.cell(x, y)
                if board.cell_class(x, y, 3 - attacker) >= C_FOUR:
                    assert cell in inside
                if cell in inside or not board.is_legal(x, y, 3 - attacker):
                    continue
                board.play(x, y, 3 - attacker)
                assert threats._replay_vcf(state, search, attacker, line, length, False) > 0, (
                    board.moves(), attacker, (x, y))
                board.undo()
                checked += 1
    assert checked > scaled(150) * 10
    if rule in (0, 1):
        assert zone_cells < 0.1 * empty_cells


def quiet_threats(engine: Engine, fours: int) -> int:
    """How many moves below an open three give Black (to move) a win by ``fours`` fours were
    it its turn again."""
    board = engine.require_board()
    count = 0
    for x, y in board.candidates():
        if board.cell_class(x, y, 1) < C_OPEN_THREE:
            board.play(x, y, 1)
            count += vcf(board.state, engine._search, 1, fours) > 0
            board.undo()
    return count


def unwon_clusters(engine: Engine, rule: int, seed: int, tries: int
                   ) -> Iterator[tuple[list[tuple[int, int, int]], Board]]:
    """Of ``tries`` seeded 7x7 positions (``attacker_cluster``), set up in ``engine`` in turn,
    those where Black, to move, has no win by fours and open threes within two threats (the
    ground quiet threats are tested on): each with its stones and board."""
    rng = random.Random(seed)
    for _ in range(tries):
        stones = attacker_cluster(rng, 7)
        engine.new_game(7, 7, rule)
        engine.setup(stones)
        board = engine.require_board()
        if vct(board.state, engine._search, 1, 2, 10**9, 0)[0] == 0:
            yield stones, board


@pytest.mark.parametrize("rule", [0, 1])
def test_vct_with_quiet_threats_agrees_with_brute_force(rule: int) -> None:
    """Quiet threats: the kernel answers them only inside the relevance zone of the
    attacker's VCF (after replaying that VCF); the brute force answers with every empty cell
    of the board.  Checked on the positions where only a quiet threat wins (by the kernel)
    and on as many where Black has a quiet threat but no win: win or no win must match."""
    engine = Engine()
    wanted = {True: 1, False: 1} if PURE_PYTHON else {True: 2, False: 2}
    for stones, board in unwon_clusters(engine, rule, 10 + rule, 2000):
        if not any(wanted.values()):
            break
        state, search = board.state, engine._search
        plies, move = vct(state, search, 1, 2, 10**9, 3)
        won = plies > 0
        if not won and not quiet_threats(engine, 3):
            continue  # no win, and nothing for the quiet threats to try
        if wanted[won] == 0:
            continue
        wanted[won] -= 1
        position = naive.Position(7, 7, rule, {(x, y): c for x, y, c in stones})
        assert naive.vct_wins(position, 1, 2, quiet_fours=3) == won, (rule, stones)
        if won:
            assert not naive.vct_wins(position, 1, 2)
            assert board.stone(*board.point(move)) == 0
    assert not any(wanted.values()), wanted


@pytest.mark.skipif(PURE_PYTHON, reason="a 72-four VCF takes minutes as plain Python")
@pytest.mark.parametrize("case_id", ["quintet-06", "quintet-19"])
def test_a_long_vcf_is_found_before_the_search_and_played_at_once(case_id: str) -> None:
    # 73 and 72 fours: far beyond the leaves' VCF, within the root's (Config.root_vcf_fours)
    case = next(c for c in all_puzzles("vcf") if c["id"] == case_id)
    engine = engine_with(4, case["black"], case["white"])
    board = engine.require_board()
    attacker = 1 if case["to_move"] == "black" else 2
    assert board.side_to_move() == attacker
    result = engine.think(Limits(timeout_turn_ms=600_000, max_depth=1))
    assert result.stopped_by == "proven" and result.score > MATE_BOUND
    # the move is a four whose forced block leaves the attacker a win by fours still
    engine.play(*result.move)
    blocks = [p for p in board.candidates() if board.wins(*p, attacker)]
    assert len(blocks) == 1
    engine.play(*blocks[0])
    assert vcf(board.state, engine._search, attacker, Config().root_vcf_fours) > 0


def test_vct_goes_on_after_a_quiet_block_of_a_counter_four_while_its_three_stands() -> None:
    """Black's open three is answered by a white four; black's block of it is no threat, yet
    the three still stands and white must answer it again: a win in 7 plies with 2 threats
    (a random position found so), which the brute-force solver and the main search confirm.
    Without the quiet block the VCT finds nothing here."""
    stones = [(5, 2, 1), (5, 6, 2), (3, 8, 1), (2, 2, 2), (4, 8, 1), (2, 4, 2), (8, 3, 1),
              (4, 2, 2), (4, 7, 1), (4, 4, 2), (3, 6, 1), (7, 4, 2), (6, 4, 1), (3, 2, 2),
              (2, 3, 1), (8, 7, 2)]
    engine = Engine()
    engine.new_game(11, 11, 0)
    engine.setup(stones)
    board = engine.require_board()
    assert board.side_to_move() == 1
    plies, _ = vct(board.state, engine._search, 1, 2, 10**7, 0)
    assert plies == 7
    position = naive.Position(11, 11, 0, {(x, y): c for x, y, c in stones})
    assert naive.vct_wins(position, 1, 2)
    assert engine.think(Limits(timeout_turn_ms=600_000, max_depth=4)).score > MATE_BOUND


def test_with_quiet_threats_a_block_of_a_counter_four_may_itself_be_a_quiet_threat() -> None:
    """Black's quiet threat is answered by a white four; black's block of it makes no three
    and no three stands, but black would win by fours again were it its turn, so white must
    stop that too (quintet-15's published win goes through such a block).  A random 7x7
    position found so: the VCT with quiet threats wins in 11 plies with 3 threats, the
    brute-force solver agrees, and neither finds a win without the quiet threats."""
    stones = [(1, 5, 1), (3, 2, 1), (4, 3, 1), (2, 2, 1), (1, 4, 1), (2, 4, 1), (3, 5, 2),
              (6, 4, 2), (1, 3, 2), (4, 0, 2), (6, 1, 2), (6, 2, 2)]
    engine = Engine()
    engine.new_game(7, 7, 0)
    engine.setup(stones)
    board = engine.require_board()
    assert board.side_to_move() == 1
    assert vct(board.state, engine._search, 1, 3, 10**9, 0) == (0, -1)
    plies, _ = vct(board.state, engine._search, 1, 3, 10**9, 3)
    assert plies == 11
    position = naive.Position(7, 7, 0, {(x, y): c for x, y, c in stones})
    assert naive.vct_wins(position, 1, 3, quiet_fours=3)
    assert not naive.vct_wins(position, 1, 3)
