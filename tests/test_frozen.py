"""The frozen executable (build/freeze) beyond the protocol tests it shares with the Python brain
(tests/test_brain_process.py): it runs alone from any folder, and plays whole games in sente-match
against the JIT brain."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from pathlib import Path

from bot.core.board import Board
from protocol.arena import match, records
from tests.brainproc import PYTHON_BRAIN


def test_the_executable_runs_alone_from_any_folder(frozen_brain: Path, tmp_path: Path) -> None:
    alone = tmp_path / "alone"
    alone.mkdir()
    copy = alone / frozen_brain.name
    shutil.copy(frozen_brain, copy)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = subprocess.run([str(copy)], input="START 20\nBEGIN\nTURN 3,4\nEND\n", cwd=elsewhere,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stderr == ""
    answers = done.stdout.split()
    assert answers[0] == "OK" and len(answers) == 3
    board = Board(20, 20, 0)
    board.play(*map(int, answers[1].split(",")))
    board.play(3, 4)
    assert board.is_legal(*map(int, answers[2].split(",")), board.side_to_move())
    assert list(alone.iterdir()) == [copy] and list(elsewhere.iterdir()) == []  # nothing written


def test_the_frozen_brain_plays_a_match_against_the_jit_brain(frozen_brain: Path,
                                                            tmp_path: Path) -> None:
    out = tmp_path / "m"
    match.main(["--engine", f"Frozen={frozen_brain}", f"Python={shlex.join(PYTHON_BRAIN)}",
                "--games", "2", "--concurrency", "2", "--timeout-turn", "200",
                "--tolerance", "6000", "--out", str(out), "--quiet", "--seed", "5"])
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(results) == 2
    for result in results:
        assert result["cause"] in ("five", "full_board"), result  # no forfeit, crash or foul
        stem = out / "games" / f"{result['index'] + 1:05d}"
        board = Board(15, 15, 0)
        moves = records.parse_sgf_moves(stem.with_suffix(".sgf").read_text())
        assert all(not board.play(x, y) for x, y, _ in moves[:-1])
        assert board.play(*moves[-1][:2]) == (result["cause"] == "five")
