"""How vLLM's `get_kwargs` turns a config dataclass field into argparse keywords, done on the annotation's
AST: bool -> `--x/--no-x`, Literal -> choices, collections -> nargs, an Enum -> a string checked later
against the enum's member names, a dataclass -> JSON."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from tools.vllm_facts.source import Found, WheelSource

BUILTINS = {"str", "int", "float", "bool", "dict", "list", "tuple", "set", "bytes", "None", "NoneType", "Any",
            "Callable", "type", "object"}
UNION_NAMES = {"Union", "Optional", "Annotated"}
COLLECTIONS = {"list": "list", "tuple": "tuple", "set": "set", "List": "list", "Tuple": "tuple", "Set": "set",
               "Sequence": "list"}
DICTS = {"dict", "Dict", "Mapping"}


@dataclass
class Hints:
    """The flattened members of a field's annotation, as `get_type_hints` sees them."""

    names: set[str] = field(default_factory=set)  # builtins present: str, int, bool, None, ...
    literals: list[object] = field(default_factory=list)
    element_literals: list[object] = field(default_factory=list)  # list[Literal[...]]
    collection: str | None = None
    enum: tuple[str, list[str]] | None = None  # (class name, member names)
    enum_values: list[int] | None = None  # an IntEnum's member values: pydantic validates the CLI string by value
    dict_subclass: str | None = None  # a dict subclass (MultiModalDummyOptions): a CLI dict where vLLM says so
    dataclass: str | None = None
    other: set[str] = field(default_factory=set)  # non-builtin classes


def hints(source: WheelSource, module: str, node: ast.expr | None, depth: int = 0) -> Hints:
    out = Hints()
    if node is not None:
        _collect(source, module, node, out, depth)
    return out


def _collect(source: WheelSource, module: str, node: ast.expr, out: Hints, depth: int) -> None:
    if depth > 12:
        return
    if isinstance(node, ast.Constant):
        if node.value is None:
            out.names.add("None")
        elif isinstance(node.value, str):  # a forward reference
            try:
                _collect(source, module, ast.parse(node.value, mode="eval").body, out, depth + 1)
            except SyntaxError:
                out.other.add(node.value)
        return
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        _collect(source, module, node.left, out, depth + 1)
        _collect(source, module, node.right, out, depth + 1)
        return
    if isinstance(node, ast.Subscript):
        _subscript(source, module, node, out, depth)
        return
    name = _name(node)
    if name is None:
        return
    if name in BUILTINS:
        out.names.add("None" if name == "NoneType" else name)
        if name in COLLECTIONS:
            out.collection = COLLECTIONS[name]
        return
    _resolved(source, module, name, out, depth)


def _subscript(source: WheelSource, module: str, node: ast.Subscript, out: Hints, depth: int) -> None:
    head = _name(node.value) or ""
    args = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
    if head == "Literal":
        for arg in args:  # a Literal may nest other Literal aliases: Literal["auto", RunnerType]
            if isinstance(arg, ast.Constant):
                out.literals.append(arg.value)
            else:
                out.literals += hints(source, module, arg, depth + 1).literals
    elif head in ("Union",):
        for arg in args:
            _collect(source, module, arg, out, depth + 1)
    elif head == "Optional":
        out.names.add("None")
        _collect(source, module, args[0], out, depth + 1)
    elif head in ("Annotated", "SkipValidation"):  # pydantic.SkipValidation[T] is Annotated[T, ...]
        _collect(source, module, args[0], out, depth + 1)
    elif head in COLLECTIONS:
        out.collection = COLLECTIONS[head]
        inner = hints(source, module, args[0], depth + 1)
        out.element_literals += inner.literals
    elif head in DICTS:
        out.names.add("dict")
    elif head in ("type", "Callable"):
        out.other.add(head)
    else:
        _collect(source, module, node.value, out, depth + 1)


def _resolved(source: WheelSource, module: str, name: str, out: Hints, depth: int) -> None:
    found = source.lookup(module, name.rpartition(".")[2])
    if found is None:
        out.other.add(name)
        return
    node = found.node
    if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
        value = node.value
        if isinstance(value, ast.Call) and _name(value.func) in ("TypeAliasType", "NewType") and len(value.args) > 1:
            value = value.args[1]
        _collect(source, found.module, value, out, depth + 1)
    elif isinstance(node, ast.ClassDef):
        _class(found, node, out)
    else:
        out.other.add(name)


def _class(found: Found, node: ast.ClassDef, out: Hints) -> None:
    if any(ast.unparse(b).endswith("Enum") for b in node.bases):
        out.enum = (node.name, enum_members(node))
        if any(ast.unparse(b).endswith("IntEnum") for b in node.bases):
            out.enum_values = int_enum_values(node)
    elif any(ast.unparse(b).split("[")[0] in ("dict", "Dict") for b in node.bases):
        out.dict_subclass = node.name
        out.other.add(node.name)
    elif any(_name(d) in ("dataclass", "config", "pydantic.dataclasses.dataclass") or
             ast.unparse(d).startswith(("dataclass", "config")) for d in node.decorator_list):
        out.dataclass = node.name
    elif node.name in ("str",):
        out.names.add("str")
    else:
        out.other.add(node.name)


def enum_members(node: ast.ClassDef) -> list[str]:
    """Member names; for an IntEnum also the values, which is what pydantic accepts from a CLI string
    (`--optimization-level 3`, what `-O3` becomes): names and values are both kept, so neither is refused."""
    members = []
    int_enum = any(ast.unparse(b).endswith("IntEnum") for b in node.bases)
    for stmt in node.body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else \
            [stmt.target] if isinstance(stmt, ast.AnnAssign) and stmt.value is not None else []
        names = [t.id for t in targets if isinstance(t, ast.Name) and t.id[:1].isupper()]
        members += names
        value = getattr(stmt, "value", None)
        if int_enum and names and isinstance(value, ast.Constant) and isinstance(value.value, int):
            members.append(str(value.value))
    return members


def int_enum_values(node: ast.ClassDef) -> list[int]:
    """`O2 = 2` members of an IntEnum (OptimizationLevel, vllm/config/vllm.py): the values `-O2` passes."""
    return [stmt.value.value for stmt in node.body if isinstance(stmt, ast.Assign)
            and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, int)]


def _name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _name(node.value)
        return f"{base}.{node.attr}" if base in ("typing", "enum", "collections.abc", "abc", "pydantic") \
            else node.attr
    return None


def argparse_kind(h: Hints, name: str, optional_value_bool: bool,
                  dict_subclass_is_dict: bool = False) -> dict[str, object]:
    """The argparse keywords `_compute_kwargs` derives, reduced to what the doctor checks. Where the release's
    `_compute_kwargs` maps dict subclasses to `dict` (`is_dict_subclass`, 0.31.0), such a field takes JSON."""
    if dict_subclass_is_dict and h.dict_subclass is not None:
        return {"takes_value": True, "value": "json"}
    if h.dataclass is not None:
        return {"takes_value": True, "value": "json", "config_class": h.dataclass}
    if optional_value_bool and h.names == {"bool", "str", "None"} and not (h.literals or h.other or h.enum):
        return {"takes_value": "optional", "value": "str"}
    if "bool" in h.names:
        return {"takes_value": False, "boolean_optional": True}
    if h.literals:
        if "str" in h.names:
            return {"takes_value": True, "value": "str", "suggested": _sorted(h.literals)}
        return {"takes_value": True, "value": type(h.literals[0]).__name__,
                "choices": _sorted(h.literals) + (["None"] if "None" in h.names else [])}
    if h.collection:
        kind: dict[str, object] = {"takes_value": True, "value": h.collection, "nargs": "+"}
        if h.element_literals:
            kind["choices"] = _sorted(h.element_literals)
        return kind
    for builtin in ("int", "float"):
        if builtin in h.names:
            return {"takes_value": True, "value": builtin}
    if "dict" in h.names:
        return {"takes_value": True, "value": "json"}
    kind = {"takes_value": True, "value": "str"}
    if h.enum is not None:
        kind.update(enum=h.enum[0], enum_members=h.enum[1])
    if h.enum_values:
        kind.update(enum_values=h.enum_values)
    return kind


def _sorted(values: list[object]) -> list[object]:
    try:
        return sorted(set(values))  # type: ignore[type-var]
    except TypeError:
        return list(dict.fromkeys(values))
