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
UINT64_MASK = (1 << 64) - 1  # a C int64 result read back as the uint64 it holds
_POINTER = ctypes.c_void_p
_C_INTEGER = {"int64": ctypes.c_int64, "bool": ctypes.c_int64, "uint64": ctypes.c_uint64}
BACKENDS = ("auto", "jit", "native")
FROZEN = bool(getattr(sys, "frozen", False))  # a PyInstaller executable


class NativeError(RuntimeError):
    """The native backend was asked for and cannot run."""


def sources_hash(core: Path = HERE) -> str:
    """Hash of the kernel sources in ``core`` (bot/core) and of the recipe that compiles them
    (build/aot.py and its C stubs, in a checkout): a library built from other sources, or by
    another recipe, is stale."""
    import hashlib  # not in the frozen brain, which has no sources to hash

    digest = hashlib.sha256()
    recipe = [core.parents[1] / "build" / name for name in ("aot.py", "native_stubs.c")]
    for path in sorted(core.glob("*.py")) + [path for path in recipe if path.is_file()]:
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
        kinds = [argument["kind"] for argument in entry["arguments"]]
        result = entry["result"]
        # Declared C types let ctypes convert plain and numpy integers itself (faster than
        # making a c_int64 per argument); a tuple of arrays or an array is two pointers.
        c_types: list[Any] = []
        for kind in kinds:
            c_types += (_POINTER, _POINTER) if kind in ("arrays", "array") else [_C_INTEGER[kind]]
        if result["kind"] == "tuple":
            c_types.append(_POINTER)
        function.argtypes = c_types
        function.restype = (None if result["kind"] in ("void", "tuple") else ctypes.c_int64)
        invoke = self._invoker(function, kinds)
        if result["kind"] in ("void", "int64"):
            return invoke
        if result["kind"] == "bool":
            return lambda *args: invoke(*args) != 0
        if result["kind"] == "uint64":
            return lambda *args: invoke(*args) & UINT64_MASK
        items = result["items"]
        out_type = ctypes.c_int64 * len(items)
        bools = [i for i, item in enumerate(items) if item["kind"] == "bool"]
        unsigned = [i for i, item in enumerate(items) if item["kind"] == "uint64"]

        def tuple_result(*args: Any) -> Any:
            out = out_type()
            invoke(*args, out)
            values = out[:]
            for i in bools:
                values[i] = values[i] != 0
            for i in unsigned:
                values[i] &= UINT64_MASK
            return tuple(values)
        return tuple_result

    def _invoker(self, function: Any, kinds: list[str]) -> Callable[..., Any]:
        """A function of the Python arguments (and, last, a tuple result's buffer) that calls
        ``function`` with them in C form.  The common shapes, one or two tuples of arrays then
        integers, have their own, without a loop over the arguments: each keeps the tuples it
        packed last (a kernel is called with the same state again and again)."""
        pack = self._tuple

        def any_arguments(*args: Any) -> Any:
            c_args: list[Any] = []
            for value, kind in zip(args, kinds):
                if kind == "arrays":
                    packed = pack(value)
                    c_args += (packed.pointers, packed.shapes)
                elif kind == "array":
                    c_args += (value.ctypes.data, (ctypes.c_int64 * MAX_DIMS)(*value.shape))
                else:
                    c_args.append(int(value))  # (a numpy bool or a whole float too)
            c_args += args[len(kinds):]  # a tuple result's buffer
            return function(*c_args)

        tuples = next((i for i, kind in enumerate(kinds) if kind != "arrays"), len(kinds))
        if tuples > 2 or not all(kind in ("int64", "uint64") for kind in kinds[tuples:]):
            return any_arguments
        last: list[_Arrays | None] = [None, None]  # the tuples this kernel packed last

        def tuples_then_integers(*args: Any) -> Any:
            try:
                if tuples == 0:
                    return function(*args)
                first = last[0]
                if first is None or first.value is not args[0]:
                    first = last[0] = pack(args[0])
                if tuples == 1:
                    return function(first.pointers, first.shapes, *args[1:])
                second = last[1]
                if second is None or second.value is not args[1]:
                    second = last[1] = pack(args[1])
                return function(first.pointers, first.shapes, second.pointers, second.shapes,
                                *args[2:])
            except ctypes.ArgumentError:  # an integer ctypes does not take as it is
                return any_arguments(*args)
        return tuples_then_integers


@cache
def library() -> Library:
    return Library()


def kernel(func: Callable[..., Any]) -> Callable[..., Any]:
    """The native version of a kernel function (the library is loaded with the first)."""
    call = library().kernel(f"{func.__module__}.{func.__name__}")
    call.__name__ = func.__name__
    call.__doc__ = func.__doc__
    return call
