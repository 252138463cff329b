"""Composition root: build the Engine and run the brain loop on stdin/stdout."""

from __future__ import annotations

import os
import sys
import warnings


def parse_config(argv: list[str]):  # -> bot.config.Config
    """``--param KEY=VALUE`` options (used by sente-match --selfplay) over the defaults."""
    import argparse
    import dataclasses

    from bot.config import Config

    parser = argparse.ArgumentParser(prog="pbrain-sente", description="Sente Gomocup brain")
    parser.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                        help="engine parameter, e.g. branch=12 (see bot/config.py)")
    args = parser.parse_args(argv)
    fields = {f.name: f for f in dataclasses.fields(Config) if f.type in ("int", "bool")}
    values: dict[str, object] = {}
    for item in args.param:
        key, _, value = item.partition("=")
        if key not in fields:
            parser.error(f"unknown parameter {key!r}; known: {', '.join(sorted(fields))}")
        values[key] = value.lower() in ("1", "true", "yes") if fields[key].type == "bool" \
            else int(value)
    return Config(**values)  # type: ignore[arg-type]


def main() -> None:
    warnings.simplefilter("ignore")  # stderr stays quiet: some managers merge it into stdout
    os.environ.setdefault("NUMBA_DISABLE_PERFORMANCE_WARNINGS", "1")
    import psutil

    process_start = psutil.Process().create_time()  # Gomocup's clock starts at process start

    from bot.engine import Engine
    from protocol.brain import Brain, StdinReader

    engine = Engine(parse_config(sys.argv[1:]))
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
