"""The flags `vllm serve` accepts, read from a wheel's source: the serve subcommand's parser setup is walked
statement by statement (every branch taken: a flag defined under any condition exists), following the calls
that receive the parser (`make_arg_parser`, `FrontendArgs.add_cli_args`, `EngineArgs.add_cli_args`), and
each `add_argument` call is read with its keywords, including the `**get_kwargs(Config)["field"]` ones that
vLLM derives from config dataclasses (also spread inside a dict literal, `**{**kwargs["f"], "default": None}`),
the loops that add one flag per dataclass field, and the edits made to those tables, also in the methods the
table is handed to (`cls._customize_cli_kwargs(kwargs)`, `super()...`). A BooleanOptionalAction flag records
the spellings that turn it off (`--no-X`, and `--disable-X` where the release registers EnableDisableAction).
`python -m tools.vllm_facts.parser_check` compares the result with a release's real parser."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from tools.vllm_facts.constants import resolve_constants
from tools.vllm_facts.parser_rules import inverse_prefixes
from tools.vllm_facts.source import Found, WheelSource, module_of, top_level
from tools.vllm_facts.types import argparse_kind, hints

SERVE_FILES = ("vllm/entrypoints/cli/serve.py",)
OPTIONAL_VALUE_BOOL = "type_hints == {bool, str, type(None)}"
DICT_SUBCLASS_IS_DICT = "is_dict_subclass(th)"


@dataclass
class Scope:
    """What a walked function knows: which names hold `get_kwargs(Cls)` tables and their edits."""

    module: str
    path: str
    tables: dict[str, tuple[str, str]] = field(default_factory=dict)  # var -> (module, class)
    edits: dict[tuple[str, str], dict[str, ast.expr | None]] = field(default_factory=dict)
    loops: dict[str, str] = field(default_factory=dict)  # loop value var -> table var
    aliases: dict[str, tuple[str, str]] = field(default_factory=dict)  # var -> (table var, field)
    owner: tuple[str, str] | None = None  # (module, class) that `cls`/`self` name in a method
    defined_in: tuple[str, str] | None = None  # (module, class) whose body holds the method (for super())


class FlagReader:
    def __init__(self, source: WheelSource) -> None:
        self.source = source
        self.flags: dict[str, dict[str, Any]] = {}
        self._seen: set[tuple[str, str]] = set()
        kwargs_src = source.text("vllm/engine/arg_utils.py") if source.has("vllm/engine/arg_utils.py") else ""
        self.optional_value_bool = OPTIONAL_VALUE_BOOL in kwargs_src
        self.dict_subclass_is_dict = DICT_SUBCLASS_IS_DICT in kwargs_src
        self.inverse_prefixes = inverse_prefixes(source)

    # --- entry -------------------------------------------------------------------------------------
    def read(self) -> dict[str, dict[str, Any]]:
        for path in SERVE_FILES:
            tree = self.source.tree(path)
            if tree is None:
                continue
            for cls in (n for n in top_level(tree) if isinstance(n, ast.ClassDef)):
                method = next((m for m in cls.body if isinstance(m, ast.FunctionDef)
                               and m.name == "subparser_init"), None)
                if method is not None:
                    self._walk_function(module_of(path), path, method)
        return dict(sorted(self.flags.items()))

    # --- walking -----------------------------------------------------------------------------------
    def _walk_function(self, module: str, path: str, function: ast.FunctionDef,
                       owner: tuple[str, str] | None = None, defined_in: tuple[str, str] | None = None) -> None:
        key = (path, f"{function.name}:{function.lineno}:{owner}")
        if key in self._seen:
            return
        self._seen.add(key)
        scope = Scope(module, path, owner=owner, defined_in=defined_in)
        for node in _statements(function.body):
            self._statement(scope, node)

    def _statement(self, scope: Scope, node: ast.stmt) -> None:
        if isinstance(node, ast.Assign):
            self._assign(scope, node)
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                table_field = _table_field(target)
                if table_field and isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant):
                    scope.edits.setdefault(table_field, {})[str(target.slice.value)] = None
        elif isinstance(node, ast.For):
            self._loop(scope, node)
        elif isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add):
            self._choices_edit(scope, node.target, "extend", node.value)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
                and isinstance(node.value.func, ast.Attribute) and len(node.value.args) == 1:
            self._choices_edit(scope, node.value.func.value, node.value.func.attr, node.value.args[0])
        for call in _calls(node):
            self._call(scope, call)

    def _assign(self, scope: Scope, node: ast.Assign) -> None:
        value, target = node.value, node.targets[0]
        if isinstance(target, ast.Name) and isinstance(value, ast.Call) and _func_name(value.func) == "get_kwargs" \
                and value.args and isinstance(value.args[0], ast.Name):
            named = value.args[0].id
            owner = scope.owner if named in ("cls", "self") and scope.owner else (scope.module, named)
            scope.tables[target.id] = owner
            return
        if isinstance(target, ast.Name) and isinstance(value, ast.Call) and _table_args(scope, value):
            scope.tables.setdefault(target.id, scope.tables[_table_args(scope, value)[0][1]])
            return  # `kwargs = cls._customize_cli_kwargs(kwargs)`: the same table, edited (walked in _call)
        if isinstance(target, ast.Name) and (table_field := _table_field(value)) and table_field[0] in scope.tables \
                and isinstance(value, ast.Subscript) and not isinstance(value.value, ast.Subscript):
            scope.aliases[target.id] = table_field
            return
        target = _unalias(scope, target)
        table_field = _table_field(target)
        if table_field and isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant):
            scope.edits.setdefault(table_field, {})[str(target.slice.value)] = value

    def _choices_edit(self, scope: Scope, target: ast.expr, method: str, value: ast.expr) -> None:
        """`kwargs["f"]["choices"] += [...]` / `.remove(x)` / `.append(x)` / `.extend(xs)`: kept as
        `choices+` / `choices-` lists (an element that is not a constant makes the choices run-time)."""
        target = _unalias(scope, target)
        table_field = _table_field(target)
        if not (table_field and isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant)
                and target.slice.value == "choices" and method in ("extend", "append", "remove")):
            return
        edits = scope.edits.setdefault(table_field, {})
        key = "choices-" if method == "remove" else "choices+"
        added = ast.List(elts=[value]) if method != "extend" else value
        before = edits.get(key)
        edits[key] = ast.BinOp(left=before, op=ast.Add(), right=added) if before is not None else added

    def _loop(self, scope: Scope, node: ast.For) -> None:
        it = node.iter
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr == "items" \
                and isinstance(it.func.value, ast.Name) and it.func.value.id in scope.tables \
                and isinstance(node.target, ast.Tuple) and len(node.target.elts) == 2 \
                and isinstance(node.target.elts[1], ast.Name):
            scope.loops[node.target.elts[1].id] = it.func.value.id

    def _call(self, scope: Scope, call: ast.Call) -> None:
        name = _func_name(call.func)
        if name == "add_argument":
            self._add_argument(scope, call)
        elif _table_args(scope, call):
            for position, table in _table_args(scope, call):
                self._follow_table(scope, call.func, position, table)
        elif call.args and any(isinstance(a, ast.Name) and "parser" in a.id for a in call.args):
            self._follow(scope, call.func)

    def _follow(self, scope: Scope, func: ast.expr) -> None:
        """A call that hands the parser on: walk the function or `Class.method` it names."""
        if isinstance(func, ast.Name):
            found = self.source.lookup(scope.module, func.id)
            if found and isinstance(found.node, ast.FunctionDef):
                self._walk_function(found.module, found.path, found.node)
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            self._follow_method(scope.module, func.value.id, func.attr)

    def _follow_method(self, module: str, cls_name: str, method: str, owner: tuple[str, str] | None = None
                       ) -> None:
        found = self._method(module, cls_name, method)
        named = self.source.lookup(module, cls_name)
        if found is not None and named is not None:
            where, function = found
            self._walk_function(where.module, where.path, function, owner or (named.module, cls_name),
                                (where.module, where.node.name))  # type: ignore[attr-defined]

    def _method(self, module: str, cls_name: str, method: str, skip_own: bool = False, depth: int = 0
                ) -> tuple[Found, ast.FunctionDef] | None:
        """Where `cls_name.method` is defined, through the bases (from the first base on with skip_own)."""
        found = self.source.lookup(module, cls_name)
        if found is None or not isinstance(found.node, ast.ClassDef) or depth > 8:
            return None
        own = next((m for m in found.node.body if isinstance(m, ast.FunctionDef) and m.name == method), None)
        if own is not None and not skip_own:
            return found, own
        for base in found.node.bases:
            if isinstance(base, ast.Name) and (hit := self._method(found.module, base.id, method, False, depth + 1)):
                return hit
        return None

    def _follow_table(self, scope: Scope, func: ast.expr, position: int, table: str, depth: int = 0) -> None:
        """A call that hands a `get_kwargs` table on (`cls._customize_cli_kwargs(kwargs)`, `super()...`):
        the edits it makes to the table are edits of this scope's table."""
        target = self._callee(scope, func)
        if target is None or depth > 8:
            return
        where, function, is_method = target
        params = [a.arg for a in function.args.args][1 if is_method else 0:]
        if position >= len(params):
            return
        defined_in = (where.module, where.node.name) if isinstance(where.node, ast.ClassDef) else None
        inner = Scope(where.module, where.path, tables={params[position]: scope.tables[table]},
                      owner=scope.owner, defined_in=defined_in)
        for node in _statements(function.body):
            if isinstance(node, ast.Assign | ast.Delete | ast.For):
                self._statement_edits(inner, node)
            for call in _calls(node):
                for pos, name in _table_args(inner, call):
                    self._follow_table(inner, call.func, pos, name, depth + 1)
        for (var, name), edits in inner.edits.items():
            if var == params[position]:
                scope.edits.setdefault((table, name), {}).update(edits)

    def _statement_edits(self, scope: Scope, node: ast.stmt) -> None:
        if isinstance(node, ast.Assign):
            self._assign(scope, node)
        elif isinstance(node, ast.Delete):
            self._statement(scope, node)

    def _callee(self, scope: Scope, func: ast.expr) -> tuple[Found, ast.FunctionDef, bool] | None:
        if isinstance(func, ast.Name):
            found = self.source.lookup(scope.module, func.id)
            return (found, found.node, False) if found and isinstance(found.node, ast.FunctionDef) else None
        if not isinstance(func, ast.Attribute):
            return None
        if isinstance(func.value, ast.Name) and func.value.id in ("cls", "self") and scope.owner:
            return _as_method(self._method(*scope.owner, func.attr))
        if isinstance(func.value, ast.Call) and _func_name(func.value.func) == "super" and scope.defined_in:
            return _as_method(self._method(*scope.defined_in, func.attr, skip_own=True))
        return None

    # --- one add_argument ------------------------------------------------------------------------
    def _add_argument(self, scope: Scope, call: ast.Call) -> None:
        names = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        looped = [a for a in call.args if isinstance(a, ast.JoinedStr)]
        spread, explicit = _keywords(call.keywords)
        if looped and spread and isinstance(spread[0], ast.Name) and spread[0].id in scope.loops:
            self._add_table(scope, scope.loops[spread[0].id], call.lineno, explicit)
            return
        flags = [n for n in names if n.startswith("-")]
        if not flags:
            return  # a positional (the model)
        kind: dict[str, Any] = {}
        for expr in spread:
            table_field = scope.aliases.get(expr.id) if isinstance(expr, ast.Name) else _table_field(expr)
            if table_field and table_field[0] in scope.tables:
                kind.update(self._field_kind(scope, table_field[0], table_field[1]))
        kind.update(self._explicit(scope, explicit))
        self._record(flags, kind, scope.path, call.lineno)

    def _add_table(self, scope: Scope, table: str, line: int, explicit: dict[str, ast.expr]) -> None:
        module, cls = scope.tables[table]
        for name in self._fields(module, cls):
            kind = self._field_kind(scope, table, name)
            kind.update(self._explicit(scope, explicit))
            self._record(["--" + name.replace("_", "-")], kind, scope.path, line)

    def _field_kind(self, scope: Scope, table: str, name: str) -> dict[str, Any]:
        module, cls = scope.tables[table]
        annotation = self._fields(module, cls).get(name)
        found = self.source.lookup(module, cls)
        kind = argparse_kind(hints(self.source, found.module if found else module, annotation), name,
                             self.optional_value_bool, self.dict_subclass_is_dict)
        kind["field"] = f"{cls}.{name}"
        default = self._defaults(module, cls).get(name)
        if default is not None:
            kind["default"] = default
        edits = scope.edits.get((table, name), {})
        for key, value in edits.items():
            if key == "nargs" and value is None:
                kind.pop("nargs", None)
            elif key in ("choices+", "choices-") and value is not None:
                self._edit_choices(scope, kind, key, value)
            elif value is not None:
                kind.update(self._explicit(scope, {key: value}))
        return kind

    def _edit_choices(self, scope: Scope, kind: dict[str, Any], key: str, value: ast.expr) -> None:
        values = resolve_constants(self.source, scope.module, value)
        if values is None:
            if key == "choices+" and "choices" in kind:  # grown by values known only at run time
                kind["choices_from"] = ast.unparse(value)
                kind.pop("choices")
            return
        if "choices" not in kind:
            return
        strings = [str(v) for v in values]
        if key == "choices+":
            kind["choices"] = kind["choices"] + [v for v in strings if v not in kind["choices"]]
        else:
            kind["choices"] = [c for c in kind["choices"] if str(c) not in strings]

    def _fields(self, module: str, cls: str, depth: int = 0) -> dict[str, ast.expr]:
        found = self.source.lookup(module, cls)
        if found is None or not isinstance(found.node, ast.ClassDef) or depth > 6:
            return {}
        out: dict[str, ast.expr] = {}
        for base in found.node.bases:
            if isinstance(base, ast.Name):
                out.update(self._fields(found.module, base.id, depth + 1))
        for stmt in found.node.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) \
                    and not {"ClassVar", "InitVar"} & set(ast.unparse(stmt.annotation).replace("[", " ").split()):
                out[stmt.target.id] = stmt.annotation
        return out

    def _defaults(self, module: str, cls: str, depth: int = 0) -> dict[str, Any]:
        """Constant defaults of a config dataclass's fields (`x: int = 5`, `field(default=5)`)."""
        found = self.source.lookup(module, cls)
        if found is None or not isinstance(found.node, ast.ClassDef) or depth > 6:
            return {}
        out: dict[str, Any] = {}
        for base in found.node.bases:
            if isinstance(base, ast.Name):
                out.update(self._defaults(found.module, base.id, depth + 1))
        for stmt in found.node.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
                value = stmt.value
                if isinstance(value, ast.Call):
                    value = next((k.value for k in value.keywords if k.arg == "default"), value)
                if isinstance(value, ast.Constant) and isinstance(value.value, int | float | str | bool):
                    out[stmt.target.id] = value.value
        return out

    def _explicit(self, scope: Scope, keywords: dict[str, ast.expr]) -> dict[str, Any]:
        kind: dict[str, Any] = {}
        for key, value in keywords.items():
            text = ast.unparse(value)
            if key == "action":
                kind.update(_action(text))
            elif key == "choices":
                choices = resolve_constants(self.source, scope.module, value)
                if choices is None:
                    kind["choices_from"] = text
                    kind.pop("choices", None)
                else:
                    kind["choices"] = [str(c) for c in choices]
                kind.pop("suggested", None)
            elif key == "deprecated" and isinstance(value, ast.Constant):
                kind["deprecated"] = bool(value.value)
            elif key == "nargs":
                kind["nargs"] = value.value if isinstance(value, ast.Constant) else text
                if kind["nargs"] == "?":
                    kind["takes_value"] = "optional"
            elif key == "type":
                kind.setdefault("takes_value", True)
                if ".lower()" in text or ".upper()" in text:  # the value is case-folded before the check
                    kind["case_insensitive"] = True
        return kind

    def _record(self, flags: list[str], kind: dict[str, Any], path: str, line: int) -> None:
        kind.setdefault("takes_value", True)
        if kind.get("boolean_optional"):
            kind["negations"] = self._negations(flags)
        longs = [f for f in flags if f.startswith("--")] or flags
        entry = {"aliases": [f for f in flags if f != longs[0]], **kind, "file": path, "line": line}
        self.flags.setdefault(longs[0], entry)


    def _negations(self, flags: list[str]) -> list[str]:
        """The spellings that set a BooleanOptionalAction flag false: `--no-X` for every `--X` it has
        (argparse), and where the release swaps in its EnableDisableAction, `--disable-X` for `--enable-X`
        and back."""
        longs = [f for f in flags if f.startswith("--")]
        out = ["--no-" + f[2:] for f in longs]
        for flag in longs:
            out += [inverse + flag.removeprefix(prefix) for prefix, inverse in self.inverse_prefixes.items()
                    if flag.startswith(prefix)]
        return out


def _as_method(hit: tuple[Found, ast.FunctionDef] | None) -> tuple[Found, ast.FunctionDef, bool] | None:
    return None if hit is None else (hit[0], hit[1], True)


def _table_args(scope: Scope, call: ast.Call) -> list[tuple[int, str]]:
    """(position, table variable) of each `get_kwargs` table passed to this call."""
    return [(i, a.id) for i, a in enumerate(call.args) if isinstance(a, ast.Name) and a.id in scope.tables]


def _keywords(keywords: list[ast.keyword]) -> tuple[list[ast.expr], dict[str, ast.expr]]:
    """An add_argument call's `**spread` tables and its explicit keywords, with dict literals opened:
    `**{**kwargs["x"], "default": None}` spreads `kwargs["x"]` and sets `default` (later keys win)."""
    spread: list[ast.expr] = []
    explicit: dict[str, ast.expr] = {}
    for keyword in keywords:
        if keyword.arg is not None:
            explicit[keyword.arg] = keyword.value
        elif isinstance(keyword.value, ast.Dict):
            inner = [ast.keyword(arg=None if k is None else str(k.value), value=v)
                     for k, v in zip(keyword.value.keys, keyword.value.values, strict=True)
                     if k is None or isinstance(k, ast.Constant)]
            more_spread, more_explicit = _keywords(inner)
            spread += more_spread
            explicit.update(more_explicit)
        else:
            spread.append(keyword.value)
    return spread, explicit


def _action(text: str) -> dict[str, Any]:
    if "BooleanOptionalAction" in text:
        return {"takes_value": False, "boolean_optional": True}
    if text.strip("'\"") in ("store_true", "store_false", "count", "store_const", "help", "version"):
        return {"takes_value": False}
    if text.strip("'\"") == "append":
        return {"takes_value": True, "repeatable": True}
    return {"action": text}


def _statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """Every statement, nested ones included (all branches: a flag defined under any condition exists)."""
    out: list[ast.stmt] = []
    for node in body:
        out.append(node)
        for attr in ("body", "orelse", "finalbody"):
            nested = getattr(node, attr, None)
            if isinstance(nested, list) and not isinstance(node, ast.FunctionDef | ast.ClassDef):
                out += _statements(nested)
        for handler in getattr(node, "handlers", []):
            out += _statements(handler.body)
    return out


def _calls(node: ast.stmt) -> list[ast.Call]:
    """Calls made by this statement itself (not by statements nested in it: those are walked on their own)."""
    shallow = node
    if isinstance(node, ast.If | ast.For | ast.While | ast.With | ast.Try):
        heads = [getattr(node, "test", None), getattr(node, "iter", None), *[i.context_expr for i in
                                                                             getattr(node, "items", [])]]
        return [c for h in heads if h is not None for c in ast.walk(h) if isinstance(c, ast.Call)]
    return [c for c in ast.walk(shallow) if isinstance(c, ast.Call)]


def _func_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _unalias(scope: Scope, target: ast.expr) -> ast.expr:
    """`alias["type"]` where `alias = table["field"]` -> `table["field"]["type"]`."""
    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and target.value.id in scope.aliases:
        table, name = scope.aliases[target.value.id]
        inner = ast.Subscript(value=ast.Name(id=table), slice=ast.Constant(value=name))
        return ast.Subscript(value=inner, slice=target.slice)
    return target


def _table_field(node: ast.expr) -> tuple[str, str] | None:
    """`tables["field"]` or `tables["field"]["key"]` -> (table var, field)."""
    while isinstance(node, ast.Subscript) and isinstance(node.value, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and isinstance(node.slice, ast.Constant):
        return node.value.id, str(node.slice.value)
    return None
