"""Positions given as move lists (renju notation), checked to be legal, unfinished games."""

from __future__ import annotations

from bot.core.board import Board
from bot.core.errors import BoardError
from bot.core.notation import format_move, format_move_list, parse_move_list
from bot.core.shapes import BLACK


def position_board(text: str, size: int, rule: int) -> Board:
    """The position a move list reaches; BoardError if it is no legal, unfinished game."""
    board = Board(size, size, rule)
    moves = parse_move_list(text, size, size)
    for index, (x, y) in enumerate(moves):
        colour = _colour(index)
        if board.stone(x, y):
            raise BoardError(f"move {index + 1} ({format_move(x, y, size)}) is on an occupied "
                             "cell")
        if not board.is_legal(x, y, colour):
            raise BoardError(f"move {index + 1} ({format_move(x, y, size)}) is a forbidden "
                             "point for black")
        if board.play(x, y, colour):
            raise BoardError(f"move {index + 1} ({format_move(x, y, size)}) ends the game: "
                             "nothing is left to prove")
    if board.is_full():
        raise BoardError("the board is full")
    return board


def moved_stone_twins(text: str, size: int, rule: int) -> dict[int, str]:
    """The positions that differ from the one a move list reaches (the attacker to move) only by
    one of the defender's stones before its last, moved to another empty cell: by canonical
    key, a move list that reaches each (the stone's move replaced).  (The last one moved gives
    the siblings, the other replies to the attacker's move above.)"""
    points = parse_move_list(text, size, size)
    own_key = position_board(text, size, rule).canonical_key()[0]
    twins: dict[int, str] = {}
    for index in range(len(points) - 3, -1, -2):
        board = Board(size, size, rule)
        for other, (x, y) in enumerate(points):
            if other != index:
                board.play(x, y, _colour(other))
        for y in range(size):
            for x in range(size):
                if board.stone(x, y) or (x, y) == points[index]:
                    continue
                board.play(x, y, _colour(index))
                key = board.canonical_key()[0]
                board.undo()
                if key != own_key and key not in twins:
                    twins[key] = format_move_list(
                        [*points[:index], (x, y), *points[index + 1:]], size)
    return twins


def _colour(index: int) -> int:
    """The colour of a move list's move ``index`` (from 0, Black first)."""
    return BLACK if index % 2 == 0 else 3 - BLACK
