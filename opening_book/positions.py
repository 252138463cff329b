"""Positions given as move lists (renju notation), checked to be legal, unfinished games."""

from __future__ import annotations

from bot.core.board import Board
from bot.core.errors import BoardError
from bot.core.notation import format_move, parse_move_list
from bot.core.shapes import BLACK


def position_board(text: str, size: int, rule: int) -> Board:
    """The position a move list reaches; BoardError if it is no legal, unfinished game."""
    board = Board(size, size, rule)
    moves = parse_move_list(text, size, size)
    for index, (x, y) in enumerate(moves):
        colour = BLACK if index % 2 == 0 else 3 - BLACK
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
