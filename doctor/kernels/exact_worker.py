"""Subprocess worker: compile an engine's Triton kernels ahead of time and print `metadata.shared`.

Run as a script (never imported by the doctor) with PYTHONPATH pointing at a Triton site dir:
    python exact_worker.py < jobs.jsonl > results.jsonl
Each job: {"id", "kernel", "source", "cc", "params", "launch"}; each result: {"id", "shared"|"error", "secs"}.
No GPU, torch or engine import is needed: the @triton.jit functions are copied out of the kernel
file into a scratch module, or (a launch with "modules") the files are executed after a prelude
that stands in for their torch and engine imports. `launch` (see exact.Job) None: exact_launch
builds it from the kernel name and params.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import exact_dump
import exact_launch
import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

_MODULES: dict[str, Any] = {}


def _is_jit(node: ast.AST) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    return (isinstance(target, ast.Attribute) and target.attr == "jit") or (
        isinstance(target, ast.Name) and target.id == "jit")


def _package_root(source: Path) -> Path:
    """Directory that holds the top-level `sglang` package of `source` (the package whose imports
    `_jit_sources` follows)."""
    for parent in source.parents:
        if parent.name == "sglang":
            return parent.parent
    return source.parent


def _jit_sources(path: Path, seen: set[Path], wanted: set[str] | None = None) -> list[str]:
    """Source text of the @triton.jit functions in `path` (only `wanted` ones for an imported
    module), plus jit helpers the file imports from other sglang modules."""
    if path in seen or not path.exists():
        return []
    seen.add(path)
    text = path.read_text()
    tree = ast.parse(text)
    out: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("sglang."):
            dep = _package_root(path) / (node.module.replace(".", "/") + ".py")
            out.extend(_jit_sources(dep, seen, {alias.name for alias in node.names}))
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and wanted is None:
            out.append(ast.get_source_segment(text, node) or "")
        elif isinstance(node, ast.FunctionDef) and any(_is_jit(d) for d in node.decorator_list):
            if wanted is not None and node.name not in wanted:
                continue
            jit = next(d for d in node.decorator_list if _is_jit(d))
            body = ast.get_source_segment(text, node) or ""
            start = body.index("def ")
            out.append("@" + (ast.get_source_segment(text, jit) or "triton.jit") + "\n" + body[start:])
    return out


def load_module(source: str) -> Any:
    """Scratch module holding the kernel file's jit functions (cached per process)."""
    if source in _MODULES:
        return _MODULES[source]
    header = "import triton\nimport triton.language as tl\nfrom triton.language.extra import libdevice\n"
    body = "\n\n".join(_jit_sources(Path(source), set()))
    scratch = Path(tempfile.mkdtemp(prefix="sm120-doctor-")) / f"k{len(_MODULES)}.py"
    scratch.write_text(header + "\n\n" + body + "\n")
    spec = importlib.util.spec_from_file_location(scratch.stem, scratch)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    _MODULES[source] = module
    return module


def exec_modules(modules: list[list[str]], prelude: str | None) -> Any:
    """Execute `prelude`, then each [module name, file] as that module; the last one (cached per process)."""
    import runpy
    import types

    key = json.dumps([modules, prelude])
    if key in _MODULES:
        return _MODULES[key]
    if prelude:
        runpy.run_path(prelude, run_name="sm120_doctor_prelude")
    for name, path in modules:
        module = types.ModuleType(name)
        module.__file__ = path
        sys.modules[name] = module
        exec(compile(Path(path).read_text(), path, "exec"), module.__dict__)
    _MODULES[key] = sys.modules[modules[-1][0]]
    return _MODULES[key]


def declared_types(fn: Any, signature: dict[str, str]) -> dict[str, str]:
    """Parameters annotated `tl.int64` / `tl.int32` typed as declared (the runtime binder keeps the
    annotation's type and the value's divisibility)."""
    for param in fn.params:
        declared = getattr(param, "annotation", "")
        if declared in ("i64", "i32") and signature.get(param.name) not in (None, "constexpr"):
            signature[param.name] = declared
    return signature


def _tl_dtype(name: str) -> Any:
    return {"bf16": tl.bfloat16, "fp16": tl.float16, "fp32": tl.float32}[name]


def specialise(fn: Any, args: dict[str, Any]) -> tuple[dict, dict, dict]:
    """(signature, constexprs, attrs) exactly as Triton 3.5's runtime binder builds them."""
    signature: dict[str, str] = {}
    constexprs: dict[tuple[int, ...], Any] = {}
    attrs: dict[tuple[int, ...], list] = {}
    for i, param in enumerate(fn.params):
        name = param.name
        if name in args:
            value = args[name]
        elif param.has_default:
            value = param.default
        else:
            raise KeyError(f"no launch value for required parameter {name!r}")
        if isinstance(value, dict) and "tl" in value:
            value = _tl_dtype(value["tl"])
        if param.is_constexpr or value is None:
            signature[name], constexprs[(i,)] = "constexpr", value
            continue
        ty, divisible = _arg_type(value, param)
        if ty == "constexpr":
            signature[name], constexprs[(i,)] = "constexpr", 1
            continue
        signature[name] = ty
        if divisible:
            attrs[(i,)] = [["tt.divisibility", 16]]
    return signature, constexprs, attrs


def _arg_type(value: Any, param: Any) -> tuple[str, bool]:
    specialise_value = not param.do_not_specialize
    align = not getattr(param, "do_not_specialize_on_alignment", False)
    if isinstance(value, dict) and "desc" in value:
        return f"tensordesc<{value['desc']}{list(value['block'])}>", False
    if isinstance(value, dict):
        return "*" + value["ptr"], align
    if isinstance(value, bool):
        return "u1", False
    if isinstance(value, int):
        if value == 1 and specialise_value:
            return "constexpr", False
        ty = "i32" if -(2**31) <= value <= 2**31 - 1 else "i64"
        return ty, specialise_value and align and value % 16 == 0
    if isinstance(value, float):
        return "fp32", False
    raise TypeError(f"unsupported launch value {value!r}")


class _SharedKnown(Exception):
    """Raised by the truncated pipeline once `metadata["shared"]` is final."""

    def __init__(self, shared: int) -> None:
        super().__init__(shared)
        self.shared = shared


def stop_after_llir() -> None:
    """Fast mode: end the compile once shared memory has been allocated.

    make_llir runs the TTGIR passes (shared-memory allocation included) and then copies the
    module's `ttg.shared` attribute into `metadata["shared"]`; what follows (LLVM IR
    translation, -O3, PTX, ptxas) cannot change it and is most of the compile time. So the
    value is taken where make_llir hands the module to LLVM.
    """
    from triton.backends.nvidia import compiler as nvidia

    original = nvidia.CUDABackend.add_stages

    def add_stages(self, stages, options, language=None):
        if language is None:
            original(self, stages, options)
        else:
            original(self, stages, options, language)

        def done(src, metadata):
            raise _SharedKnown(int(metadata["shared"]))

        stages["ptx"] = done
        stages.pop("cubin", None)

    def to_module(mod, *args, **kwargs):
        raise _SharedKnown(int(mod.get_int_attr("ttg.shared")))

    nvidia.CUDABackend.add_stages = add_stages
    nvidia.llvm.to_module = to_module


def compile_shared(job: dict[str, Any]) -> int:
    launch = job.get("launch")
    if launch is None:
        name, args, options = exact_launch.build(job["kernel"], job["cc"], job["params"])
        launch = {"name": name, "args": args, "options": options}
    module = exec_modules(launch["modules"], launch.get("prelude")) if launch.get("modules") else \
        load_module(job["source"])
    fn = getattr(module, launch["name"])
    signature, constexprs, attrs = specialise(fn, launch["args"])
    if launch.get("declared_types"):
        signature = declared_types(fn, signature)
    options = launch["options"]
    src = ASTSource(fn=fn, signature=signature, constexprs=constexprs, attrs=attrs)
    try:
        kernel = triton.compile(src, target=GPUTarget("cuda", job["cc"], 32), options=options)
    except _SharedKnown as known:
        return known.shared
    return int(kernel.metadata.shared)


class _Allocated(Exception):
    """Raised by the cut make_llir with the module as the allocator left it."""

    def __init__(self, module: Any) -> None:
        super().__init__("allocated")
        self.text = str(module)
        self.shared = int(module.get_int_attr("ttg.shared"))


def stop_after_allocation() -> None:
    """Dump mode: make_llir cut right after its shared-memory allocation pass.

    The cut function is make_llir's own source (whatever this Triton version runs before the
    allocator), up to the statement adding the allocation pass, then its `pm.run`.
    """
    import inspect
    import textwrap

    from triton.backends.nvidia import compiler as nvidia

    tree = ast.parse(textwrap.dedent(inspect.getsource(nvidia.CUDABackend.make_llir)))
    fn = tree.body[0]
    runs = [s for s in fn.body if "pm.run(" in ast.unparse(s)]
    cut = next(i for i, s in enumerate(fn.body) if "allocate_shared_memory" in ast.unparse(s))
    fn.body = [*fn.body[:cut + 1], runs[0], *ast.parse("raise _Allocated(mod)").body]
    namespace = {**vars(nvidia), "_Allocated": _Allocated}
    exec(compile(ast.fix_missing_locations(tree), "<make_llir up to allocation>", "exec"), namespace)
    nvidia.CUDABackend.make_llir = namespace["make_llir"]


def dumped(job: dict[str, Any]) -> dict[str, Any]:
    """The allocator's placement of every buffer (exact_dump) and the size it reached."""
    try:
        compile_shared(job)
    except _Allocated as done:
        return {"shared": done.shared, "buffers": exact_dump.buffers(done.text),
                "layouts": exact_dump.layouts(done.text)}
    raise RuntimeError("the compile did not reach the allocation pass")


def main() -> int:
    os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="sm120-doctor-tcache-"))
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    if os.environ.get("SM120_DOCTOR_DUMP") == "1":
        stop_after_allocation()
    elif os.environ.get("SM120_DOCTOR_FULL_COMPILE") != "1":
        stop_after_llir()
    for line in sys.stdin:
        if not line.strip():
            continue
        job = json.loads(line)
        start = time.perf_counter()
        result: dict[str, Any] = {"id": job["id"]}
        try:
            if os.environ.get("SM120_DOCTOR_DUMP") == "1":
                result.update(dumped(job))
            else:
                result["shared"] = compile_shared(job)
        except Exception as exc:  # report per job; one bad config must not stop a batch
            lines = traceback.format_exception_only(type(exc), exc)
            result["error"] = "".join(lines).strip()[-600:]
        result["secs"] = round(time.perf_counter() - start, 3)
        print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
