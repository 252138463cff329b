"""``sente-book``: the opening-book tools.  ``sente-book prove --help`` for the prover.

``prove`` reads positions, one per line as a move list in renju notation (``h8 h10 g7``: column
letter from ``a``, row number from 1 at the bottom, Black first), and prints one JSON line per
position: ``{"position", "winner", "move", "proof_nodes", "longest", "seconds"}``; ``winner``
is the side to move when a win is proven within the budget (``longest``: stones on the board at
the end of the longest line), else null.  A line that is no legal position gets
``{"position", "error"}`` naming the line, and the next line is read; the exit status is 1 if
any line was refused.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from typing import TextIO

from bot.core.board import Board
from bot.core.errors import BoardError
from bot.core.notation import format_move
from opening_book.positions import position_board
from opening_book.prover import Prover, ProverLimits

COLOUR_NAMES = {1: "black", 2: "white"}


def prove_lines(lines: Iterable[str], size: int, rule: int, budget: int,
                limits: ProverLimits, out: TextIO) -> int:
    """Prove each line's position; returns how many lines were refused."""
    refused = 0
    for number, raw in enumerate(lines, 1):
        text = raw.split("#", 1)[0].strip()
        if not text:  # blank lines and comments
            continue
        try:
            board = position_board(text, size, rule)
        except BoardError as error:
            refused += 1
            out.write(json.dumps({"position": raw.strip(), "error": f"line {number}: {error}"})
                      + "\n")
            out.flush()
            continue
        mover = board.side_to_move()
        proof = Prover(board, limits).prove(budget)
        move = (format_move(*board.point(proof.cell), size) if proof.won else None)
        out.write(json.dumps({"position": text, "winner": COLOUR_NAMES[mover] if proof.won
                              else None, "move": move, "proof_nodes": proof.proof_nodes,
                              "longest": proof.longest, "seconds": round(proof.seconds, 3)})
                  + "\n")
        out.flush()
    return refused


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="sente-book", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    prove = commands.add_parser(
        "prove", help="prove wins for the side to move in positions read from FILE or stdin",
        description=__doc__.split("\n\n", 1)[1])
    prove.add_argument("file", nargs="?", help="positions, one move list per line (default: "
                       "stdin); blank lines and text after # are skipped")
    prove.add_argument("--rule", type=int, default=1,
                       help="Gomocup rule bits: 0 freestyle, 1 exactly five (default), 4 renju")
    prove.add_argument("--size", type=int, default=15, help="board side (default 15)")
    prove.add_argument("--budget", type=int, default=35,
                       help="stones on the board at the end of the longest line (default 35)")
    prove.add_argument("--max-nodes", type=int, default=ProverLimits.max_nodes,
                       help="proof-tree nodes per position before giving up")
    prove.add_argument("--threat-nodes", type=int, default=ProverLimits.threat_nodes,
                       help="nodes per threat search at a leaf")
    prove.add_argument("--width", type=int, default=0,
                       help="attacker moves tried per node, best first (0: all candidates)")
    prove.add_argument("--seconds", type=float, default=0.0,
                       help="time limit per position (0: none)")
    args = parser.parse_args(argv)
    limits = ProverLimits(args.max_nodes, args.threat_nodes, args.width, args.seconds)
    try:
        Board(args.size, args.size, args.rule)
    except BoardError as error:
        parser.error(str(error))
    if args.file:
        with open(args.file, encoding="utf-8") as source:
            refused = prove_lines(source, args.size, args.rule, args.budget, limits, sys.stdout)
    else:
        refused = prove_lines(sys.stdin, args.size, args.rule, args.budget, limits, sys.stdout)
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main())
