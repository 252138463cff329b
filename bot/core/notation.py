"""Move lists in the usual renju notation: ``h8 h10 g7``.

A move is a column letter (``a`` is the leftmost column) and a row number counted from 1 at the
bottom; Black moves first.  Coordinates elsewhere in the engine are Gomocup's ``(x, y)`` with
``y`` counted from the top, so row ``r`` of a board ``height`` high is ``y = height - r``.
"""

from __future__ import annotations

import re

from bot.core.errors import CoordinateError

MOVE = re.compile(r"([a-zA-Z])(\d{1,2})")
MOVE_LIST = re.compile(r"(?:\s*[a-zA-Z]\d{1,2})*\s*")


def parse_move_list(text: str, width: int, height: int) -> list[tuple[int, int]]:
    """The moves of ``text`` as (x, y); CoordinateError names what is wrong (a token that is no
    move, or a move off the board).  Spaces between moves are optional (``h8i9``)."""
    if not MOVE_LIST.fullmatch(text):
        bad = next((token for token in text.split() if not MOVE_LIST.fullmatch(token)), text)
        raise CoordinateError(f"{bad.strip()!r} is not a move (a column letter and a row "
                              "number, e.g. h8)")
    moves = []
    for letter, number in MOVE.findall(text):
        x, row = ord(letter.lower()) - ord("a"), int(number)
        if not (0 <= x < width and 1 <= row <= height):
            raise CoordinateError(f"{letter}{number} is off the {width}x{height} board")
        moves.append((x, height - row))
    return moves


def format_move(x: int, y: int, height: int) -> str:
    """``h8`` for (7, height - 8)."""
    return f"{chr(ord('a') + x)}{height - y}"


def format_move_list(moves: list[tuple[int, int]], height: int) -> str:
    return " ".join(format_move(x, y, height) for x, y in moves)
