"""Shared test helpers: random clustered positions built on both our Board and the naive twin."""

from __future__ import annotations

import os

# The suite tests the kernels' source through the JIT, here and in every brain it starts
# (tests/test_native.py tests the library compiled ahead of time against it).
os.environ.setdefault("SENTE_KERNELS", "jit")

import random
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numba
import numpy as np
import pytest

from bot.core.board import Board
from bot.warmup import kernel_dispatchers
from tests import naive

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).parent / "data"
# NUMBA_DISABLE_JIT=1: the kernels run as the plain Python they are written in (tests marked
# pure_python are run that way by tests/test_pure_python.py), ten to a hundred times slower.
PURE_PYTHON = bool(numba.config.DISABLE_JIT)


def scaled(count: int) -> int:
    """How many random samples a test takes: ``count``, or a few when the kernels are plain
    Python (enough to run every branch of the twins, not to hunt rare cases again)."""
    return max(3, count // 10) if PURE_PYTHON else count
RULES = (0, 1, 4, 8, 9)  # freestyle, exact five, renju, caro, exact caro
SIZES = ((15, 15), (20, 20), (12, 17))


def clustered_position(rng: random.Random, width: int, height: int, rule: int,
                       cell_values: np.ndarray | None = None
                       ) -> tuple[Board, naive.Position, list[tuple[int, int]]]:
    """Stones in a random square patch (dense enough for threes and fours), mostly one colour,
    on a board evaluated with ``cell_values``.

    Returns both boards and the empty cells in and around the patch."""
    board = Board(width, height, rule, cell_values)
    pos = naive.Position(width, height, rule)
    cx, cy, radius = rng.randrange(width), rng.randrange(height), rng.randint(2, 5)
    density, bias = rng.uniform(0.2, 0.6), rng.uniform(0.5, 0.9)
    xs = range(max(0, cx - radius), min(width, cx + radius + 1))
    ys = range(max(0, cy - radius), min(height, cy + radius + 1))
    cells = [(x, y) for x in xs for y in ys]
    rng.shuffle(cells)
    for x, y in cells:
        if rng.random() < density:
            colour = naive.BLACK if rng.random() < bias else naive.WHITE
            board.play(x, y, colour)
            pos.stones[(x, y)] = colour
    around = [(x, y) for x in range(max(0, cx - radius - 1), min(width, cx + radius + 2))
              for y in range(max(0, cy - radius - 1), min(height, cy + radius + 2))
              if (x, y) not in pos.stones]
    return board, pos, around


def run_build(arguments: list[str], native_dir: Path) -> None:
    """Run a build script of build/ with this interpreter and the library in ``native_dir``;
    on failure, fail with the end of what it printed (its output is otherwise captured)."""
    run = subprocess.run([sys.executable, *arguments], cwd=ROOT, timeout=900, capture_output=True,
                         text=True, env=dict(os.environ, SENTE_NATIVE_DIR=str(native_dir)))
    if run.returncode != 0:
        pytest.fail(f"{' '.join(arguments)} exited {run.returncode}\nstdout:\n{run.stdout[-4000:]}"
                    f"\nstderr:\n{run.stderr[-4000:]}", pytrace=False)


@pytest.fixture(scope="session")
def native_library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The kernels compiled ahead of time (build/aot.py) into a folder of the session's."""
    if PURE_PYTHON or not any(shutil.which(cc) for cc in ("cc", "gcc", "cl")):
        pytest.skip("the ahead-of-time library needs the JIT and a C compiler")
    folder = tmp_path_factory.mktemp("native")
    run_build([str(ROOT / "build" / "aot.py")], folder)
    return folder


@pytest.fixture(scope="session")
def frozen_brain(native_library: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The one-file executable of build/freeze, made with this environment's PyInstaller."""
    dist = tmp_path_factory.mktemp("dist")
    run_build([str(ROOT / "build" / "freeze"), "--no-venv", "--dist", str(dist)], native_library)
    return dist / ("pbrain-sente64.exe" if sys.platform == "win32" else "pbrain-sente")


# Fixtures that build the library compiled ahead of time (and the executable made with it)
AHEAD_OF_TIME_FIXTURES = {"native_library", "frozen_brain"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the one-signature check after everything else has called the kernels, and keep the
    tests of the library compiled ahead of time (and of the executable made with it) on one
    pytest-xdist worker: each worker would otherwise build both, minutes each."""
    items.sort(key=lambda item: item.get_closest_marker("run_last") is not None)
    for item in items:
        if AHEAD_OF_TIME_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.xdist_group("ahead_of_time"))


def kernels_with_several_signatures() -> dict[str, list[tuple[str, ...]]]:
    """The kernels this process has compiled for more than one signature, with their types."""
    return {name: [tuple(str(t) for t in sig[1:]) for sig in value.signatures]
            for name, value in kernel_dispatchers().items() if len(value.signatures) > 1}


@pytest.fixture(scope="session", autouse=True)
def one_signature_per_kernel() -> Iterator[None]:
    """After the last test of this process (of each pytest-xdist worker, which sees only its
    own tests' calls): no kernel was compiled for a second signature."""
    yield
    if not PURE_PYTHON:
        several = kernels_with_several_signatures()
        assert not several, f"kernels compiled for more than one signature: {several}"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "run_last: run after every other test")
    config.addinivalue_line("markers", "pure_python: also run with NUMBA_DISABLE_JIT=1")
