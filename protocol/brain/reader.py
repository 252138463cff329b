"""Reads stdin on a thread, so a stop request reaches a search that is running."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import BinaryIO

MAX_LINE = 65536  # longer lines are refused without being parsed
TOO_LONG = "X" * (MAX_LINE + 1)  # what the brain is handed for a line longer than MAX_LINE
STOP_WORDS = ("YXSTOP", "END")


class StdinReader:
    """Queues input lines in order; on a stop word it calls ``on_stop(n)`` at once, ``n`` being
    the line's number (the first line is 1), so the engine stops the searches for earlier lines
    whether they are running or still queued."""

    def __init__(self, stream: BinaryIO, on_stop: Callable[[int], None]) -> None:
        self.stream = stream
        self.on_stop = on_stop
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.count = 0
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        try:
            self._read_until_eof()
        finally:  # whatever ends the reading, the brain sees the end of input, never a hang
            self.lines.put(None)

    def _read_until_eof(self) -> None:
        while True:
            try:
                raw = self.stream.readline(MAX_LINE + 2)
            except (OSError, ValueError):  # a closed or broken stdin ends the input
                return
            if not raw:
                return
            self.count += 1
            if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
                while raw and not raw.endswith(b"\n"):  # drop the rest of an endless line
                    raw = self.stream.readline(MAX_LINE)
                self.lines.put(TOO_LONG)
                continue
            text = raw.decode("utf-8", errors="replace")
            if text.strip().split(" ", 1)[0].upper() in STOP_WORDS:
                self.on_stop(self.count)
            self.lines.put(text)

    def next_line(self) -> str | None:
        """The next line, or None at the end of input."""
        return self.lines.get()
