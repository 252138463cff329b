"""The Gomocup/Piskvork brain loop: parse a line, call the Engine, print the answer.

Only this package writes to stdout.  Every line gets a protocol answer (or, for INFO, none);
bad input gets ``ERROR ...`` or ``UNKNOWN ...`` and leaves the game as it was.  No failure of
one command ends the brain: an unexpected one is answered ``ERROR internal error ...``, and when
a move is owed the brain still plays a legal one.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from bot.core import shapes
from bot.core.errors import BoardError
from bot.core.state import RULE_CONTINUOUS, win_definitions
from bot.engine import Engine
from bot.limits import UNLIMITED_MS, Limits, SearchInfo
from protocol.brain.about import ABOUT
from protocol.brain.reader import MAX_LINE

# Coordinates and fields: at most 9 digits, so no number in a command can be huge.
NUMBER = r"(-?\d{1,9})"
POINT = re.compile(rf"^\s*{NUMBER}\s*,\s*{NUMBER}\s*$")
BOARD_ROW = re.compile(rf"^\s*{NUMBER}\s*,\s*{NUMBER}\s*,\s*{NUMBER}\s*$")


class ProtocolError(ValueError):
    """A malformed command: answered with ERROR, the game unchanged."""


@dataclass
class Settings:
    """INFO values as the manager sent them."""

    timeout_turn: int = 30000
    timeout_match: int = 0
    time_left: int = UNLIMITED_MS
    time_increment: int = 0
    max_memory: int = 0
    hash_size_mib: int = 0
    max_depth: int = 0
    max_nodes: int = 0
    rule: int = 0
    game_type: int = 1
    show_detail: bool = False
    folder: str = ""
    extra: dict[str, str] = field(default_factory=dict)


# INFO values are clamped: times and counts to 32 bits (the protocol's own range, and what a
# timer can wait for), max_memory to a petabyte.
INT32_MAX = 2**31 - 1
MAX_MEMORY_VALUE = 2**50
NUMERIC_INFO = {"timeout_turn": "timeout_turn", "timeout_match": "timeout_match",
                "time_left": "time_left", "time_increment": "time_increment",
                "max_memory": "max_memory", "hash_size": "hash_size_mib",
                "max_depth": "max_depth", "max_node": "max_nodes", "game_type": "game_type"}


class Brain:
    """Protocol state machine; ``lines`` yields input lines, ``send`` writes one output line.

    Lines are numbered as they are read (the first is 1), as ``reader.StdinReader`` numbers
    them: a search is the request of the last line read, so a stop read after it stops it."""

    def __init__(self, engine: Engine, lines: Callable[[], str | None],
                 send: Callable[[str], None], process_start: float | None = None) -> None:
        self.engine = engine
        self._next_line = lines
        self.send = send
        self.settings = Settings()
        self.size: tuple[int, int] | None = None
        self.pending_error: str | None = None  # answered at the next non-INFO command
        self.process_start = process_start  # the first move pays for start-up
        self.pushback: str | None = None  # a command that ended a block missing its DONE
        self.lines_read = 0

    # --- loop ---------------------------------------------------------------------------------
    def next_line(self) -> str | None:
        line = self._next_line()
        if line is not None:
            self.lines_read += 1
        return line

    def run(self) -> None:
        while True:
            line, self.pushback = (self.pushback, None) if self.pushback else (self.next_line(),
                                                                             None)
            if line is None or not self.handle(line):
                return

    def handle(self, line: str) -> bool:
        """Answer one command line; False when the brain must exit."""
        line = line.strip()
        if not line:
            return True
        if len(line) > MAX_LINE:
            self.send("ERROR line too long")
            return True
        word, _, rest = line.partition(" ")
        command = word.upper()
        if command == "END":
            return False
        if command != "INFO" and self.pending_error:
            message, self.pending_error = self.pending_error, None
            try:
                if command in BLOCK_COMMANDS:
                    self._read_block(command)
            except ProtocolError:
                pass
            self.send(f"ERROR {message}")
            return True
        handler = COMMANDS.get(command)
        if handler is None:
            self.send(f"UNKNOWN command {_printable(word)!r}")
            return True
        try:
            handler(self, rest.strip())
        except (BoardError, ProtocolError) as error:
            self.send(f"ERROR {error}")
        except Exception as error:  # noqa: BLE001 - no failure of one command ends the brain
            self.send(f"ERROR internal error in {command}: {_describe(error)}")
        return True

    # --- game commands ------------------------------------------------------------------------
    def start(self, args: str) -> None:
        size = _int(args, "START needs a board size, e.g. START 15")
        self._new_game(size, size)

    def rectstart(self, args: str) -> None:
        match = POINT.match(args)
        if not match:
            raise ProtocolError("RECTSTART needs width,height, e.g. RECTSTART 20,15")
        self._new_game(int(match[1]), int(match[2]))

    def _new_game(self, width: int, height: int) -> None:
        rule = self.settings.rule & ~RULE_CONTINUOUS
        try:
            self.engine.new_game(width, height, rule)
        except BoardError as error:
            raise ProtocolError(f"unsupported board {width}x{height}: {error}") from error
        self.size = (width, height)
        self.send("OK")

    def restart(self, _: str) -> None:
        if self.size is None:
            raise ProtocolError("RESTART before START")
        self._new_game(*self.size)

    def begin(self, _: str) -> None:
        board = self.engine.require_board()
        if board.ply:
            raise ProtocolError("BEGIN on a board that already has stones")
        self._move()

    def turn(self, args: str) -> None:
        board = self.engine.require_board()
        x, y = _point(args, "TURN")
        self.engine.play(x, y)
        if board.is_full():
            raise ProtocolError(f"the board is full after {x},{y}: no move is left to play")
        self._move()

    def play(self, args: str) -> None:
        x, y = _point(args, "PLAY")
        self.engine.play(x, y)
        self.send(f"{x},{y}")

    def takeback(self, args: str) -> None:
        x, y = _point(args, "TAKEBACK")
        self.engine.remove(x, y)
        self.send("OK")

    def board(self, _: str) -> None:
        self._setup(self._read_block("BOARD"))
        self._move()

    def yxboard(self, _: str) -> None:
        self._setup(self._read_block("YXBOARD"))

    def _read_block(self, command: str = "") -> list[tuple[int, int, int]]:
        """Rows up to DONE; a malformed row is reported once the block has been read."""
        rows: list[tuple[int, int, int]] = []
        problem = ""
        while True:
            line = self.next_line()
            if line is None:
                raise ProtocolError(f"{command} ended without DONE")
            text = line.strip()
            if text.upper() == "DONE":
                break
            if not text:
                continue
            if text.split(" ", 1)[0].upper() in COMMANDS or text.upper() == "END":
                self.pushback = line
                raise ProtocolError(f"{command} ended without DONE")
            match = BOARD_ROW.match(text) or POINT.match(text)
            if match and len(match.groups()) == 3:
                rows.append((int(match[1]), int(match[2]), int(match[3])))
            elif match:
                rows.append((int(match[1]), int(match[2]), 0))
            elif not problem:
                problem = f"bad {command} line {_printable(text)!r}"
        if problem:
            raise ProtocolError(problem)
        return rows

    def _setup(self, rows: list[tuple[int, int, int]]) -> None:
        """BOARD rows (field 1 own, 2 opponent) in game order; we are black on equal counts."""
        if any(f == 3 for _, _, f in rows):
            raise ProtocolError("field 3 (continuous game) is not supported")
        if any(f not in (1, 2) for _, _, f in rows):
            raise ProtocolError("BOARD fields must be 1 (own) or 2 (opponent)")
        own = sum(1 for _, _, f in rows if f == 1)
        opponent = len(rows) - own
        if own == opponent:
            colours = {1: shapes.BLACK, 2: shapes.WHITE}
        elif own + 1 == opponent:
            colours = {1: shapes.WHITE, 2: shapes.BLACK}
        else:
            raise ProtocolError(f"impossible stone counts: {own} own, {opponent} opponent")
        self.engine.setup([(x, y, colours[f]) for x, y, f in rows])

    def swap2board(self, _: str) -> None:
        """Swap2 opening: the stones so far (black, white, black, ...) up to DONE; the engine
        decides (see Engine.swap2)."""
        rows = self._read_block("SWAP2BOARD")
        if len(rows) not in (0, 3, 5):
            raise ProtocolError(f"SWAP2BOARD with {len(rows)} stones (0, 3 or 5 expected)")
        self.engine.require_board()
        self.engine.setup([(x, y, shapes.BLACK if i % 2 == 0 else shapes.WHITE)
                           for i, (x, y, _) in enumerate(rows)])
        answer = self.engine.swap2(self._limits(), request=self.lines_read)
        self.send("SWAP" if answer.swap else " ".join(f"{x},{y}" for x, y in answer.stones))

    # --- settings and queries -----------------------------------------------------------------
    def info(self, args: str) -> None:
        key, _, value = args.partition(" ")
        key, value = key.lower(), value.strip()
        s = self.settings
        if key in NUMERIC_INFO:
            if not re.fullmatch(r"-?\d{1,19}", value):
                return  # INFO has no answer: a malformed value is ignored
            ceiling = MAX_MEMORY_VALUE if key == "max_memory" else INT32_MAX
            setattr(s, NUMERIC_INFO[key], max(-INT32_MAX - 1, min(int(value), ceiling)))
            if key in ("max_memory", "hash_size"):
                self.engine.set_memory(s.max_memory, s.hash_size_mib)
        elif key == "rule":
            self._set_rule(value)
        elif key == "show_detail":
            s.show_detail = value not in ("0", "")
        elif key == "folder":
            s.folder = value
        else:
            s.extra[key] = value  # evaluate, thread_num and unknown keys: accepted, no effect

    def _set_rule(self, value: str) -> None:
        try:
            rule = int(value)
            win_definitions(rule)
        except ValueError:
            self.pending_error = f"unsupported rule {_printable(value)!r}"
            return
        if rule & RULE_CONTINUOUS:
            self.pending_error = "continuous game (rule bit 2) is not supported"
        self.settings.rule = rule
        self.engine.set_rule(rule & ~RULE_CONTINUOUS)

    def about(self, _: str) -> None:
        self.send(ABOUT)

    def yxstop(self, _: str) -> None:
        """Stop thinking: the reader thread has already told the engine; idle, nothing to do."""

    def yxhashclear(self, _: str) -> None:
        self.engine.clear_hash()

    def yxshowforbid(self, _: str) -> None:
        board = self.engine.require_board()
        points = "".join(f"{x:02d}{y:02d}" for x, y in board.forbidden_points())
        self.send(f"FORBID {points}.")

    # --- thinking -----------------------------------------------------------------------------
    def _limits(self) -> Limits:
        s = self.settings
        startup = 0.0
        if self.process_start is not None:
            startup = max(0.0, (time.time() - self.process_start) * 1000.0)
            self.process_start = None
        return Limits(timeout_turn_ms=s.timeout_turn, timeout_match_ms=s.timeout_match,
                      time_left_ms=s.time_left, time_increment_ms=s.time_increment,
                      max_depth=s.max_depth, max_nodes=s.max_nodes, startup_ms=startup)

    def _move(self) -> None:
        """Think and play; if the search fails, say why and play a move found without it."""
        on_info = self._report if self.settings.show_detail else None
        try:
            move = self.engine.think(self._limits(), on_info, request=self.lines_read).move
        except BoardError:
            raise
        except Exception as error:  # noqa: BLE001 - a move is owed whatever went wrong
            self.send(f"MESSAGE search failed ({_describe(error)}); playing a move without it")
            move = self.engine.fallback_move()
        self.engine.play(*move)
        self.send(f"{move[0]},{move[1]}")

    def _report(self, info: SearchInfo) -> None:
        pv = " ".join(f"{x},{y}" for x, y in info.pv)
        self.send(f"MESSAGE depth {info.depth}-{info.seldepth} ev {info.score} "
                  f"n {info.nodes} n/s {info.nps:.0f} tm {info.elapsed_ms:.0f} pv {pv}")


BLOCK_COMMANDS = {"BOARD", "YXBOARD", "SWAP2BOARD"}
COMMANDS: dict[str, Callable[[Brain, str], None]] = {
    "START": Brain.start, "RECTSTART": Brain.rectstart, "RESTART": Brain.restart,
    "BEGIN": Brain.begin, "TURN": Brain.turn, "BOARD": Brain.board, "YXBOARD": Brain.yxboard,
    "INFO": Brain.info, "ABOUT": Brain.about, "TAKEBACK": Brain.takeback, "PLAY": Brain.play,
    "SWAP2BOARD": Brain.swap2board, "YXSTOP": Brain.yxstop, "YXHASHCLEAR": Brain.yxhashclear,
    "YXSHOWFORBID": Brain.yxshowforbid,
}


def _printable(text: str, limit: int = 40) -> str:
    return "".join(c if c.isprintable() and ord(c) < 128 else "?" for c in text[:limit])


def _describe(error: BaseException) -> str:
    """One short printable line naming an unexpected error."""
    return _printable(f"{type(error).__name__}: {error}", 120)


def _int(text: str, message: str) -> int:
    if not re.fullmatch(rf"\s*{NUMBER}\s*", text):
        raise ProtocolError(message)
    return int(text)


def _point(text: str, command: str) -> tuple[int, int]:
    match = POINT.match(text)
    if not match:
        raise ProtocolError(f"{command} needs x,y, got {_printable(text)!r}")
    return int(match[1]), int(match[2])
