"""The brain loop in-process: failures the real process cannot be made to have."""

from __future__ import annotations

from collections.abc import Iterator

from bot.core.board import Board
from bot.engine import Engine
from bot.limits import Limits, Result
from protocol.brain.loop import Brain


class BrokenSearch(Engine):
    """An engine whose search fails in a way no test of the real one can provoke."""

    def think(self, limits: Limits, on_info: object = None, request: int | None = None) -> Result:
        raise RuntimeError("the search kernel broke")


class BrokenHashClear(Engine):
    """Clearing the table works for START, then fails."""

    clears = 0

    def clear_hash(self) -> None:
        self.clears += 1
        if self.clears > 1:
            raise MemoryError("cannot touch the table")
        super().clear_hash()


def run(engine: Engine, lines: list[str]) -> list[str]:
    """Feed the lines to a brain; return what it printed."""
    feed: Iterator[str] = iter(lines)
    out: list[str] = []
    Brain(engine, lambda: next(feed, None), out.append).run()
    return out


def test_a_failed_search_still_plays_a_legal_move_and_the_game_goes_on() -> None:
    out = run(BrokenSearch(), ["INFO timeout_turn 200", "START 15", "TURN 7,7", "TURN 7,8",
                               "ABOUT"])
    assert out[0] == "OK"
    referee = Board(15, 15, 0)
    referee.play(7, 7)
    moves = [line for line in out[1:] if not line.startswith("MESSAGE")]
    messages = [line for line in out if line.startswith("MESSAGE")]
    assert len(messages) == 2 and "the search kernel broke" in messages[0]
    first = tuple(int(v) for v in moves[0].split(","))
    assert referee.is_legal(*first, referee.side_to_move())
    referee.play(*first)
    referee.play(7, 8)
    second = tuple(int(v) for v in moves[1].split(","))
    assert referee.is_legal(*second, referee.side_to_move())
    assert moves[2].startswith('name="Sente"')


def test_an_unexpected_error_in_any_command_is_answered_and_the_brain_goes_on() -> None:
    out = run(BrokenHashClear(), ["START 15", "YXHASHCLEAR", "INFO max_depth 2", "TURN 7,7"])
    assert out[0] == "OK"
    assert out[1].startswith("ERROR internal error in YXHASHCLEAR: MemoryError")
    move = tuple(int(v) for v in out[-1].split(","))
    assert move != (7, 7) and len(out) == 3


def test_show_detail_reports_each_iteration_and_the_move_played_heads_the_last_line() -> None:
    out = run(Engine(), ["INFO max_depth 3", "INFO show_detail 1", "START 15", "TURN 7,7"])
    details = [line for line in out if line.startswith("MESSAGE depth")]
    assert [int(line.split()[2].split("-")[0]) for line in details] == [1, 2, 3]
    assert details[-1].split(" pv ")[1].split()[0] == out[-1]
