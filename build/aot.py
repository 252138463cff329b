"""Compile every kernel of bot.core ahead of time into one native library: python build/aot.py

The kernels are compiled once by numba for a generic x86-64 CPU, each with the one signature a
game gives it (bot.warmup), and wrapped in a C-callable function (numba's ``cfunc``) that takes
raw pointers: an array becomes its data pointer and its shape, a tuple of arrays (BoardState,
SearchState) an array of data pointers and one of shapes, a returned tuple a buffer the caller
owns.  Each wrapper's LLVM module (the wrapper with every kernel it calls) becomes an object file
in which only the wrapper is visible, optimised again as a whole once the kernels are internal
(``optimise_whole``); the C compiler links them, with the few numba run-time
helpers the code names on paths it never takes (native_stubs.c), into bot/core/compiled/ (or the
folder SENTE_NATIVE_DIR names).  A JSON
manifest beside the library lists each entry point and how its arguments are passed
(bot.core.native reads it).  Needs numba, llvmlite and a C compiler (cc or gcc; on Windows
MinGW-w64's gcc, or MSVC's cl in a developer prompt); takes about a minute, and
nothing when the library was built from the current sources (``--force`` builds it anyway).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Before numba is imported: code for any x86-64 CPU, and a compile cache of its own (the
# development cache holds code for this machine's CPU).
os.environ["NUMBA_CPU_NAME"] = "generic"
os.environ["SENTE_KERNELS"] = "jit"  # the library is compiled from the JIT's kernels
sys.path.insert(0, str(ROOT))

from bot.core import native

if __name__ == "__main__" and native.why_not_native() is None and "--force" not in sys.argv[1:]:
    # checked before numba is imported, which costs seconds
    print(f"{native.LIBRARY}: up to date (--force builds it again)")
    sys.exit(0)

CACHE = tempfile.mkdtemp(prefix="sente-aot-cache-")
os.environ["NUMBA_CACHE_DIR"] = CACHE

import json
import shutil
import subprocess
from typing import Any

import llvmlite.binding as llvm
import numba
import numpy as np
from numba import types

from bot.warmup import exercise_every_kernel, kernel_dispatchers

STUBS = Path(__file__).with_name("native_stubs.c")
MAX_DIMS = native.MAX_DIMS


def dispatchers() -> list[tuple[str, Any]]:
    """(module.name, dispatcher) of every kernel in bot.core that the warm-up compiled."""
    return [(name, kernel) for name, kernel in kernel_dispatchers().items()
            if len(kernel.signatures) == 1]


def describe(kind: Any) -> dict[str, Any]:
    """How a value of numba type ``kind`` crosses the C boundary (see bot.core.native)."""
    if isinstance(kind, types.BaseNamedTuple):
        return {"kind": "arrays", "class": f"{kind.instance_class.__module__}."
                f"{kind.instance_class.__qualname__}",
                "fields": [describe(field) for field in kind.types]}
    if isinstance(kind, types.Array):
        return {"kind": "array", "dtype": str(np.dtype(kind.dtype.name)), "ndim": kind.ndim}
    if isinstance(kind, types.BaseTuple):
        return {"kind": "tuple", "items": [describe(item) for item in kind.types]}
    if isinstance(kind, types.Boolean):
        return {"kind": "bool"}
    if isinstance(kind, types.Integer):
        return {"kind": "uint64" if not kind.signed else "int64"}
    if kind == types.void or kind == types.none:
        return {"kind": "void"}
    raise SystemExit(f"no way to pass a {kind} across the C boundary")


def wrapper_source(name: str, arguments: list[dict[str, Any]], result: dict[str, Any]
                   ) -> tuple[str, list[Any], Any]:
    """Python source of the cfunc wrapper, its C argument types and C return type."""
    params, lines, call, c_types = [], [], [], []
    for index, argument in enumerate(arguments):
        kind = argument["kind"]
        if kind == "arrays":
            params += [f"p{index}", f"d{index}"]
            c_types += [types.CPointer(types.voidptr), types.CPointer(types.int64)]
            fields = []
            for slot, field in enumerate(argument["fields"]):
                shape = ", ".join(f"d{index}[{slot * MAX_DIMS + k}]" for k in range(field["ndim"]))
                lines.append(f"    a{index}_{slot} = carray(p{index}[{slot}], ({shape},), "
                             f"np.{field['dtype']})")
                fields.append(f"a{index}_{slot}")
            lines.append(f"    a{index} = CLASS{index}({', '.join(fields)})")
        elif kind == "array":
            params += [f"p{index}", f"d{index}"]
            c_types += [types.voidptr, types.CPointer(types.int64)]
            shape = ", ".join(f"d{index}[{k}]" for k in range(argument["ndim"]))
            lines.append(f"    a{index} = carray(p{index}, ({shape},), np.{argument['dtype']})")
        elif kind == "bool":
            params.append(f"a{index}_int")
            c_types.append(types.int64)
            lines.append(f"    a{index} = a{index}_int != 0")
        else:
            params.append(f"a{index}")
            c_types.append(types.uint64 if kind == "uint64" else types.int64)
        call.append(f"a{index}")
    invocation = f"KERNEL({', '.join(call)})"
    if result["kind"] == "tuple":
        params.append("out")
        c_types.append(types.CPointer(types.int64))
        lines.append(f"    value = {invocation}")
        for item in range(len(result["items"])):
            lines.append(f"    out[{item}] = np.int64(value[{item}])")
        restype = types.void
    elif result["kind"] == "void":
        lines.append(f"    {invocation}")
        restype = types.void
    else:
        lines.append(f"    return {'np.int64(' + invocation + ')'}")
        restype = types.int64
    source = f"def {name}({', '.join(params)}):\n" + "\n".join(lines or ["    pass"]) + "\n"
    return source, c_types, restype


def optimise_whole(module: Any, target: Any) -> None:
    """Run LLVM's full pipeline again over the entry point's module once only the wrapper is
    visible: numba optimised each kernel while it could still be called from outside, so it
    kept numba's calling convention, every array of a BoardState or SearchState passed as
    seven to eleven words (about 250 for a call with both).  Now internal, the kernels lose
    the arguments they never read (dead-argument elimination) and more of them are inlined."""
    tuning = llvm.PipelineTuningOptions(speed_level=3)
    builder = llvm.create_pass_builder(target, tuning)
    builder.getModulePassManager().run(module, builder)


def compile_entry(qualified: str, dispatcher: Any, target: Any, folder: Path
                  ) -> tuple[dict[str, Any], Path]:
    signature = dispatcher.signatures[0]
    overload = dispatcher.overloads[signature]
    arguments = [describe(kind) for kind in signature]
    result = describe(overload.signature.return_type)
    symbol = "sente_" + qualified.replace(".", "_")
    source, c_types, restype = wrapper_source(symbol, arguments, result)
    namespace: dict[str, Any] = {"carray": numba.carray, "np": np, "KERNEL": dispatcher}
    for index, kind in enumerate(signature):
        if isinstance(kind, types.BaseNamedTuple):
            namespace[f"CLASS{index}"] = kind.instance_class
    exec(compile(source, f"<{symbol}>", "exec"), namespace)
    compiled = numba.cfunc(restype(*c_types), error_model="numpy")(namespace[symbol])
    module = llvm.parse_assembly(str(compiled._library._final_module))
    for function in module.functions:
        if function.is_declaration:
            continue
        if function.name == compiled.native_name:
            function.name = symbol
        else:
            function.linkage = llvm.Linkage.internal
    for variable in module.global_variables:
        if not variable.is_declaration:
            variable.linkage = llvm.Linkage.internal
    optimise_whole(module, target)
    path = folder / f"{symbol}.o"
    path.write_bytes(target.emit_object(module))
    return {"symbol": symbol, "arguments": arguments, "result": result}, path


def link(objects: list[str], symbols: list[str], folder: Path) -> None:
    """Link the objects and the stubs into the library, with the first C compiler found."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is not None:
        stubs = folder / "stubs.o"
        subprocess.run([compiler, "-O2", "-fPIC", "-c", str(STUBS), "-o", str(stubs)],
                       check=True)
        subprocess.run([compiler, "-shared", "-o", str(native.LIBRARY), *objects, str(stubs)],
                       check=True)
        return
    if shutil.which("cl") is None:
        raise SystemExit("no C compiler: install gcc (Windows: MinGW-w64) or run from an MSVC "
                         "developer prompt")
    stubs = folder / "stubs.obj"  # MSVC exports only what it is told to
    subprocess.run(["cl", "/nologo", "/O2", "/c", str(STUBS), f"/Fo{stubs}"], check=True)
    exports = [f"/EXPORT:{symbol}" for symbol in symbols]
    subprocess.run(["link", "/nologo", "/DLL", f"/OUT:{native.LIBRARY}", *objects, str(stubs),
                    *exports], check=True)


def main() -> int:
    native.FOLDER.mkdir(parents=True, exist_ok=True)
    exercise_every_kernel()
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    target = llvm.Target.from_default_triple().create_target_machine(
        cpu="x86-64", features="", opt=3, reloc="pic", codemodel="default")
    manifest: dict[str, Any] = {"sources": native.sources_hash(), "kernels": {}}
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        objects = []
        for qualified, dispatcher in dispatchers():
            entry, path = compile_entry(qualified, dispatcher, target, folder)
            manifest["kernels"][qualified] = entry
            objects.append(str(path))
        link(objects, [entry["symbol"] for entry in manifest["kernels"].values()], folder)
    native.MANIFEST.write_text(json.dumps(manifest, indent=1))
    print(f"{native.LIBRARY}: {len(manifest['kernels'])} kernels, "
          f"{native.LIBRARY.stat().st_size / 2**20:.1f} MiB")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    finally:
        shutil.rmtree(CACHE, ignore_errors=True)
