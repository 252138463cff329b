"""The kernels compiled ahead of time (build/aot.py), called through ctypes.

``SENTE_KERNELS`` chooses the backend: ``jit`` (numba compiles the kernels, caching them),
``native`` (the library must be there and match the sources) or ``auto``, the default: the
library when it was built from the kernels' current sources, else the JIT.  The library and its
manifest live in bot/core/compiled/ (or SENTE_NATIVE_DIR); the manifest names each kernel's C
function, how its arguments are passed, and a hash of the bot.core sources it was built from.
The frozen brain (build/freeze) carries the library it was built with and no sources: it is
always native.  Nothing here imports numba or numpy.
"""

from __future__ import annotations

import ctypes
import json
import os
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SUFFIX = {"win32": ".dll", "darwin": ".dylib"}.get(sys.platform, ".so")
# Where the library lives: bot/core/compiled/, or the folder SENTE_NATIVE_DIR names.
FOLDER = Path(os.environ.get("SENTE_NATIVE_DIR") or HERE / "compiled")
LIBRARY = FOLDER / f"libsente_kernels{SUFFIX}"
MANIFEST = FOLDER / "kernels.json"
MAX_DIMS = 4  # shape slots per array in a tuple's shape buffer
BACKENDS = ("auto", "jit", "native")
FROZEN = bool(getattr(sys, "frozen", False))  # a PyInstaller executable


class NativeError(RuntimeError):
    """The native backend was asked for and cannot run."""


def sources_hash() -> str:
    """Hash of the bot.core sources: a library built from other sources is stale."""
    import hashlib  # not in the frozen brain, which has no sources to hash

    digest = hashlib.sha256()
    for path in sorted(HERE.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def backend() -> str:
    """'jit' or 'native', as SENTE_KERNELS and the library's presence decide."""
    wanted = "native" if FROZEN else os.environ.get("SENTE_KERNELS", "auto")
    if wanted not in BACKENDS:
        raise NativeError(f"SENTE_KERNELS={wanted!r}: expected one of {', '.join(BACKENDS)}")
    if wanted == "jit":
        return "jit"
    problem = why_not_native()
    if problem is None:
        return "native"
    if wanted == "native":
        raise NativeError(problem)
    return "jit"


def fallback_reason() -> str | None:
    """Why the JIT runs although nobody asked for it (SENTE_KERNELS unset or auto), else None."""
    if FROZEN or os.environ.get("SENTE_KERNELS", "auto") != "auto":
        return None
    return why_not_native()


@cache
def why_not_native() -> str | None:
    """None if the library can be used, else why not (checked once per process)."""
    if not LIBRARY.exists() or not MANIFEST.exists():
        return f"no ahead-of-time library at {LIBRARY.name}: run python build/aot.py"
    built_from = json.loads(MANIFEST.read_text()).get("sources")
    if not FROZEN and built_from != sources_hash():
        return "the ahead-of-time library was built from other sources: run python build/aot.py"
    return None


class _Arrays:
    """The data pointers and shapes of a tuple of arrays, kept while the tuple lives."""

    def __init__(self, value: Any) -> None:
        arrays = list(value)
        self.value = value  # the arrays must outlive the pointers
        self.pointers = (ctypes.c_void_p * len(arrays))(*[a.ctypes.data for a in arrays])
        self.shapes = (ctypes.c_int64 * (MAX_DIMS * len(arrays)))()
        for slot, array in enumerate(arrays):
            for k, size in enumerate(array.shape):
                self.shapes[slot * MAX_DIMS + k] = size


class Library:
    """The loaded library; ``kernel(name)`` gives a Python callable for one kernel."""

    def __init__(self) -> None:
        self.manifest = json.loads(MANIFEST.read_text())
        self.handle = ctypes.CDLL(str(LIBRARY))
        self._tuples: dict[int, _Arrays] = {}

    def _tuple(self, value: Any) -> _Arrays:
        found = self._tuples.get(id(value))
        if found is None or found.value is not value:
            if len(self._tuples) > 64:  # states come and go; forget the old ones
                self._tuples.clear()
            found = self._tuples[id(value)] = _Arrays(value)
        return found

    def kernel(self, qualified: str) -> Callable[..., Any]:
        entry = self.manifest["kernels"].get(qualified)
        if entry is None:
            def missing(*args: Any) -> Any:
                raise NativeError(f"{qualified} is not in the ahead-of-time library: add a call "
                                  "of it to bot.warmup and rebuild (python build/aot.py)")
            return missing
        function = getattr(self.handle, entry["symbol"])
        arguments, result = entry["arguments"], entry["result"]
        function.restype = (None if result["kind"] in ("void", "tuple") else ctypes.c_int64)

        def call(*args: Any) -> Any:
            c_args: list[Any] = []
            for value, argument in zip(args, arguments):
                kind = argument["kind"]
                if kind == "arrays":
                    packed = self._tuple(value)
                    c_args += [packed.pointers, packed.shapes]
                elif kind == "array":
                    shape = (ctypes.c_int64 * MAX_DIMS)(*value.shape)
                    c_args += [ctypes.c_void_p(value.ctypes.data), shape]
                elif kind == "uint64":
                    c_args.append(ctypes.c_uint64(int(value)))
                else:
                    c_args.append(ctypes.c_int64(int(value)))
            if result["kind"] == "tuple":
                out = (ctypes.c_int64 * len(result["items"]))()
                function(*c_args, out)
                return tuple(_convert(v, item) for v, item in zip(out, result["items"]))
            value = function(*c_args)
            return None if result["kind"] == "void" else _convert(value, result)

        call.__name__ = qualified.rsplit(".", 1)[1]
        return call


def _convert(value: int, description: dict[str, Any]) -> Any:
    kind = description["kind"]
    if kind == "bool":
        return bool(value)
    if kind == "uint64":
        return value & 0xFFFFFFFFFFFFFFFF
    return int(value)


@cache
def library() -> Library:
    return Library()


def kernel(func: Callable[..., Any]) -> Callable[..., Any]:
    """The native version of a kernel function (resolved at its first call)."""
    qualified = f"{func.__module__}.{func.__name__}"
    resolved: list[Callable[..., Any]] = []

    def call(*args: Any) -> Any:
        if not resolved:
            resolved.append(library().kernel(qualified))
        return resolved[0](*args)

    call.__name__ = func.__name__
    call.__doc__ = func.__doc__
    return call
