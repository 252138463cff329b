"""The manager side of the protocol: drive one brain subprocess as the real managers do.

Lines are read by a thread into a queue so every wait has a wall-clock bound; a brain that hangs
is killed with its whole process tree.  Memory is the sum of the unique memory (USS) of the brain
and all its children, as GomocupJudge counts it.
"""

from __future__ import annotations

import os
import queue
import shlex
import subprocess
import threading
import time
from dataclasses import dataclass

import psutil

MOVE_REPLY_SKIPPED = ("MESSAGE", "DEBUG", "OK", "ERROR", "UNKNOWN")


@dataclass(frozen=True)
class EngineSpec:
    """A brain as a command line; small and serialisable so a game can run anywhere."""

    name: str
    command: tuple[str, ...]
    cwd: str | None = None

    @staticmethod
    def parse(text: str) -> EngineSpec:
        """``NAME=COMMAND LINE`` or just ``COMMAND LINE`` (the name is the program's)."""
        name, sep, command = text.partition("=")
        if not sep or " " in name.strip() or not command.strip():
            name, command = os.path.basename(shlex.split(text)[0]), text
        return EngineSpec(name.strip(), tuple(shlex.split(command)))


class BrainFailure(Exception):
    """The brain broke the protocol; ``cause`` is how (timeout, crash)."""

    def __init__(self, cause: str, detail: str) -> None:
        super().__init__(f"{cause}: {detail}")
        self.cause = cause
        self.detail = detail


class BrainClient:
    """One running brain process."""

    def __init__(self, spec: EngineSpec) -> None:
        self.spec = spec
        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            list(spec.command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, cwd=spec.cwd, start_new_session=True)
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.junk: list[str] = []
        self.messages: list[str] = []  # the MESSAGE lines since the last move read
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.process.stdout is not None
        for raw in iter(self.process.stdout.readline, b""):
            self.lines.put(raw)
        self.lines.put(None)

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def send(self, *lines: str) -> None:
        """Write lines (CRLF, as Piskvork and GomocupJudge do); a dead pipe is a crash."""
        try:
            assert self.process.stdin is not None
            self.process.stdin.write("".join(f"{line}\r\n" for line in lines).encode())
            self.process.stdin.flush()
        except (BrokenPipeError, OSError) as error:
            raise BrainFailure("crash", f"cannot write to the brain: {error}") from None

    def read_line(self, deadline: float) -> str:
        """The next line before ``deadline`` (perf_counter seconds)."""
        try:
            raw = self.lines.get(timeout=max(0.0, deadline - time.perf_counter()))
        except queue.Empty:
            raise BrainFailure("timeout", "no answer in time") from None
        if raw is None:
            raise BrainFailure("crash", f"the brain exited (code {self.process.poll()})")
        return raw.decode("utf-8", errors="replace").strip()

    def read_answer(self, deadline: float, accept: tuple[str, ...] = ("OK",)) -> str:
        """Skip MESSAGE/DEBUG lines until one starting with an accepted word."""
        while True:
            line = self.read_line(deadline)
            if line.upper().startswith(accept):
                return line
            if not line.upper().startswith(MOVE_REPLY_SKIPPED):
                self.junk.append(line[:200])

    def read_move(self, deadline: float) -> tuple[int, int]:
        """The brain's move as (x, y); other lines are skipped (junk is kept in ``junk``, the
        MESSAGE lines sent while it thought in ``messages``)."""
        self.messages = []
        while True:
            line = self.read_line(deadline)
            if line.upper().startswith("MESSAGE"):
                self.messages.append(line[:300])
            if line.upper().startswith(MOVE_REPLY_SKIPPED) or not line:
                continue
            parts = line.split(",")
            if len(parts) == 2:
                try:
                    return int(parts[0]), int(parts[1])
                except ValueError:
                    pass
            self.junk.append(line[:200])

    def memory_bytes(self) -> int:
        """Unique memory of the brain and all its children (RSS where USS is not readable)."""
        total = 0
        try:
            root = psutil.Process(self.process.pid)
            for proc in [root, *root.children(recursive=True)]:
                try:
                    info = proc.memory_full_info()
                    total += getattr(info, "uss", info.rss)
                except (psutil.NoSuchProcess, psutil.AccessDenied):
                    continue
        except psutil.NoSuchProcess:
            return 0
        return total

    def close(self, grace: float = 2.0) -> None:
        """END, a short grace period, then kill the process tree."""
        if self.alive:
            try:
                self.send("END")
            except BrainFailure:
                pass
            try:
                self.process.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                pass
        self.kill()

    def kill(self) -> None:
        try:
            root = psutil.Process(self.process.pid)
            for proc in [*root.children(recursive=True), root]:
                try:
                    proc.kill()
                except psutil.NoSuchProcess:
                    pass
        except psutil.NoSuchProcess:
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        for stream in (self.process.stdin, self.process.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
