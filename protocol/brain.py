"""The Gomocup/Piskvork brain loop: parse a line, call the Engine, print the answer.

Only this module writes to stdout.  Every line gets a protocol answer (or, for INFO, none);
bad input gets ``ERROR ...`` or ``UNKNOWN ...`` and leaves the game as it was.
"""

from __future__ import annotations

import queue
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import psutil

from bot.core import shapes
from bot.core.errors import BoardError
from bot.core.state import RULE_CONTINUOUS, win_definitions
from bot.engine import Engine
from bot.limits import UNLIMITED_MS, Limits, SearchInfo

NAME, VERSION = "Sente", "0.1.0"
ABOUT = (f'name="{NAME}", version="{VERSION}", author="The Sente developers", '
         'country="International", www="https://pypi.org/project/sente/"')
MAX_LINE = 65536  # longer lines are refused without being parsed
MEMORY_HEADROOM = 48 * 2**20  # kept free under max_memory for Python, numba and stacks
POINT = re.compile(r"^\s*(-?\d+)\s*,\s*(-?\d+)\s*$")
BOARD_ROW = re.compile(r"^\s*(-?\d+)\s*,\s*(-?\d+)\s*,\s*(-?\d+)\s*$")


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


class Brain:
    """Protocol state machine; ``lines`` yields input lines, ``send`` writes one output line."""

    def __init__(self, engine: Engine, lines: Callable[[], str | None],
                 send: Callable[[str], None], process_start: float | None = None) -> None:
        self.engine = engine
        self.next_line = lines
        self.send = send
        self.settings = Settings()
        self.size: tuple[int, int] | None = None
        self.pending_error: str | None = None  # answered at the next non-INFO command
        self.process_start = process_start  # the first move pays for start-up
        self.memory_for: tuple[int, int] | None = None
        self.pushback: str | None = None  # a command that ended a block missing its DONE

    # --- loop ---------------------------------------------------------------------------------
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
        self.engine.clear_hash()
        self._fit_memory()
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
            return
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
        """Swap2 opening: 0 stones -> three stones; 3 -> SWAP, one white move or two stones;
        5 -> SWAP or a white move.  Decisions come from a short search's score."""
        rows = self._read_block("SWAP2BOARD")
        board = self.engine.require_board()
        stones = [(x, y, shapes.BLACK if i % 2 == 0 else shapes.WHITE)
                  for i, (x, y, _) in enumerate(rows)]
        if len(stones) not in (0, 3, 5):
            raise ProtocolError(f"SWAP2BOARD with {len(stones)} stones (0, 3 or 5 expected)")
        self.engine.setup(stones)
        if not stones:
            cx, cy = board.width // 2, board.height // 2
            opening = [(cx, cy), (cx + 1, cy - 1), (cx + 1, cy + 1)]
            self.engine.setup([(x, y, c) for (x, y), c in zip(opening, (1, 2, 1))])
            self.send(" ".join(f"{x},{y}" for x, y in opening))
            return
        result = self.engine.think(self._limits(share=0.3))  # white to move
        if len(stones) == 5:
            if result.score < 0:
                self.send("SWAP")
            else:
                self.engine.play(*result.move)
                self.send(f"{result.move[0]},{result.move[1]}")
            return
        if result.score < -SWAP2_MARGIN:
            self.send("SWAP")
        elif result.score > SWAP2_MARGIN:
            self.engine.play(*result.move)
            self.send(f"{result.move[0]},{result.move[1]}")
        else:  # balanced: add a white and a black stone and let the opponent choose
            self.engine.play(*result.move)
            reply = self.engine.think(self._limits(share=0.3))
            self.engine.play(*reply.move)
            self.send(f"{result.move[0]},{result.move[1]} {reply.move[0]},{reply.move[1]}")

    # --- settings and queries -----------------------------------------------------------------
    def info(self, args: str) -> None:
        key, _, value = args.partition(" ")
        key, value = key.lower(), value.strip()
        s = self.settings
        numeric = {"timeout_turn": "timeout_turn", "timeout_match": "timeout_match",
                   "time_left": "time_left", "time_increment": "time_increment",
                   "max_memory": "max_memory", "hash_size": "hash_size_mib",
                   "max_depth": "max_depth", "max_node": "max_nodes", "game_type": "game_type"}
        if key in numeric:
            try:
                setattr(s, numeric[key], int(value))
            except ValueError:
                return  # INFO has no answer: a malformed value is ignored
            if key in ("max_memory", "hash_size"):
                self._fit_memory()
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
        board = self.engine.board
        if board is not None and board.rule != rule & ~RULE_CONTINUOUS:
            stones = [(x, y, board.stone(x, y)) for x, y in board.moves()]
            self.engine.new_game(board.width, board.height, rule & ~RULE_CONTINUOUS)
            self.engine.setup(stones)

    def about(self, _: str) -> None:
        self.send(ABOUT)

    def yxstop(self, _: str) -> None:
        """Stop thinking: handled by the reader thread while a search runs; idle, ignored."""

    def yxhashclear(self, _: str) -> None:
        self.engine.clear_hash()

    def yxshowforbid(self, _: str) -> None:
        board = self.engine.require_board()
        points = "".join(f"{x:02d}{y:02d}" for x, y in board.forbidden_points())
        self.send(f"FORBID {points}.")

    # --- thinking -----------------------------------------------------------------------------
    def _limits(self, share: float = 1.0) -> Limits:
        s = self.settings
        startup = 0.0
        if self.process_start is not None:
            startup = max(0.0, (time.time() - self.process_start) * 1000.0)
            self.process_start = None
        return Limits(timeout_turn_ms=int(s.timeout_turn * share), timeout_match_ms=s.timeout_match,
                      time_left_ms=s.time_left, time_increment_ms=s.time_increment,
                      max_depth=s.max_depth, max_nodes=s.max_nodes, startup_ms=startup)

    def _move(self) -> None:
        on_info = self._report if self.settings.show_detail else None
        result = self.engine.think(self._limits(), on_info)
        self.engine.play(*result.move)
        self.send(f"{result.move[0]},{result.move[1]}")

    def _report(self, info: SearchInfo) -> None:
        pv = " ".join(f"{x},{y}" for x, y in info.pv)
        self.send(f"MESSAGE depth {info.depth}-{info.seldepth} ev {info.score} "
                  f"n {info.nodes} n/s {info.nps:.0f} tm {info.elapsed_ms:.0f} pv {pv}")

    def _fit_memory(self) -> None:
        """Size the transposition table from hash_size and max_memory (whole process)."""
        s = self.settings
        if self.memory_for == (s.max_memory, s.hash_size_mib):
            return
        self.memory_for = (s.max_memory, s.hash_size_mib)
        wanted = float(s.hash_size_mib) if s.hash_size_mib > 0 else 64.0
        if s.max_memory > 0:
            used = psutil.Process().memory_info().rss - self.engine.table_bytes()
            room = (s.max_memory - used - MEMORY_HEADROOM) / 2**20
            wanted = min(wanted, room)
        self.engine.resize_table(wanted)


SWAP2_MARGIN = 150  # |score| below this counts as balanced in swap2 decisions
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


def _int(text: str, message: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise ProtocolError(message) from None


def _point(text: str, command: str) -> tuple[int, int]:
    match = POINT.match(text)
    if not match:
        raise ProtocolError(f"{command} needs x,y, got {_printable(text)!r}")
    return int(match[1]), int(match[2])


class StdinReader:
    """Reads stdin on a thread so YXSTOP and END reach a running search."""

    def __init__(self, stream, on_stop: Callable[[], None]) -> None:  # type: ignore[no-untyped-def]
        self.stream = stream
        self.on_stop = on_stop
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        while True:
            raw = self.stream.readline(MAX_LINE + 2)
            if not raw:
                self.lines.put(None)
                return
            if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
                while raw and not raw.endswith(b"\n"):  # drop the rest of an endless line
                    raw = self.stream.readline(MAX_LINE)
                self.lines.put("X" * (MAX_LINE + 1))
                continue
            text = raw.decode("utf-8", errors="replace")
            word = text.strip().split(" ", 1)[0].upper()
            if word in ("YXSTOP", "END"):
                self.on_stop()
            self.lines.put(text)

    def next_line(self) -> str | None:
        return self.lines.get()
