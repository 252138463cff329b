"""The brain through its real process: every command, every rule, bad input, whole games; each
test against ``python -m protocol.brain`` and against the frozen executable (build/freeze)."""

from __future__ import annotations

import random

import pexpect
import pytest

from bot.core.board import Board
from tests.brainproc import MOVE, PYTHON_BRAIN, BrainProcess


@pytest.fixture(scope="module", params=["python", "frozen"])
def command(request: pytest.FixtureRequest) -> list[str]:
    """Every test runs against ``python -m protocol.brain`` and the frozen executable."""
    if request.param == "python":
        return PYTHON_BRAIN
    return [str(request.getfixturevalue("frozen_brain"))]


@pytest.fixture(scope="module")
def brain(command: list[str]):
    process = BrainProcess(command=command)
    yield process
    assert process.close() == 0


def fast(brain: BrainProcess, rule: int = 0) -> None:
    """Searches bounded by depth, not time: a slow machine cannot change an outcome."""
    brain.send("INFO timeout_turn 60000", "INFO max_depth 3", "INFO timeout_match 0",
               f"INFO rule {rule}", "INFO time_left 2147483647")


def test_about_names_the_engine(brain: BrainProcess) -> None:
    assert brain.ask("ABOUT").startswith('name="Sente", version="')


@pytest.mark.parametrize("rule", [0, 1, 4, 8, 9])
@pytest.mark.parametrize("start, size", [("START 15", (15, 15)), ("START 20", (20, 20)),
                                         ("RECTSTART 17,11", (17, 11))])
def test_a_short_game_under_every_rule_and_size(brain: BrainProcess, rule: int, start: str,
                                                size: tuple[int, int]) -> None:
    fast(brain, rule)
    assert brain.ask(start) == "OK"
    fast(brain, rule)
    referee = Board(size[0], size[1], rule)
    brain.send("BEGIN")
    move = brain.move()
    referee.play(*move)
    for turn in range(4):
        reply = next(p for p in sorted(referee.empty_points(), key=lambda p: (p[1] + turn) % 7)
                     if referee.is_legal(*p, referee.side_to_move()))
        referee.play(*reply)
        brain.send(f"TURN {reply[0]},{reply[1]}")
        move = brain.move()
        assert referee.stone(*move) == 0
        assert referee.is_legal(*move, referee.side_to_move())
        referee.play(*move)


def test_board_colour_comes_from_stone_counts(brain: BrainProcess) -> None:
    fast(brain)
    assert brain.ask("START 15") == "OK"
    # we (field 1) have as many stones as the opponent: we are black and must complete our five
    brain.send("BOARD", "7,3,1", "0,0,2", "7,4,1", "0,2,2", "7,5,1", "0,4,2", "7,6,1",
               "0,6,2", "DONE")
    assert brain.move() in {(7, 7), (7, 2)}
    # one stone fewer than the opponent: we are white and must block the open four's ends
    brain.send("BOARD", "7,3,2", "0,0,1", "7,4,2", "0,2,1", "7,5,2", "0,4,1", "7,6,2", "DONE")
    assert brain.move() in {(7, 7), (7, 2)}


def test_restart_takeback_play_and_yxboard(brain: BrainProcess) -> None:
    fast(brain)
    assert brain.ask("START 15") == "OK"
    brain.send("TURN 7,7")
    first = brain.move()
    assert brain.ask(f"TAKEBACK {first[0]},{first[1]}") == "OK"
    assert brain.ask("TAKEBACK 7,7") == "OK"
    assert brain.ask("PLAY 3,3") == "3,3"
    assert brain.ask("TURN 3,3").startswith("ERROR")
    assert brain.ask("RESTART") == "OK"
    brain.send("YXBOARD", "7,7,2", "DONE")
    brain.expect_silence()
    brain.send("TURN 8,8")
    assert brain.move() not in {(7, 7), (8, 8)}


def test_renju_forbidden_points_and_black_never_plays_one(brain: BrainProcess) -> None:
    fast(brain, 4)
    assert brain.ask("START 15") == "OK"
    fast(brain, 4)
    # black stones around (7,7) make it a double three; white to move elsewhere
    brain.send("YXBOARD", "6,7,1", "1,1,2", "7,6,1", "1,3,2", "7,8,1", "13,13,2", "8,7,1",
               "13,11,2", "DONE")
    assert brain.ask("YXSHOWFORBID") == "FORBID 0707."


def test_yxstop_and_yxhashclear_while_idle_print_nothing(brain: BrainProcess) -> None:
    brain.send("YXSTOP", "YXHASHCLEAR", "INFO evaluate 7,7", "INFO folder /tmp/x",
               "INFO unknown_key 12", "INFO thread_num 2", "INFO show_detail 0")
    brain.expect_silence()


@pytest.mark.parametrize("line, answer", [
    ("HELLO", "UNKNOWN"),
    ("TURN", "ERROR"),
    ("TURN a,b", "ERROR"),
    ("TURN 15,0", "ERROR"),
    ("TURN -1,3", "ERROR"),
    ("START 4", "ERROR"),
    ("START 33", "ERROR"),
    ("START x", "ERROR"),
    ("RECTSTART 10", "ERROR"),
    ("TAKEBACK 1,1", "ERROR"),
    ("x" * 70000, "ERROR"),
    ("PLAY 99,1", "ERROR"),
    ("TURN 7," + "9" * 9990, "ERROR"),
    ("START " + "1" * 5000, "ERROR"),
    ("TAKEBACK " + "1" * 4000 + ",1", "ERROR"),
])
def test_bad_lines_get_an_answer_and_change_nothing(brain: BrainProcess, line: str,
                                                    answer: str) -> None:
    fast(brain)
    assert brain.ask("START 15") == "OK"
    brain.send("TURN 7,7")
    reply = brain.move()
    assert brain.ask(line).startswith(answer)
    # the game goes on from the same position: the cells played are still taken
    assert brain.ask(f"TURN {reply[0]},{reply[1]}").startswith("ERROR")
    assert brain.ask("TURN 7,7").startswith("ERROR")


def test_board_errors_keep_the_position(brain: BrainProcess) -> None:
    fast(brain)
    assert brain.ask("START 15") == "OK"
    brain.send("TURN 7,7")
    reply = brain.move()
    brain.send("BOARD", "1,1,1", "1,1,2", "DONE")  # overlapping stones
    assert brain.read().startswith("ERROR")
    brain.send("BOARD", "1,1,1", "2,2,1", "3,3,1", "DONE")  # impossible counts
    assert brain.read().startswith("ERROR")
    brain.send("BOARD", "1,1,3", "DONE")  # continuous-game field
    assert brain.read().startswith("ERROR")
    brain.send("BOARD", "1,1,2", "what", "DONE")
    assert brain.read().startswith("ERROR")
    brain.send("BOARD", "1,1,2", "TURN 5,5")  # missing DONE: the next command still counts
    assert brain.read().startswith("ERROR")
    assert brain.move() != (5, 5)
    assert brain.ask(f"TAKEBACK {reply[0]},{reply[1]}") == "OK"


def test_commands_before_start_are_refused(command: list[str]) -> None:
    brain = BrainProcess(command=command)
    for line in ("TURN 7,7", "BEGIN", "RESTART", "TAKEBACK 1,1", "YXSHOWFORBID"):
        assert brain.ask(line).startswith("ERROR"), line
    brain.send("BOARD", "1,1,2", "DONE")
    assert brain.read().startswith("ERROR")
    assert brain.ask("START 15") == "OK"
    assert brain.close() == 0


def test_binary_junk_and_eof(command: list[str]) -> None:
    brain = BrainProcess(command=command)
    brain.send_bytes(b"\x00\x01\xff\xfe junk\r\n")
    assert brain.read().startswith("UNKNOWN")
    brain.send_bytes(b"START 15\r\n")  # CRLF like Piskvork
    assert brain.read() == "OK"
    brain.child.sendeof()
    brain.child.expect(__import__("pexpect").EOF, timeout=30)
    assert brain.child.wait() == 0


def test_continuous_game_is_refused_at_the_next_command(brain: BrainProcess) -> None:
    brain.send("INFO rule 2")
    assert brain.ask("START 15").startswith("ERROR")
    brain.send("INFO rule 0")
    assert brain.ask("START 15") == "OK"


def test_unsupported_rule_bits_are_refused(brain: BrainProcess) -> None:
    brain.send("INFO rule 16")
    assert brain.ask("START 15").startswith("ERROR")
    brain.send("INFO rule 0")
    assert brain.ask("START 15") == "OK"


def test_swap2_stages(brain: BrainProcess) -> None:
    fast(brain)
    brain.send("INFO max_depth 4")
    assert brain.ask("START 15") == "OK"
    brain.send("SWAP2BOARD", "DONE")
    three = brain.read().split()
    assert len(three) == 3 and len(set(three)) == 3
    # black's two central stones against white's corner stone: we take black
    brain.send("SWAP2BOARD", "7,7", "0,14", "8,8", "DONE")
    assert brain.read() == "SWAP"
    # black's stones in three corners, white's in the centre: we stay white and play
    brain.send("SWAP2BOARD", "0,0", "7,7", "14,0", "8,8", "0,14", "DONE")
    x, y = (int(v) for v in brain.read().split(","))
    assert (x, y) not in {(0, 0), (7, 7), (14, 0), (8, 8), (0, 14)}
    brain.send("INFO max_depth 3")


def test_show_detail_messages_precede_the_move(brain: BrainProcess) -> None:
    fast(brain)
    assert brain.ask("START 15") == "OK"
    brain.send("INFO show_detail 1", "TURN 7,7")
    lines = [brain.read()]
    while lines[-1].startswith("MESSAGE"):
        lines.append(brain.read())
    assert len(lines) >= 2 and lines[0].startswith("MESSAGE depth 1")
    assert lines[-2].split(" pv ")[1].split()[0] == lines[-1]  # the line's head is the move
    brain.send("INFO show_detail 0")


def test_a_whole_renju_self_play_game_is_legal_and_ends_in_a_five(command: list[str]) -> None:
    black, white = BrainProcess(command=command), BrainProcess(command=command)
    referee = Board(15, 15, 4)
    for brain in (black, white):
        fast(brain, rule=4)
        assert brain.ask("START 15") == "OK"
    black.send("BEGIN")
    move = black.move()
    players = [black, white]
    winner = 0
    while not referee.is_full():
        colour = referee.side_to_move()
        assert referee.is_legal(*move, colour), (move, referee.moves())  # empty, and no foul
        if referee.play(*move):
            winner = colour
            break
        mover = players[referee.ply % 2]
        mover.send(f"TURN {move[0]},{move[1]}")
        move = mover.move()
    assert winner, "two engines on 15x15 should make a five before the board fills"
    assert black.close() == 0 and white.close() == 0


def test_pygomo_client_plays_a_whole_game(command: list[str]) -> None:
    from pygomo.client import EngineClient

    referee = Board(15, 15, 0)
    engine = EngineClient(command[0], args=command[1:])
    engine.connect()
    try:
        assert engine.start(15)
        engine.configure(timeout_turn=300, timeout_match=0)
        result = engine.begin(timeout=30)
        won = referee.play(result.move.col, result.move.row)
        while not won and not referee.is_full():
            reply = min((p for p in referee.empty_points()),
                        key=lambda p: (abs(p[0] - 3) + abs(p[1] - 3)))  # a weak opponent
            if referee.play(*reply):
                break
            result = engine.turn(reply, timeout=30)
            won = referee.play(result.move.col, result.move.row)
        assert won, "Sente should beat an opponent that fills the corner"
    finally:
        engine.quit()


def test_a_yxstop_sent_with_turn_stops_that_search(command: list[str]) -> None:
    brain = BrainProcess(command=command)
    brain.send("INFO timeout_turn 600000", "INFO timeout_match 0",
               "INFO time_left 2147483647", "START 15")
    assert brain.read() == "OK"
    brain.send("TURN 7,7", "YXSTOP")  # one write: the stop arrives before the search starts
    # ten minutes allowed per move: only the stop can bring the answer within the minute
    move = brain.move(timeout=60)
    assert move != (7, 7)
    assert brain.close() == 0


def test_a_yxstop_during_a_search_stops_it(command: list[str]) -> None:
    brain = BrainProcess(command=command)
    brain.send("INFO timeout_turn 600000", "INFO timeout_match 0", "INFO show_detail 1",
               "START 15")
    assert brain.read() == "OK"
    brain.send("TURN 7,7")
    assert brain.read().startswith("MESSAGE depth 1")  # the search is under way
    brain.send("YXSTOP")
    assert brain.move(timeout=60) != (7, 7)  # ten minutes allowed: only the stop ends it
    assert brain.close() == 0


def test_an_idle_yxstop_does_not_stop_the_next_search(command: list[str]) -> None:
    brain = BrainProcess(command=command)
    brain.send("INFO timeout_turn 600000", "INFO max_depth 3", "INFO show_detail 1", "START 15")
    assert brain.read() == "OK"
    brain.send("YXSTOP", "TURN 7,7")
    depths = []
    while True:
        line = brain.read()
        if not line.startswith("MESSAGE"):
            break
        depths.append(int(line.split()[2].split("-")[0]))
    assert depths == [1, 2, 3], depths  # every iteration up to max_depth ran
    assert brain.close() == 0


def test_a_hash_size_too_big_for_the_machine_falls_back_and_play_goes_on(
        command: list[str]) -> None:
    brain = BrainProcess(command=command)
    fast(brain)
    brain.send("INFO hash_size 100000000", "START 15")
    assert brain.read() == "OK"
    brain.send("TURN 7,7")
    assert brain.move() != (7, 7)
    assert brain.ask("ABOUT").startswith('name="Sente"')
    assert brain.close() == 0


def test_a_turn_that_fills_the_board_is_answered(command: list[str]) -> None:
    brain = BrainProcess(command=command)
    fast(brain)
    assert brain.ask("START 5") == "OK"
    # a full 5x5 board with no five for either colour once (4,4) is played
    pattern = ["BBWWB", "WWBBW", "BBWWB", "WWBBW", "BBWW."]
    rows = [f"{x},{y},{1 if cell == 'B' else 2}" for y, line in enumerate(pattern)
            for x, cell in enumerate(line) if cell != "."]
    brain.send("YXBOARD", *rows, "DONE")
    brain.send("TURN 4,4")
    assert brain.read().startswith("ERROR")
    assert brain.ask("TAKEBACK 4,4") == "OK"  # the brain goes on from the same position
    assert brain.close() == 0


def test_a_rule_change_mid_game_applies_to_the_stones_on_the_board(command: list[str]) -> None:
    brain = BrainProcess(command=command)
    fast(brain, rule=0)
    assert brain.ask("START 15") == "OK"
    # black (us, equal counts) has 3,7 4,7 6,7 7,7: (5,7) makes five in freestyle; under renju
    # it is still five, so add 8,7: now (5,7) makes six, a win in freestyle and a foul in renju
    brain.send("YXBOARD", "3,7,1", "0,0,2", "4,7,1", "0,2,2", "6,7,1", "0,4,2", "7,7,1", "0,6,2",
               "8,7,1", "14,14,2", "DONE")
    brain.send("INFO rule 4", "YXSHOWFORBID")
    assert brain.read() == "FORBID 0507."
    brain.send("INFO rule 0", "YXSHOWFORBID")
    assert brain.read() == "FORBID ."
    assert brain.close() == 0


def test_the_process_stays_under_max_memory_after_long_searches(command: list[str]) -> None:
    probe = BrainProcess(command=command)
    fast(probe)
    probe.send("INFO hash_size 1")
    assert probe.ask("START 15") == "OK"
    probe.send("TURN 7,7")
    probe.move()
    _, baseline = probe.memory_mib()  # the brain with every kernel loaded, no table
    assert probe.close() == 0

    limit_mib = baseline + 60  # a table of at most 12 MiB fits beside the 48 MiB headroom
    brain = BrainProcess(command=command)
    brain.send("INFO timeout_turn 1500", "INFO hash_size 1024",
               f"INFO max_memory {int(limit_mib * 2**20)}", "START 15")
    assert brain.read() == "OK"
    referee = Board(15, 15, 0)
    for _ in range(4):  # about six seconds of search: far more entries than the table holds
        reply = next(p for p in referee.empty_points())
        referee.play(*reply)
        brain.send(f"TURN {reply[0]},{reply[1]}")
        referee.play(*brain.move())
    peak, _ = brain.memory_mib()
    assert peak <= limit_mib, (peak, limit_mib)
    assert brain.close() == 0


def test_long_input_lines_do_not_raise_peak_memory(command: list[str]) -> None:
    brain = BrainProcess(command=command)
    fast(brain)
    assert brain.ask("START 15") == "OK"
    brain.send("TURN 7,7")
    brain.move()
    before, _ = brain.memory_mib()
    long_lines = [("x" * 10_000, "UNKNOWN"), ("TURN " + "7" * 9_996, "ERROR"),
                  ("TURN 1," + "1" * 9_993, "ERROR"), ("START " + "9" * 9_994, "ERROR"),
                  ("BOARD", None), ("1,1," + "2" * 9_996, None), ("DONE", "ERROR")]
    for _ in range(5):
        for line, answer in long_lines:
            brain.send(line)
            if answer:
                assert brain.read().startswith(answer)
        brain.send("INFO folder " + "f" * 10_000, "INFO timeout_turn " + "3" * 9_982)
    assert brain.ask("ABOUT").startswith('name="Sente"')
    after, _ = brain.memory_mib()
    assert after - before <= 4, (before, after)
    assert brain.close() == 0


def test_a_person_at_a_terminal_is_greeted_and_a_manager_is_not(command: list[str]) -> None:
    person = pexpect.spawn(command[0], command[1:], encoding="utf-8", timeout=60)
    person.expect(r"([^\r\n]*)\r?\n")
    greeting = person.match.group(1)
    assert greeting.startswith("MESSAGE Sente") and "START 15" in greeting
    person.sendline("END")
    person.expect(pexpect.EOF)
    manager = BrainProcess(command=command)  # a pipe, as every manager uses
    manager.expect_silence(2.0)
    assert manager.ask("START 15") == "OK"
    assert manager.close() == 0


ANSWER_PREFIXES = ("OK", "ERROR", "UNKNOWN", "MESSAGE", "DEBUG")


def _answer(brain: BrainProcess, line: str, *more: str) -> tuple[list[str], list[tuple[int, int]]]:
    """Send a command (with the lines of its block), then ABOUT: the lines printed before
    ABOUT's answer (the brain answers in order, so they are that command's) and the moves
    among them; every line must be a protocol answer."""
    brain.send(line, *more, "ABOUT")
    lines: list[str] = []
    while not (reply := brain.read()).startswith('name="Sente"'):
        lines.append(reply)
    moves = []
    for reply in lines:
        match = MOVE.match(reply)
        assert match or reply.startswith(ANSWER_PREFIXES), (line, lines)
        if match:
            moves.append((int(match[1]), int(match[2])))
    return lines, moves


def _bad_line(rng: random.Random, size: int, taken: set[tuple[int, int]]) -> str:
    """A command the brain must refuse (ERROR or UNKNOWN) without changing the game."""
    empty = rng.choice([(x, y) for x in range(size) for y in range(size) if (x, y) not in taken])
    choices = [f"TURN {rng.choice([-1, size, size + 7])},{rng.randrange(size)}",
               f"TURN {rng.randrange(size)},{rng.choice([-3, size])}",
               rng.choice(["TURN", "TURN a,b", "TURN 1", "TURN 1,2,3", "TURN 3;4", "PLAY x"]),
               rng.choice(["HELLO", "turnip 3,3", "DONE", "BEGINNER", "START 4", "START 33",
                           "START x", "RECTSTART 10", "\x01\x02", "TAKEBACK", "9,9"]),
               f"TAKEBACK {empty[0]},{empty[1]}"]
    if taken:
        cell = rng.choice(sorted(taken))
        choices += [f"TURN {cell[0]},{cell[1]}", f"PLAY {cell[0]},{cell[1]}"]
    return rng.choice(choices)


def _on_empty_cell(move: tuple[int, int], owners: dict[tuple[int, int], int], size: int) -> bool:
    return move not in owners and 0 <= move[0] < size and 0 <= move[1] < size


def _five_stands(owners: dict[tuple[int, int], int]) -> bool:
    """Whether one side has five or more in a row (under any rule's idea of a five)."""
    return any(all(owners.get((x + k * dx, y + k * dy)) == side for k in range(5))
               for (x, y), side in owners.items()
               for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)))


@pytest.mark.parametrize("seed", range(4))
def test_random_sessions_never_break_the_game(command: list[str], seed: int) -> None:
    """Moves, random positions (counts right or wrong, fives standing), restarts and bad lines
    in a random order, under a random rule and board size: every command gets protocol
    answers only; a move owed is a move on an empty cell of the board, or ERROR only where the
    game is over (a five stands) or, in renju, for a foul; a position is refused only when its
    stone counts fit neither colour, a five stands or (renju) a foul may; a bad line is
    refused and changes nothing; the brain ends cleanly."""
    rng = random.Random(seed)
    size, rule = rng.choice([10, 15, 20, 32]), rng.choice([0, 1, 4, 8])
    brain = BrainProcess(command=command)
    assert brain.ask(f"START {size}") == "OK"
    fast(brain, rule)
    owners: dict[tuple[int, int], int] = {}  # 1: the brain's stone, 2: the opponent's
    for _ in range(40):
        draw = rng.random()
        if draw < 0.45:
            near = rng.choice(sorted(owners)) if owners and rng.random() < 0.7 else None
            cells = [(x, y) for x in range(size) for y in range(size) if (x, y) not in owners
                     and (near is None or max(abs(x - near[0]), abs(y - near[1])) <= 2)]
            if not cells:
                continue
            cell = rng.choice(cells)
            lines, moves = _answer(brain, f"TURN {cell[0]},{cell[1]}")
            if not moves:
                assert any(line.startswith("ERROR") for line in lines), lines
                assert rule == 4 or _five_stands(owners) or len(owners) + 1 >= size * size, (
                    cell, lines, owners)
                continue
            assert len(moves) == 1, lines
            move = moves[0]
            assert move != cell and _on_empty_cell(move, owners, size), (cell, move, owners)
            owners[cell], owners[move] = 2, 1
        elif draw < 0.55:
            stones = rng.sample([(x, y) for x in range(size) for y in range(size)],
                                rng.randrange(0, 40))
            fields = [rng.choice([1, 2]) if rng.random() < 0.2 else 1 + (len(stones) - i) % 2
                      for i in range(len(stones))]
            placed = dict(zip(stones, fields))
            block = rng.choice(["BOARD", "YXBOARD"])
            lines, moves = _answer(brain, block, *(f"{x},{y},{field}" for (x, y), field
                                                   in placed.items()), "DONE")
            if any(line.startswith("ERROR") for line in lines):
                assert not moves, lines
                ours = sum(field == 1 for field in fields)
                assert (rule == 4 or _five_stands(placed)
                        or len(stones) - 2 * ours not in (0, 1)), (block, placed, lines)
                continue
            owners = placed
            assert len(moves) == (1 if block == "BOARD" else 0), lines
            for move in moves:
                assert _on_empty_cell(move, owners, size), (move, owners)
                owners[move] = 1
        elif draw < 0.6:
            assert _answer(brain, "RESTART")[0] == ["OK"]
            owners.clear()
        else:
            line = _bad_line(rng, size, set(owners))
            lines, moves = _answer(brain, line)
            assert not moves and lines and lines[-1].startswith(("ERROR", "UNKNOWN")), (
                line, lines)
    assert brain.close() == 0
