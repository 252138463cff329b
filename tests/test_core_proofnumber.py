"""The df-pn threat solver (bot.core.proofnumber) against the brute-force VCT of tests/naive.py
and the published threat puzzles."""

from __future__ import annotations

import random

import numpy as np
import pytest

from bot.config import Config
from bot.core.proofnumber import dfpn_line, dfpn_vct, dfpn_vct_within, new_table
from bot.core.searchstate import C_TSS_NODES, MAX_PLY
from bot.core.state import M_VALUED
from bot.core.threats import leaf_vcf, threat_defences, vcf_first_move, vct
from bot.engine import Engine
from bot.limits import Limits, SearchInfo
from tests import naive
from tests.conftest import PURE_PYTHON, scaled
from tests.test_engine_tactics import (
    all_puzzles, engine_with, quiet_threats, small_threat_position, unwon_clusters,
)

NAIVE_THREATS = 3  # the brute force is asked no further (its time grows steeply with them)
QUIET_FOURS = 3


def proof_holds(engine: Engine, position: naive.Position, colour: int, plies: int,
                quiet_fours: int) -> bool:
    """A proof of ``plies`` plies is a win within (plies + 1) / 2 threats: by brute force
    when that is at most NAIVE_THREATS, else by the threat-bounded VCT kernel (itself checked
    against the brute force in test_engine_tactics)."""
    threats = (plies + 1) // 2
    if threats <= NAIVE_THREATS:
        return naive.vct_wins(position, colour, threats, quiet_fours=quiet_fours)
    board = engine.require_board()
    return vct(board.state, engine._search, colour, threats, 10**9, quiet_fours)[0] > 0


def assert_line_wins(engine: Engine, keys: np.ndarray, data: np.ndarray, attacker: int,
                     quiet_fours: int, move: int) -> None:
    """The proof's line (``dfpn_line``) starts with the proved move and, played out, is a
    game: the attacker and the defender alternately on empty cells each may play, each
    defender move a block of the attacker's five when it has one, and the attacker's last
    move a five or, in renju against black, a four whose five cells black may not play (a
    foul: the four cannot be blocked)."""
    board = engine.require_board()
    line = np.zeros(2 * MAX_PLY, np.int64)
    length = dfpn_line(board.state, engine._search, keys, data, attacker, quiet_fours, 10**7,
                       line)
    assert length > 0 and line[0] == move
    points = [board.point(int(cell)) for cell in line[:length]]
    for i, (x, y) in enumerate(points):
        colour = attacker if i % 2 == 0 else 3 - attacker
        assert board.stone(x, y) == 0 and board.is_legal(x, y, colour), (points, i)
        fives = [p for p in board.candidates() if board.wins(*p, attacker)]
        if colour != attacker and fives:
            assert (x, y) in fives, (points, i)
        if i == length - 1:
            assert colour == attacker, points
            if not board.wins(x, y, attacker):
                board.play(x, y, colour)
                fives = [p for p in board.candidates() if board.wins(*p, attacker)]
                assert fives and not any(board.is_legal(*p, 3 - attacker) for p in fives), (
                    points)
                board.undo()
        board.play(x, y, colour)
    for _ in points:
        board.undo()


@pytest.mark.skipif(PURE_PYTHON, reason="brute-force VCTs of three threats: long as plain Python")
@pytest.mark.parametrize("max_threats", [0, 2])
def test_dfpn_proves_the_brute_force_wins_and_only_real_ones(max_threats: int) -> None:
    """On seeded 9x9 positions full of threes and fours: every win the brute force finds
    within two threats is proved (with no bound on the threats, and with a bound of two),
    every proof is a win within the threats of its longest line, and the first move is an
    empty cell after which the defender cannot hold."""
    rng = random.Random(4)
    engine = Engine()
    keys, data = new_table(1 << 14)
    proved = refuted = 0
    for _ in range(300):  # the seeded positions, until enough of each are checked
        if proved >= scaled(12) and refuted >= scaled(12):
            break
        stones, board, position = small_threat_position(engine, rng)
        colour = board.side_to_move()
        keys[:] = 0
        plies, move = dfpn_vct(board.state, engine._search, keys, data, colour, 10**7, 0,
                               max_threats)
        if plies == 0:
            assert not naive.vct_wins(position, colour, 2), stones
            refuted += 1
            continue
        assert proof_holds(engine, position, colour, plies, 0), (stones, plies)
        assert_line_wins(engine, keys, data, colour, 0, move)
        x, y = board.point(move)
        assert (x, y) not in position.stones
        if plies <= 2 * NAIVE_THREATS - 1:
            position.stones[(x, y)] = colour
            assert naive.vct_wins(position, colour, (plies - 1) // 2, attacking=False), stones
        proved += 1
    assert proved >= scaled(12) and refuted >= scaled(12), (proved, refuted)


@pytest.mark.skipif(PURE_PYTHON, reason="brute-force VCTs with quiet threats: long as plain Python")
@pytest.mark.parametrize("rule", [0, 1])
def test_dfpn_with_quiet_threats_agrees_with_brute_force(rule: int) -> None:
    """Where Black's only wins start with quiet threats (none by threes and fours within two
    threats), and where it has quiet threats but no win: the brute force's win within two
    threats is proved, and every proof is a real win."""
    engine = Engine()
    keys, data = new_table(1 << 14)
    wanted = {True: 2, False: 2}
    for stones, board in unwon_clusters(engine, rule, 10 + rule, 3000):
        if not any(wanted.values()):
            break
        if not quiet_threats(engine, 3):
            continue  # nothing for the quiet threats to try
        position = naive.Position(7, 7, rule, {(x, y): c for x, y, c in stones})
        expected = naive.vct_wins(position, 1, 2, quiet_fours=QUIET_FOURS)
        if wanted[expected] == 0:
            continue
        wanted[expected] -= 1
        keys[:] = 0
        plies, _ = dfpn_vct(board.state, engine._search, keys, data, 1, 10**7, QUIET_FOURS, 0)
        if expected:
            assert plies > 0, (rule, stones)
        if plies > 0:
            assert proof_holds(engine, position, 1, plies, QUIET_FOURS), (rule, stones, plies)
    assert not any(wanted.values()), wanted


@pytest.mark.skipif(PURE_PYTHON, reason="millions of nodes: minutes as plain Python")
def test_dfpn_solves_in_a_quarter_of_the_nodes_a_renju_puzzle_the_deepening_cannot() -> None:
    """A published threat puzzle (renju, a proof whose longest line has 20 threats) that the
    threat-bounded deepening does not solve in 4 M nodes: df-pn proves it with the published
    first move in a quarter of them (it took 511 k nodes when this was written)."""
    nodes = 4_000_000
    case = next(c for c in all_puzzles("vct") if c["id"] == "quintet-15")
    engine = engine_with(4, case["black"], case["white"])
    board = engine.require_board()
    attacker = board.side_to_move()
    assert vct(board.state, engine._search, attacker, 12, nodes, QUIET_FOURS) == (0, -1)
    keys, data = new_table(1 << 20)
    plies, move = dfpn_vct(board.state, engine._search, keys, data, attacker, nodes // 4,
                           QUIET_FOURS, 0)
    assert plies > 0
    assert list(board.point(move)) in [line[0] for line in case["answers"]["solution_lines"]]
    assert_line_wins(engine, keys, data, attacker, QUIET_FOURS, move)


@pytest.mark.skipif(PURE_PYTHON, reason="a million nodes: minutes as plain Python")
def test_dfpn_keeps_to_its_node_budget_and_its_table_carries_over() -> None:
    """Cut short, it proves nothing and stays within its nodes (plus the one VCF probe that
    crosses the line); a second search of the same position starts from the table's numbers
    and proves with fewer nodes than the first."""
    case = next(c for c in all_puzzles("vct") if c["id"] == "quintet-11")
    engine = engine_with(4, case["black"], case["white"])
    board = engine.require_board()
    attacker = board.side_to_move()
    ctrl = engine._search.ctrl
    keys, data = new_table(1 << 20)
    for limit in (1000, 20_000):
        keys[:] = 0
        assert dfpn_vct(board.state, engine._search, keys, data, attacker, limit,
                        QUIET_FOURS, 0) == (0, -1)
        assert limit < ctrl[C_TSS_NODES] <= limit + 2
    keys[:] = 0
    first = dfpn_vct(board.state, engine._search, keys, data, attacker, 10**7, QUIET_FOURS, 0)
    first_nodes = int(ctrl[C_TSS_NODES])
    again = dfpn_vct(board.state, engine._search, keys, data, attacker, 10**7, QUIET_FOURS, 0)
    assert first[0] > 0 and again == first
    assert ctrl[C_TSS_NODES] < first_nodes // 10


@pytest.mark.skipif(PURE_PYTHON, reason="brute-force VCTs: long as plain Python")
def test_a_disproof_under_a_bound_is_no_disproof_without_it() -> None:
    """The table keeps how many threats a disproof holds under: searched first with a bound
    of one threat and then with none, in the same table, each seeded position gets the
    verdict a search with no bound gets from an empty table."""
    rng = random.Random(9)
    engine = Engine()
    keys, data = new_table(1 << 14)
    verdicts = []
    for _ in range(scaled(40)):
        _, board, _ = small_threat_position(engine, rng)
        colour = board.side_to_move()
        keys[:] = 0
        fresh = dfpn_vct(board.state, engine._search, keys, data, colour, 10**6, 0, 0)
        keys[:] = 0
        dfpn_vct(board.state, engine._search, keys, data, colour, 10**6, 0, 1)
        after = dfpn_vct(board.state, engine._search, keys, data, colour, 10**6, 0, 0)
        assert (after[0] > 0) == (fresh[0] > 0), board.moves()
        verdicts.append(fresh[0] > 0)
    assert any(verdicts) and not all(verdicts)


# quintet-16 after seven plies of its published win and one of the defender's replies: black
# wins in 13 plies, but the search with no bound follows longer forcing lines first (it proved
# a win of 23 plies in 338 k nodes when this was written)
DEEP_DETOUR = [(9, 3), (9, 4), (10, 5), (7, 5), (11, 5), (12, 5), (10, 4), (5, 7)]


@pytest.mark.skipif(PURE_PYTHON, reason="tens of thousands of nodes: slow as plain Python")
def test_the_bounded_dfpn_finds_the_short_win_the_unbounded_one_passes_by() -> None:
    """Deepening the bound a threat at a time, the df-pn proves the 13-ply win within 20 k
    nodes, where the unbounded search, within as many, proves none; ``dfpn_vct_within`` runs
    the bounded search, then the unbounded one where the first finds no win short enough."""
    case = next(c for c in all_puzzles("vct") if c["id"] == "quintet-16")
    engine = engine_with(4, case["black"], case["white"])
    board = engine.require_board()
    attacker = board.side_to_move()
    for i, point in enumerate(DEEP_DETOUR):
        board.play(*point, attacker if i % 2 == 0 else 3 - attacker)
    keys, data = new_table(1 << 16)
    assert dfpn_vct(board.state, engine._search, keys, data, attacker, 20_000, QUIET_FOURS,
                    0) == (0, -1)
    keys[:] = 0
    plies, move = dfpn_vct(board.state, engine._search, keys, data, attacker, 20_000,
                           QUIET_FOURS, 12)
    assert 0 < plies <= 13
    assert_line_wins(engine, keys, data, attacker, QUIET_FOURS, move)
    # within 13 plies the bounded search is enough; within 11 it proves no win that fits, so
    # the unbounded search runs after it, its nodes counted with the first's
    keys[:] = 0
    assert dfpn_vct_within(board.state, engine._search, keys, data, attacker, 20_000,
                           QUIET_FOURS, 13) == (plies, move)
    keys[:] = 0
    bounded = dfpn_vct(board.state, engine._search, keys, data, attacker, 20_000, QUIET_FOURS, 5)
    assert not 0 < bounded[0] <= 11
    bounded_nodes = int(engine._search.ctrl[C_TSS_NODES])
    keys[:] = 0
    dfpn_vct_within(board.state, engine._search, keys, data, attacker, 20_000, QUIET_FOURS, 11)
    assert engine._search.ctrl[C_TSS_NODES] > bounded_nodes + 10_000


@pytest.mark.skipif(PURE_PYTHON, reason="a million nodes: minutes as plain Python")
def test_the_engine_plays_the_dfpn_win_at_once() -> None:
    """With Config.vct_dfpn_entries the root's threat search is the df-pn: a threat puzzle
    is answered with the winning move, proven, at depth 1, and the line it reports is the
    proof's."""
    case = next(c for c in all_puzzles("vct") if c["id"] == "quintet-11")
    config = Config(vct_nodes_per_ms=4000, vct_max_nodes=4_000_000, vct_threats=12,
                    vct_quiet_fours=QUIET_FOURS, vct_dfpn_entries=1 << 18)
    engine = engine_with(4, case["black"], case["white"])
    engine.config = config
    infos: list[SearchInfo] = []
    result = engine.think(Limits(timeout_turn_ms=600_000, max_depth=1), infos.append)
    assert result.stopped_by == "proven"
    assert list(result.move) in [line[0] for line in case["answers"]["solution_lines"]]
    # the reported line is the proof's, played out to the five
    pv = infos[-1].pv
    assert pv[0] == result.move and len(pv) > 2 and len(pv) % 2 == 1
    board = engine.require_board()
    for point in pv[:-1]:
        board.play(*point, board.side_to_move())
    assert board.wins(*pv[-1], board.side_to_move())


@pytest.mark.parametrize("quiet_fours", [0, QUIET_FOURS])
def test_a_double_three_is_proved_at_once_not_after_the_fours(quiet_fours: int) -> None:
    """Black makes two open threes at h8 (freestyle): every reply leaves it an open four.
    The fours it could play first look cheaper (one reply each) but lead nowhere; the
    defender node's replies are checked for a win by fours when it is first reached, so the
    double three is proved within a few dozen nodes, as the five-ply win it is."""
    engine = Engine()
    engine.new_game(15, 15, 0)
    engine.setup([(5, 7, 1), (6, 7, 1), (7, 5, 1), (7, 6, 1),
                  (0, 0, 2), (0, 14, 2), (14, 0, 2), (14, 14, 2)])
    board = engine.require_board()
    keys, data = new_table(1 << 10)
    plies, move = dfpn_vct(board.state, engine._search, keys, data, 1, 100_000, quiet_fours,
                           0)
    assert (plies, board.point(move)) == (5, (7, 7))
    assert engine._search.ctrl[C_TSS_NODES] < 100
    assert_line_wins(engine, keys, data, 1, quiet_fours, move)


@pytest.mark.parametrize("case", all_puzzles("vct")[:4], ids=lambda c: c["id"])
def test_threat_searches_leave_the_board_and_its_sums_as_they_found_them(case: dict) -> None:
    """The threat searches stop make/unmake keeping the evaluation's sums while they run
    (``suspend_values``): each must leave every array of the board as it found it, the flag
    that keeps the sums on and the sums themselves included, whether it proves a win or not."""
    engine = engine_with(4, case["black"], case["white"])
    board, search = engine.require_board(), engine._search
    colour = board.side_to_move()
    keys, data = new_table(1 << 12)
    line = np.zeros(2 * MAX_PLY, np.int64)
    before = {name: np.copy(array) for name, array in board.state._asdict().items()}
    assert board.state.meta[M_VALUED] == 1
    searches = {
        "leaf_vcf": lambda who: leaf_vcf(board.state, search, who, 12, 2000),
        "vcf_first_move": lambda who: vcf_first_move(board.state, search, who, 12, 2000, line),
        "threat_defences": lambda who: threat_defences(board.state, search, who, 12, 2000,
                                                       search.root_mask),
        "vct": lambda who: vct(board.state, search, who, 4, 3000, QUIET_FOURS),
        "dfpn_vct": lambda who: dfpn_vct(board.state, search, keys, data, who, 3000,
                                         QUIET_FOURS, 0),
        "dfpn_vct bounded": lambda who: dfpn_vct(board.state, search, keys, data, who, 3000,
                                                 QUIET_FOURS, 6),
        "dfpn_line": lambda who: dfpn_line(board.state, search, keys, data, who, QUIET_FOURS,
                                           3000, line),
        "foul checks": lambda who: [board.foul(x, y) for x, y in board.candidates()],
    }
    for name, run in searches.items():
        for who in (colour, 3 - colour):
            run(who)
            for field, array in before.items():
                assert np.array_equal(getattr(board.state, field), array), (name, who, field)
