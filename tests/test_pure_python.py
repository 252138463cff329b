"""The tests marked pure_python again, with NUMBA_DISABLE_JIT=1: the kernels then run as the
plain Python they are written in, so the slow twins check the kernels' source itself (and a
coverage tool can see inside them), not only their compiled form."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import PURE_PYTHON

TESTS = Path(__file__).parent


def test_the_pure_python_tests_pass_with_the_jit_disabled() -> None:
    assert not PURE_PYTHON, "run the suite with the JIT on: this test starts the other run"
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-m", "pure_python", "-p", "no:cacheprovider",
         "-n", "0", str(TESTS)],
        env=dict(os.environ, NUMBA_DISABLE_JIT="1"), cwd=TESTS.parent, capture_output=True,
        text=True, timeout=900)
    summary = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else run.stderr
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert " passed" in summary and "failed" not in summary, summary
