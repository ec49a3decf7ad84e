"""Write doctor/data/vllm/moe-activations.json: which MoE activations each `--moe-backend` of each vLLM release
accepts, per expert format, and which activation the release's model code gives a few model families' experts.

Read from each wheel's source with `ast` (nothing is imported):
- `fused_moe/oracle/{nvfp4,fp8,unquantized}.py`: `map_*_backend` (the `--moe-backend` value -> backend enum) and
  `backend_to_kernel_cls` (backend -> the expert classes it tries, in order);
- every expert class under `fused_moe/`: `_supports_activation` (the activations in its `activation in [...]` /
  `== X` test, its base classes' when it defers to them) and `_supports_no_act_and_mul` (non-gated MLPs such
  as Nemotron-H's relu2: `is_supported_config` asks this before the activation);
- `fused_moe/activation.py`: the `MoEActivation` enum's values;
- `model_executor/models/<family>.py`: the `activation=` of its `FusedMoE(...)` call (a string, or
  `activation_without_mul(config.FIELD)`, or a local variable with the strings assigned to it).

    python tools/vllm_moe_activations.py 0.20.0 0.24.0 ...   # the cached wheels (tools.vllm_facts fetches them)
    python tools/vllm_moe_activations.py --all               # every release in doctor/data/vllm/index.json
"""

from __future__ import annotations

import ast
import json
import sys
import zipfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tools.vllm_facts.__main__ import fetch_wheel  # noqa: E402

TARGET = REPO / "doctor" / "data" / "vllm" / "moe-activations.json"
FUSED = "vllm/model_executor/layers/fused_moe/"
KERNEL_CONFIG = "vllm/config/kernel.py"
ORACLES = ("nvfp4", "fp8", "unquantized", "mxfp4")
# MXFP4 picks among a value's activation variants (`_filter_by_activation`) before `is_supported_config`: only
# its value list is read, its kernels are left unread (the rules read no activation or device verdict for it).
FLAG_LIST_ONLY = ("mxfp4",)
MODEL_FILES = ("gpt_oss", "gemma4", "nemotron_h", "step3p5")
MOE_LAYERS = ("FusedMoE", "SharedFusedMoE", "FusedMoEFactory")  # the expert layer as model files build it


def _enum_values(tree: ast.Module | None) -> dict[str, str]:
    """MoEActivation member -> value (empty before the enum existed: activations were strings)."""
    values: dict[str, str] = {}
    for node in ast.walk(tree) if tree else ():
        if isinstance(node, ast.ClassDef) and node.name == "MoEActivation":
            for item in node.body:
                if isinstance(item, ast.Assign) and isinstance(item.value, ast.Constant) \
                        and isinstance(item.targets[0], ast.Name):
                    values[item.targets[0].id] = str(item.value.value)
    return values


def _activation_names(node: ast.AST, enum: dict[str, str]) -> set[str]:
    found = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == "MoEActivation":
            found.add(enum.get(sub.attr, sub.attr.lower()))
        elif isinstance(sub, ast.Constant) and isinstance(sub.value, str) and sub is not node:
            found.add(sub.value)
    return found


def _supports_activation(func: ast.FunctionDef, enum: dict[str, str]) -> dict[str, Any]:
    """The activations a `_supports_activation` body names, and the classes it defers to."""
    body = [s for s in func.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if any(isinstance(s, ast.Raise) for s in body):
        return {"raises": True}
    names: set[str] = set()
    defers: list[str] = []
    for sub in ast.walk(ast.Module(body=body, type_ignores=[])):
        if isinstance(sub, ast.Compare):
            names |= _activation_names(sub, enum)
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) \
                and sub.func.attr == "_supports_activation" and isinstance(sub.func.value, ast.Name):
            defers.append(sub.func.value.id)
    opaque = not names and not defers
    return {"activations": sorted(names), "defers": defers, "opaque": opaque}


def _returns_constant(func: ast.FunctionDef) -> bool | None:
    for sub in ast.walk(func):
        if isinstance(sub, ast.Return) and isinstance(sub.value, ast.Constant) and isinstance(sub.value.value, bool):
            return sub.value.value
    return None


CAPABILITY_TESTS = {"is_device_capability": "eq", "is_device_capability_family": "family",
                    "has_device_capability": "ge"}
PLATFORM_TRUE = ("is_cuda", "is_cuda_alike")


def _capability(node: ast.AST) -> int | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    if isinstance(node, ast.Tuple) and all(isinstance(e, ast.Constant) for e in node.elts):
        major, minor = (e.value for e in node.elts)  # type: ignore[union-attr]
        return int(major) * 10 + int(minor)
    return None


def device_tree(node: ast.AST) -> dict[str, Any]:
    """A `_supports_current_device` return expression as and/or of capability tests; anything else (a
    `has_flashinfer_*()` import probe, `cutlass_group_gemm_supported()`) is an opaque leaf."""
    if isinstance(node, ast.BoolOp):
        return {"op": "and" if isinstance(node.op, ast.And) else "or", "args": [device_tree(v) for v in node.values]}
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        test = CAPABILITY_TESTS.get(node.func.attr)
        value = _capability(node.args[0]) if test and node.args else None
        if test and value is not None:
            return {"test": test, "value": value}
        if node.func.attr in PLATFORM_TRUE:
            return {"const": True}
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        return {"const": node.value}
    return {"opaque": ast.unparse(node)[:80]}


def _device_gate(func: ast.FunctionDef) -> dict[str, Any] | None:
    body = [s for s in func.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
            and not (isinstance(s, ast.Assign) and isinstance(s.value, ast.Name | ast.Attribute))]
    returns = [s for s in body if isinstance(s, ast.Return) and s.value is not None]
    if len(returns) != 1 or len(body) != 1:  # only `["doc"; p = current_platform;] return <expr>`
        return None
    return device_tree(returns[0].value)  # type: ignore[arg-type]


def expert_classes(sources: dict[str, str], enum: dict[str, str]) -> dict[str, dict[str, Any]]:
    classes: dict[str, dict[str, Any]] = {}
    for path, text in sources.items():
        if not path.startswith(FUSED):
            continue
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, ast.ClassDef):
                continue
            entry: dict[str, Any] = {"file": path, "bases": [b.id if isinstance(b, ast.Name) else ast.unparse(b)
                                                             for b in node.bases]}
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "_supports_activation":
                    entry["activation"] = _supports_activation(item, enum)
                if isinstance(item, ast.FunctionDef) and item.name == "_supports_current_device":
                    entry["device"] = _device_gate(item)
                if isinstance(item, ast.FunctionDef) and item.name == "_supports_no_act_and_mul":
                    entry["no_act_and_mul"] = _returns_constant(item)
            classes.setdefault(node.name, entry)
    return classes


def _inherited(classes: dict[str, dict[str, Any]], name: str, key: str, seen: frozenset[str] = frozenset()) -> Any:
    entry = classes.get(name)
    if entry is None or name in seen:
        return None
    if key in entry:
        return entry[key]
    for base in entry["bases"]:
        found = _inherited(classes, base, key, seen | {name})
        if found is not None:
            return found
    return None


def resolve_activations(classes: dict[str, dict[str, Any]], name: str, depth: int = 0) -> list[str] | None:
    """The activations class `name` accepts (None: not statically known)."""
    spec = _inherited(classes, name, "activation")
    if spec is None or spec.get("raises") or spec.get("opaque") or depth > 5:
        return None
    found = set(spec["activations"])
    for other in spec["defers"]:
        more = resolve_activations(classes, other, depth + 1)
        if more is None:
            return None
        found |= set(more)
    return sorted(found)


def _function(tree: ast.Module, prefix: str) -> ast.FunctionDef | None:
    return next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith(prefix)), None)


def flag_map(tree: ast.Module) -> dict[str, str]:
    """`--moe-backend` value -> backend enum member (the first of a list: MXFP4 maps a value to a family of
    activation variants from 0.22.0)."""
    func = _function(tree, "map_")
    for sub in ast.walk(func) if func else ():
        if isinstance(sub, ast.Dict) and all(isinstance(k, ast.Constant) for k in sub.keys):
            out = {}
            for key, value in zip(sub.keys, sub.values, strict=True):
                members = value.elts if isinstance(value, ast.List | ast.Tuple) else [value]
                names = [m.attr for m in members if isinstance(m, ast.Attribute)]
                if isinstance(key, ast.Constant) and names:
                    out[key.value] = names[0]
            return out
    return {}


def backend_kernels(tree: ast.Module) -> dict[str, list[str]]:
    """backend enum member -> the expert classes `backend_to_kernel_cls` returns for it, in order."""
    func = _function(tree, "backend_to_kernel_cls")
    out: dict[str, list[str]] = {}
    for sub in ast.walk(func) if func else ():
        if not isinstance(sub, ast.If):
            continue
        members = [a.attr for a in ast.walk(sub.test) if isinstance(a, ast.Attribute) and a.attr.isupper()]
        returned = next((s.value for s in sub.body if isinstance(s, ast.Return)), None)
        if not members or returned is None:
            continue
        names = [n.id for n in (returned.elts if isinstance(returned, ast.List | ast.Tuple) else [returned])
                 if isinstance(n, ast.Name)]
        for member in members:
            out.setdefault(member, names)
    return out


def auto_values(tree: ast.Module) -> list[str] | None:
    """The `--moe-backend` values the select function treats as `auto` (`if runner_backend != "auto"`, or from
    0.25.0 for unquantized experts `not in ["auto", "humming"(, "marlin")]`: quantization-only backends fall
    through for an unquantized layer)."""
    func = _function(tree, "select_")
    for sub in ast.walk(func) if func else ():
        if isinstance(sub, ast.Compare) and isinstance(sub.left, ast.Name) and sub.left.id == "runner_backend":
            right = sub.comparators[0]
            if isinstance(sub.ops[0], ast.NotEq) and isinstance(right, ast.Constant):
                return [right.value]
            if isinstance(sub.ops[0], ast.NotIn) and isinstance(right, ast.List | ast.Tuple):
                return [e.value for e in right.elts if isinstance(e, ast.Constant)]
    return None


def model_activation(text: str) -> dict[str, Any] | None:
    """The `activation=` of the file's FusedMoE call: {"value"}, {"config_field", "no_mul"} or {"candidates"}."""
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and ast.unparse(node.func).split(".")[-1] in MOE_LAYERS):
            continue
        arg = next((k.value for k in node.keywords if k.arg == "activation"), None)
        if arg is None:
            return {"value": "silu", "default": True}
        if isinstance(arg, ast.Constant):
            return {"value": arg.value}
        if isinstance(arg, ast.Call) and ast.unparse(arg.func) == "activation_without_mul" \
                and isinstance(arg.args[0], ast.Attribute):
            return {"config_field": arg.args[0].attr, "no_mul": True}
        if isinstance(arg, ast.Name):
            values = sorted({n.value.value for n in ast.walk(tree) if isinstance(n, ast.Assign)
                             and any(isinstance(t, ast.Name) and t.id == arg.id for t in n.targets)
                             and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)})
            return {"candidates": values}
    return None


def cli_values(text: str | None) -> list[str] | None:
    """`MoEBackend = Literal[...]` of vllm/config/kernel.py: the values `--moe-backend` accepts at all."""
    for node in ast.walk(ast.parse(text)) if text else ():
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "MoEBackend" for t in node.targets):
            return [e.value for e in ast.walk(node.value) if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return None


def read_release(wheel: Path) -> dict[str, Any]:
    with zipfile.ZipFile(wheel) as archive:
        sources = {n: archive.read(n).decode("utf-8") for n in archive.namelist()
                   if n.endswith(".py") and (n.startswith(FUSED) or n.startswith("vllm/model_executor/models/")
                                             or n == KERNEL_CONFIG)}
    activation_file = sources.get(FUSED + "activation.py")
    enum = _enum_values(ast.parse(activation_file) if activation_file else None)
    classes = expert_classes(sources, enum)
    oracles: dict[str, Any] = {}
    for oracle in ORACLES:
        path = f"{FUSED}oracle/{oracle}.py"
        if path not in sources:
            continue
        tree = ast.parse(sources[path])
        kernels = backend_kernels(tree)
        backends = {}
        for flag, member in flag_map(tree).items():
            if oracle in FLAG_LIST_ONLY:
                backends[flag] = {"backend": member, "kernels": []}
                continue
            backends[flag] = {"backend": member, "kernels": [
                {"class": cls, "file": classes.get(cls, {}).get("file"),
                 "activations": resolve_activations(classes, cls),
                 "no_act_and_mul": bool(_inherited(classes, cls, "no_act_and_mul")),
                 "device": _inherited(classes, cls, "device")}
                for cls in kernels.get(member, [])]}
        oracles[oracle] = {"file": path, "auto_values": auto_values(tree), "backends": backends}
    models = {name: model_activation(sources[f"vllm/model_executor/models/{name}.py"])
              for name in MODEL_FILES if f"vllm/model_executor/models/{name}.py" in sources}
    return {"wheel": wheel.name, "cli_values": cli_values(sources.get(KERNEL_CONFIG)), "enum": sorted(enum.values()),
            "oracles": oracles, "models": models}


def main(argv: list[str]) -> int:
    if argv == ["--all"]:
        index = json.loads((REPO / "doctor" / "data" / "vllm" / "index.json").read_text(encoding="utf-8"))
        argv = list(index["releases"])
    table = json.loads(TARGET.read_text(encoding="utf-8")) if TARGET.exists() else {}
    for version in argv:
        entry = read_release(fetch_wheel(version))
        if entry["oracles"]:
            table[version] = entry
        print(version, ", ".join(f"{k}: {len(v['backends'])} flags" for k, v in entry["oracles"].items())
              or "no MoE oracle with --moe-backend values")
    ordered = dict(sorted(table.items(), key=lambda kv: tuple(int(x) for x in kv[0].split("."))))
    TARGET.write_text(json.dumps(ordered, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
