"""Misbehaving Gomocup brains for referee tests: ``python tests/fakebrain.py MODE``.

Modes: good (plays the first empty cell nearest the centre), crash, hang, late, occupied,
offboard, junk (junk lines, then a good move), leak (grabs 200 MB, then a good move), slowstart
(its first move 1.5 s late, as a brain that loads slowly, then good moves), judge
(prints an evaluation as Rapfi words it: 10 a stone its own stones minus 10 a stone the
opponent's, or a mate in 7 with six stones or more, then a good move).
"""

import sys
import time

mode = sys.argv[1]
size = 15
stones: set = set()
own: set = set()  # the brain's own stones of the last BOARD
hoard = []
moves_made = 0


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def good_move() -> tuple:
    c = size // 2
    cells = sorted(((x, y) for x in range(size) for y in range(size) if (x, y) not in stones),
                   key=lambda p: (abs(p[0] - c) + abs(p[1] - c), p))
    return cells[0]


def answer() -> None:
    global moves_made
    moves_made += 1
    if mode == "slowstart" and moves_made == 1:
        time.sleep(1.5)
    if mode == "crash":
        sys.exit(3)
    if mode == "hang":
        time.sleep(3600)
    if mode == "late":
        time.sleep(2.5)
    if mode == "occupied" and stones:
        x, y = sorted(stones)[0]
        say(f"{x},{y}")
        return
    if mode == "offboard":
        say("99,99")
        return
    if mode == "junk":
        say("hello there")
        say("\x01\x02 junk")
    if mode == "judge":
        say(f"MESSAGE Depth 3-5 | Eval {10 * (len(own) - len(stones - own))} | Time 1ms")
        if len(stones) >= 6:
            say("MESSAGE Depth 4-7 | Eval +M7 | Time 2ms")
    if mode == "leak":
        hoard.append(bytearray(200 * 2**20))
        for i in range(0, len(hoard[-1]), 4096):
            hoard[-1][i] = 1
    move = good_move()
    stones.add(move)
    say(f"{move[0]},{move[1]}")


in_board = False
for raw in sys.stdin:
    line = raw.strip()
    word = line.split(" ")[0].upper()
    if in_board:
        if word == "DONE":
            in_board = False
            answer()
        else:
            x, y, who = line.split(",")
            stones.add((int(x), int(y)))
            if who == "1":
                own.add((int(x), int(y)))
    elif word == "START":
        size = int(line.split()[1])
        stones.clear()
        say("OK")
    elif word == "RESTART":
        stones.clear()
        say("OK")
    elif word == "BOARD":
        stones.clear()
        own.clear()
        in_board = True
    elif word == "TURN":
        x, y = line.split()[1].split(",")
        stones.add((int(x), int(y)))
        answer()
    elif word == "BEGIN":
        answer()
    elif word == "END":
        break
