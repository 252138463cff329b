"""Composition root: build the Engine and run the brain loop on stdin/stdout."""

from __future__ import annotations

import os
import sys
import warnings
from typing import TYPE_CHECKING

from protocol.brain.about import GREETING

if TYPE_CHECKING:
    import psutil

    from bot.config import Config


def parse_arguments(argv: list[str]) -> tuple[Config, str | None]:
    """``--param KEY=VALUE`` options (used by sente-match --selfplay) over the defaults, and the
    benchmark ``--bench`` asks for (None: run the brain)."""
    import argparse
    import dataclasses

    from bot.config import Config

    parser = argparse.ArgumentParser(prog="pbrain-sente", description="Sente Gomocup brain")
    parser.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                        help="engine parameter, e.g. branch=12 (see bot/config.py)")
    parser.add_argument("--bench", choices=["search", "core"],
                        help="run a benchmark (bot.bench) instead of the brain: the frozen "
                             "executable's own figures")
    args = parser.parse_args(argv)
    fields = {f.name: f for f in dataclasses.fields(Config) if f.type in ("int", "bool")}
    values: dict[str, int | bool] = {}
    for item in args.param:
        key, _, value = item.partition("=")
        if key not in fields:
            parser.error(f"unknown parameter {key!r}; known: {', '.join(sorted(fields))}")
        try:
            values[key] = (value.lower() in ("1", "true", "yes") if fields[key].type == "bool"
                           else int(value))
        except ValueError:
            parser.error(f"parameter {key} needs a whole number, got {value!r}")
    return Config(**values), args.bench  # type: ignore[arg-type]


def _process_start(process: psutil.Process) -> float:
    """When the process the manager started began: a one-file executable runs Python in a
    child of its own unpacking process, so that parent's start counts."""
    if getattr(sys, "frozen", False):
        parent = process.parent()
        try:
            if parent is not None and parent.exe() == process.exe():
                return parent.create_time()
        except psutil.Error:
            pass
    return process.create_time()


def main() -> None:
    warnings.simplefilter("ignore")  # stderr stays quiet: some managers merge it into stdout
    os.environ.setdefault("NUMBA_DISABLE_PERFORMANCE_WARNINGS", "1")
    import psutil

    process_start = _process_start(psutil.Process())  # Gomocup's clock starts there
    config, benchmark = parse_arguments(sys.argv[1:])
    if benchmark is not None:  # the frozen executable's own figures
        from bot import bench

        sys.exit(bench.main([benchmark]))

    def send(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    if sys.stdin.isatty():  # a person at a terminal, not a manager on a pipe
        send(GREETING)

    from bot.core.native import fallback_reason
    from bot.engine import Engine
    from opening_book.book import load_shipped
    from protocol.brain.loop import Brain
    from protocol.brain.reader import StdinReader

    reason = fallback_reason()
    if reason is not None:  # said once: the first game may lose time to compiling
        send(f"MESSAGE {reason}; until then numba compiles the kernels (15-20 s at a first "
             "start, cached afterwards)")
    engine = Engine(config, book=load_shipped(1, 15))  # the strategy graph for 15x15 exact five
    reader = StdinReader(sys.stdin.buffer, lambda line: engine.stop(issued_at=line))
    Brain(engine, reader.next_line, send, process_start).run()
    sys.stdout.flush()
    # The reader thread may sit in a blocking read of stdin; a normal interpreter shutdown
    # would then abort on stdin's lock, so leave at once (nothing is left to clean up).
    os._exit(0)


if __name__ == "__main__":
    main()
