"""A brain process driven through pexpect's pipe spawner (stdout and stderr merged, as
c-gomoku-cli's -log does), so every stray byte on either stream shows up in the answers."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pexpect
import psutil
from pexpect.popen_spawn import PopenSpawn

LINE = re.compile(r"([^\r\n]*)\r?\n")
MOVE = re.compile(r"^(\d+),(\d+)$")
PYTHON_BRAIN = [sys.executable, "-m", "protocol.brain"]


class BrainProcess:
    def __init__(self, timeout: float = 60.0, env: dict[str, str] | None = None,
                 command: list[str] | None = None) -> None:
        """``env``: the brain's environment (None: this process's); ``command``: the brain
        (None: ``python -m protocol.brain``; the frozen executable is another)."""
        self.child = PopenSpawn(command or PYTHON_BRAIN, encoding="utf-8",
                                timeout=timeout, codec_errors="replace", env=env)

    def send(self, *lines: str) -> None:
        for line in lines:
            self.child.sendline(line)

    def send_bytes(self, raw: bytes) -> None:
        self.child.proc.stdin.write(raw)  # bytes as they are, past the text encoder
        self.child.proc.stdin.flush()

    def read(self, timeout: float | None = 60.0) -> str:
        self.child.expect(LINE, timeout=timeout)
        return self.child.match.group(1)

    def ask(self, line: str, timeout: float = 60.0) -> str:
        self.send(line)
        return self.read(timeout)

    def move(self, timeout: float = 60.0) -> tuple[int, int]:
        """The next move line, skipping MESSAGE/DEBUG lines; fails on anything else."""
        while True:
            line = self.read(timeout)
            if line.startswith(("MESSAGE", "DEBUG")):
                continue
            match = MOVE.match(line)
            assert match, f"expected a move, got {line!r}"
            return int(match[1]), int(match[2])

    def expect_silence(self, seconds: float = 0.5) -> None:
        """Nothing more is printed for a while."""
        index = self.child.expect([LINE, pexpect.TIMEOUT], timeout=seconds)
        assert index == 1, f"unexpected output {self.child.match.group(0)!r}"

    def memory_mib(self) -> tuple[float, float]:
        """Peak and current resident memory of the brain's process tree (a one-file executable
        runs in a child of its unpacker), each summed over the processes, in MiB."""
        root = psutil.Process(self.child.proc.pid)
        peak = current = 0
        for process in [root, *root.children(recursive=True)]:
            status = Path(f"/proc/{process.pid}/status")
            if status.exists():  # Linux
                fields = dict(line.split(":", 1) for line in status.read_text().splitlines()
                              if ":" in line)
                peak += int(fields["VmHWM"].split()[0]) * 1024
                current += int(fields["VmRSS"].split()[0]) * 1024
            else:  # Windows reports the peak working set
                info = process.memory_info()
                peak += getattr(info, "peak_wset", info.rss)
                current += info.rss
        return peak / 2**20, current / 2**20

    def close(self) -> int:
        """END, then the exit status (the process must exit on its own)."""
        self.send("END")
        self.child.expect(pexpect.EOF, timeout=30)
        return self.child.wait()
