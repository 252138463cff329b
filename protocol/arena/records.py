"""Game records: SGF (with per-move times), Piskvork .psq, and a PGN for BayesElo/Ordo."""

from __future__ import annotations

from dataclasses import dataclass, field

RESULT_PGN = {1: "1-0", 2: "0-1", 0: "1/2-1/2"}  # PGN White = Black in gomoku (moves first)


@dataclass
class GameRecord:
    """Everything a finished game leaves behind; plain data, JSON-friendly."""

    index: int
    black: str
    white: str
    width: int
    height: int
    rule: int
    opening: list[tuple[int, int]]
    moves: list[tuple[int, int, int]] = field(default_factory=list)  # x, y, milliseconds
    winner: int = 0  # 1 black, 2 white, 0 draw
    cause: str = ""  # five, timeout, crash, illegal, forbidden, memory, full_board, ...
    detail: str = ""
    pair: int = 0
    first_is_black: bool = True  # whether the match's first engine had black

    def all_moves(self) -> list[tuple[int, int, int]]:
        return [(x, y, 0) for x, y in self.opening] + self.moves


def sgf(record: GameRecord) -> str:
    """GM[4] SGF; coordinates as letters from the top-left; per-move time in a comment."""
    def letter(v: int) -> str:
        return chr(ord("a") + v)

    result = {1: "B+", 2: "W+", 0: "0"}[record.winner]
    head = (f"(;GM[4]FF[4]CA[UTF-8]AP[Sente]SZ[{record.width}:{record.height}]"
            f"PB[{_escape(record.black)}]PW[{_escape(record.white)}]RU[{record.rule}]"
            f"RE[{result}]GC[{_escape(record.cause)} {_escape(record.detail)}]")
    body = []
    for i, (x, y, ms) in enumerate(record.all_moves()):
        colour = "B" if i % 2 == 0 else "W"
        body.append(f";{colour}[{letter(x)}{letter(y)}]C[{ms} ms]")
    return head + "".join(body) + ")\n"


def parse_sgf_moves(text: str) -> list[tuple[int, int, int]]:
    """Moves and times back from an SGF written by ``sgf`` (for tests and tools)."""
    moves = []
    for node in text.split(";")[2:]:
        coord = node[2:4]
        ms = int(node.split("C[", 1)[1].split(" ms]", 1)[0])
        moves.append((ord(coord[0]) - ord("a"), ord(coord[1]) - ord("a"), ms))
    return moves


def psq(record: GameRecord) -> str:
    """Piskvork's .psq: a header line, then one ``x,y,ms`` line per move (1-based), then the
    brains' names."""
    lines = [f"Piskvorky {record.width}x{record.height}, 11:11, 0"]
    lines += [f"{x + 1},{y + 1},{ms}" for x, y, ms in record.all_moves()]
    lines += [record.black, record.white, "-1"]
    return "\n".join(lines) + "\n"


def parse_psq(text: str) -> tuple[int, int, list[tuple[int, int, int]]]:
    rows = text.splitlines()
    size = rows[0].split()[1].rstrip(",")
    width, height = (int(v) for v in size.split("x"))
    moves = []
    for row in rows[1:]:
        parts = row.split(",")
        if len(parts) != 3:
            break
        moves.append((int(parts[0]) - 1, int(parts[1]) - 1, int(parts[2])))
    return width, height, moves


def pgn(record: GameRecord) -> str:
    """A move-less PGN game: enough for BayesElo and Ordo to rate the result."""
    result = RESULT_PGN[record.winner]
    return (f'[Event "sente-match"]\n[Round "{record.index + 1}"]\n[White "{record.black}"]\n'
            f'[Black "{record.white}"]\n[Result "{result}"]\n[Termination "{record.cause}"]\n\n'
            f"{result}\n\n")


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")
