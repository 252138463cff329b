"""The brain through its real process: every command, every rule, bad input, whole games."""

from __future__ import annotations

import sys

import pytest

from bot.core.board import Board
from tests.brainproc import BrainProcess


@pytest.fixture(scope="module")
def brain():
    process = BrainProcess()
    yield process
    assert process.close() == 0


def fast(brain: BrainProcess, rule: int = 0) -> None:
    brain.send("INFO timeout_turn 300", "INFO timeout_match 0", f"INFO rule {rule}",
               "INFO time_left 2147483647")


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


def test_commands_before_start_are_refused() -> None:
    brain = BrainProcess()
    for line in ("TURN 7,7", "BEGIN", "RESTART", "TAKEBACK 1,1", "YXSHOWFORBID"):
        assert brain.ask(line).startswith("ERROR"), line
    brain.send("BOARD", "1,1,2", "DONE")
    assert brain.read().startswith("ERROR")
    assert brain.ask("START 15") == "OK"
    assert brain.close() == 0


def test_binary_junk_and_eof() -> None:
    brain = BrainProcess()
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
    assert brain.ask("START 15") == "OK"
    brain.send("SWAP2BOARD", "DONE")
    three = brain.read().split()
    assert len(three) == 3 and len(set(three)) == 3
    brain.send("SWAP2BOARD", "7,7", "7,8", "8,8", "DONE")
    answer = brain.read().split()
    assert answer == ["SWAP"] or 1 <= len(answer) <= 2
    brain.send("SWAP2BOARD", "7,7", "7,8", "8,8", "6,6", "9,9", "DONE")
    answer = brain.read()
    assert answer == "SWAP" or "," in answer


def test_show_detail_messages_precede_the_move(brain: BrainProcess) -> None:
    fast(brain)
    assert brain.ask("START 15") == "OK"
    brain.send("INFO show_detail 1", "TURN 7,7")
    line = brain.read()
    assert line.startswith("MESSAGE depth")
    assert brain.move()
    brain.send("INFO show_detail 0")


def test_a_whole_self_play_game_ends_with_a_legal_result() -> None:
    black, white = BrainProcess(), BrainProcess()
    referee = Board(15, 15, 0)
    for brain in (black, white):
        fast(brain)
        assert brain.ask("START 15") == "OK"
    black.send("BEGIN")
    move = black.move()
    players = [black, white]
    winner = 0
    while True:
        assert referee.stone(*move) == 0
        if referee.play(*move):
            winner = 2 - referee.ply % 2
            break
        if referee.is_full():
            break
        mover = players[referee.ply % 2]
        mover.send(f"TURN {move[0]},{move[1]}")
        move = mover.move()
    assert winner in (1, 2) or referee.is_full()
    assert black.close() == 0 and white.close() == 0


def test_pygomo_client_plays_a_whole_game() -> None:
    from pygomo.client import EngineClient

    referee = Board(15, 15, 0)
    engine = EngineClient(sys.executable, args=["-m", "protocol.brain"])
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
