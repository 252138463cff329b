"""Composition root: build the Engine and run the brain loop on stdin/stdout."""

from __future__ import annotations

import os
import sys
import warnings


def main() -> None:
    warnings.simplefilter("ignore")  # stderr stays quiet: some managers merge it into stdout
    os.environ.setdefault("NUMBA_DISABLE_PERFORMANCE_WARNINGS", "1")
    import psutil

    process_start = psutil.Process().create_time()  # Gomocup's clock starts at process start

    from bot.engine import Engine
    from protocol.brain import Brain, StdinReader

    engine = Engine()
    reader = StdinReader(sys.stdin.buffer, engine.stop)

    def send(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    Brain(engine, reader.next_line, send, process_start).run()
    sys.stdout.flush()
    # The reader thread may sit in a blocking read of stdin; a normal interpreter shutdown
    # would then abort on stdin's lock, so leave at once (nothing is left to clean up).
    os._exit(0)


if __name__ == "__main__":
    main()
