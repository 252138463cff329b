"""The kernels compiled ahead of time (build/aot.py, bot.core.native) against the JIT's: the same
bench signature (the frozen executable's too), a brain that plays without numba or numpy, and
the fallback when the library is missing or stale.  Building the library takes about a minute,
once for the session (tests/conftest.py)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bot.core import native
from bot.warmup import kernel_dispatchers
from tests.brainproc import BrainProcess
from tests.conftest import PURE_PYTHON

ROOT = Path(__file__).resolve().parents[1]
SIGNATURE = re.compile(r"bench signature: (\d+) nodes")

pytestmark = pytest.mark.skipif(PURE_PYTHON, reason="needs the JIT")


def environment(**values: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(values)
    return env


@pytest.fixture(scope="module")
def library(native_library: Path) -> Path:
    return native_library


def bench_signature(command: list[str], env: dict[str, str]) -> int:
    done = subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True,
                          text=True, timeout=900)
    found = SIGNATURE.search(done.stdout)
    assert found, done.stdout
    return int(found[1])


def test_every_kernel_is_in_the_library(library: Path) -> None:
    """bot.warmup must reach every kernel: one it misses would fail when the brain calls it."""
    built = set(json.loads((library / "kernels.json").read_text())["kernels"])
    assert set(kernel_dispatchers()) == built


@pytest.fixture(scope="module")
def jit_signature() -> int:
    return bench_signature([sys.executable, "-m", "bot.bench", "search"],
                           environment(SENTE_KERNELS="jit"))


def test_the_native_kernels_search_the_same_nodes_as_the_jit(library: Path,
                                                            jit_signature: int) -> None:
    native_nodes = bench_signature([sys.executable, "-m", "bot.bench", "search"],
                                   environment(SENTE_KERNELS="native",
                                               SENTE_NATIVE_DIR=str(library)))
    assert native_nodes == jit_signature


def test_the_frozen_brain_searches_the_same_nodes_as_the_jit(frozen_brain: Path,
                                                            jit_signature: int) -> None:
    assert bench_signature([str(frozen_brain), "--bench", "search"], dict(os.environ)) \
        == jit_signature


def test_the_native_backend_never_imports_numba_or_numpy(library: Path) -> None:
    script = ("import sys\n"
              "from bot.engine import Engine\n"
              "from bot.limits import Limits\n"
              "engine = Engine()\n"
              "engine.new_game(15, 15, 4)\n"
              "engine.setup([(7, 7, 1), (8, 8, 2), (7, 8, 1)])\n"
              "print(engine.think(Limits(timeout_turn_ms=5000, max_depth=3)).move)\n"
              "print(*(name in sys.modules for name in ('numba', 'llvmlite', 'numpy')))\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, check=True, text=True,
                          capture_output=True, timeout=300,
                          env=environment(SENTE_KERNELS="native", SENTE_NATIVE_DIR=str(library)))
    move, imported = done.stdout.splitlines()
    assert imported == "False False False"  # the frozen brain carries none of them
    assert re.fullmatch(r"\(\d+, \d+\)", move)


def test_a_native_brain_plays_a_game_opening_without_a_word_of_warning(library: Path) -> None:
    brain = BrainProcess(env=environment(SENTE_KERNELS="native", SENTE_NATIVE_DIR=str(library)))
    try:
        assert brain.ask("START 15") == "OK"
        brain.send("INFO timeout_turn 300", "BOARD", "7,7,1", "8,8,2", "DONE")
        first = brain.move()
        brain.send(f"TURN {(first[0] + 3) % 15},{(first[1] + 5) % 15}")
        second = brain.move()
        assert len({first, second, (7, 7), (8, 8)}) == 4
    finally:
        assert brain.close() == 0


def test_without_a_library_the_brain_says_so_once_and_plays(tmp_path: Path) -> None:
    brain = BrainProcess(env=environment(SENTE_KERNELS="auto", SENTE_NATIVE_DIR=str(tmp_path)))
    try:
        notice = brain.read()
        assert notice.startswith("MESSAGE no ahead-of-time library") and "build/aot.py" in notice
        assert brain.ask("START 15") == "OK"
        brain.send("INFO timeout_turn 300", "BEGIN")
        brain.move()
    finally:
        assert brain.close() == 0


def test_a_library_built_from_other_sources_is_not_used(library: Path, tmp_path: Path) -> None:
    for item in library.iterdir():
        shutil.copy(item, tmp_path / item.name)
    manifest = json.loads((tmp_path / "kernels.json").read_text())
    manifest["sources"] = "0" * 64
    (tmp_path / "kernels.json").write_text(json.dumps(manifest))
    check = ("from bot.core import native\n"
             "print(native.backend(), native.fallback_reason())\n")
    done = subprocess.run([sys.executable, "-c", check], cwd=ROOT, check=True, text=True,
                          capture_output=True, timeout=120,
                          env=environment(SENTE_KERNELS="auto", SENTE_NATIVE_DIR=str(tmp_path)))
    assert done.stdout.startswith("jit the ahead-of-time library was built from other sources")
    assert native.sources_hash() != "0" * 64


def test_a_library_built_by_another_recipe_is_stale(tmp_path: Path) -> None:
    core = tmp_path / "bot" / "core"
    shutil.copytree(ROOT / "bot" / "core", core,
                    ignore=shutil.ignore_patterns("compiled", "__pycache__"))
    shutil.copytree(ROOT / "build", tmp_path / "build", ignore=shutil.ignore_patterns("out"))
    assert native.sources_hash(core) == native.sources_hash()
    recipe = tmp_path / "build" / "aot.py"
    recipe.write_text(recipe.read_text() + "\n# another recipe\n")
    assert native.sources_hash(core) != native.sources_hash()
