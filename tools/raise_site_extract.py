"""The extraction half of tools/raise_sites.py: where one source file raises or logs an error message, as Site
records (message template, guard, function, exception type). Python is read with `ast`, C++/CUDA with regexes over
the check macros and throws; tools/raise_sites.py's docstring says what is kept and why."""

from __future__ import annotations

import ast
import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass

from doctor.raise_site_table import WILD

GUARD_LEVELS = 2
MAX_GUARD = 240  # characters of a guard kept
MAX_TEMPLATE = 400
LOG_CALLS = {"error", "warning", "warning_once", "info_once", "warn", "critical", "exception", "error_once"}
# a logged (not raised) message is kept only when it names one of these: the failures the doctor explains
LOG_WORDS = re.compile(r"(?i)device|\barch|capabilit|backend|kernel|support|version|\bsm_?\d|\bgpu\b|cuda")
PY_SUFFIX = ".py"
CPP_SUFFIXES = (".cu", ".cuh", ".cpp", ".cc", ".h", ".hpp", ".inl")
# test, benchmark and example code raises nothing a deployment meets; vendored third-party trees are not the engine's
SKIPPED_PARTS = re.compile(r"(?:^|/)(?:tests?|benchmarks?|examples?|3rdparty|third_party|docs?)/")
# files named by a content hash are generated per kernel instance (FlashInfer's `*_<20 hex>_binding.cu`): tens of
# thousands of near-identical checks whose names change every release
GENERATED = re.compile(r"[0-9a-f]{16,}")


@dataclass(frozen=True)
class Site:
    file: str
    function: str | None
    kind: str  # the exception type, `assert`, `logger.warning`, `TORCH_CHECK`, ...
    template: str  # literal text with WILD for each placeholder
    guard: str | None
    line: int


# ---------------------------------------------------------------- Python


def py_template(node: ast.AST | None, names: dict[str, list[str | None]] | None = None,
                percent: bool = False) -> list[str | None]:
    """The message expression as pieces: str for literal text, None for a placeholder. `percent`: a logger call
    formats its first argument with %-style arguments."""
    names = names or {}
    if node is None:
        return [None]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return _percent_pieces(node.value) if percent else [node.value]
    if isinstance(node, ast.JoinedStr):
        out: list[str | None] = []
        for value in node.values:
            out += py_template(value, names) if isinstance(value, ast.Constant) else [None]
        return out
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return py_template(node.left, names, percent) + py_template(node.right, names, percent)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and _is_str(node.left):
        return _percent_pieces(node.left.value)  # type: ignore[attr-defined]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format" \
            and _is_str(node.func.value):
        return _format_pieces(node.func.value.value)  # type: ignore[attr-defined]
    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    return [None]


def _is_str(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


PERCENT = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?[diouxXeEfFgGcrsa]")


def _percent_pieces(text: str) -> list[str | None]:
    out: list[str | None] = []
    for i, part in enumerate(PERCENT.split(text)):
        if i:
            out.append(None)
        out.append(part.replace("%%", "%"))
    return out


FORMAT_FIELD = re.compile(r"\{[^{}]*\}")


def _format_pieces(text: str) -> list[str | None]:
    out: list[str | None] = []
    for i, part in enumerate(FORMAT_FIELD.split(text.replace("{{", "\x01").replace("}}", "\x02"))):
        if i:
            out.append(None)
        out.append(part.replace("\x01", "{").replace("\x02", "}"))
    return out


def render(pieces: list[str | None]) -> str:
    """Pieces as one template string: WILD for each run of placeholders."""
    out: list[str] = []
    for piece in pieces:
        text = WILD if piece is None else piece.replace(WILD, "")
        if text == WILD and out and out[-1].endswith(WILD):
            continue
        out.append(text)
    return "".join(out)[:MAX_TEMPLATE]


class PyVisitor(ast.NodeVisitor):
    """Every raise site of one module, with its function's qualname and guard."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.scope: list[str] = []
        self.guards: list[str] = []
        self.names: list[dict[str, list[str | None]]] = [{}]
        self.sites: list[Site] = []

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        self.scope.append(node.name)
        saved, self.guards = self.guards, []
        self.names.append({})
        self.generic_visit(node)
        self.names.pop()
        self.guards = saved
        self.scope.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _function

    def visit_If(self, node: ast.If, before: tuple[str, ...] = ()) -> None:
        """An `elif` is guarded by its own test; the final `else` by every test of the chain, negated."""
        test = _short(ast.unparse(node.test))
        self.visit(node.test)
        self._block(node.body, test)
        if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
            self.visit_If(node.orelse[0], (*before, test))
        elif node.orelse:
            self._block(node.orelse, " and ".join(f"not ({t})" for t in (*before, test)))

    def visit_Try(self, node: ast.Try) -> None:
        for statement in (*node.body, *node.orelse, *node.finalbody):
            self.visit(statement)
        for handler in node.handlers:
            caught = ast.unparse(handler.type) if handler.type is not None else "any exception"
            self._block(handler.body, f"except {_short(caught)}")

    visit_TryStar = visit_Try

    def _block(self, body: list[ast.stmt], guard: str) -> None:
        self.guards.append(guard)
        for statement in body:
            self.visit(statement)
        self.guards.pop()

    def visit_Assign(self, node: ast.Assign) -> None:
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            pieces = py_template(node.value, self.names[-1])
            if pieces != [None]:
                self.names[-1][node.targets[0].id] = pieces
        self.generic_visit(node)

    def visit_Raise(self, node: ast.Raise) -> None:
        exc = node.exc
        if isinstance(exc, ast.Call):
            kind = ast.unparse(exc.func).split(".")[-1]
            message = exc.args[0] if exc.args else next(
                (k.value for k in exc.keywords if k.arg in ("msg", "message", "detail")), None)
            if message is not None:
                self._add(node, kind, py_template(message, self.names[-1]), self._guard())
        self.generic_visit(node)

    def visit_Assert(self, node: ast.Assert) -> None:
        if node.msg is not None:
            self._add(node, "AssertionError", py_template(node.msg, self.names[-1]), _short(ast.unparse(node.test)))
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in LOG_CALLS and node.args \
                and "log" in ast.unparse(func.value).lower():
            pieces = py_template(node.args[0], self.names[-1], percent=len(node.args) > 1)
            if LOG_WORDS.search("".join(p for p in pieces if p)):
                self._add(node, f"logger.{func.attr}", pieces, self._guard())
        self.generic_visit(node)

    def _guard(self) -> str | None:
        """The nearest levels joined by `and`, a level with a top-level `or` in parentheses."""
        levels = self.guards[-GUARD_LEVELS:]
        if len(levels) > 1:
            levels = [f"({g})" if _has_or(g) else g for g in levels]
        return _short(" and ".join(levels)) if levels else None

    def _add(self, node: ast.AST, kind: str, pieces: list[str | None], guard: str | None) -> None:
        template = render(pieces)
        self.sites.append(Site(self.file, ".".join(self.scope) or None, kind, template, guard,
                               getattr(node, "lineno", 0)))


def _has_or(guard: str) -> bool:
    try:
        body = ast.parse(guard, mode="eval").body
        return isinstance(body, ast.BoolOp) and isinstance(body.op, ast.Or)
    except SyntaxError:  # `except X` and the negated else chains: read as they stand
        return " or " in guard


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_GUARD else text[:MAX_GUARD - 1] + "…"


def python_sites(file: str, source: bytes) -> list[Site]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    visitor = PyVisitor(file)
    visitor.visit(tree)
    return visitor.sites


# ---------------------------------------------------------------- C++ / CUDA

CHECK_MACROS = re.compile(r"\b(TORCH_CHECK(?:_NOT_IMPLEMENTED|_VALUE|_TYPE|_INDEX)?|STD_TORCH_CHECK"
                          r"|TORCH_INTERNAL_ASSERT|TVM_FFI_ICHECK(?:_\w+)?|TVM_FFI_CHECK|FLASHINFER_CHECK|ICHECK|CHECK_INPUT_AND_TYPE)\s*\(")
THROWS = re.compile(r"\b(?:throw\s+(?:std::)?(\w+)\s*\(|TVM_FFI_THROW\s*\(\s*(\w+)\s*\)|FLASHINFER_ERROR\s*\()")
C_STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
IF_BEFORE = re.compile(r"\bif\s*\(")
ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "'": "'"}


def _balanced(text: str, start: int) -> int:
    """The index just after the parenthesis that closes the one before `start` (len(text) if none)."""
    depth, i, quote = 1, start, None
    while i < len(text) and depth:
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        i += 1
    return i


def _split_top(text: str, sep: str) -> list[str]:
    parts, depth, quote, current = [], 0, None, []
    i = 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                current.append(text[i:i + 2])
                i += 2
                continue
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and text.startswith(sep, i):
            parts.append("".join(current))
            current = []
            i += len(sep)
            continue
        current.append(ch)
        i += 1
    parts.append("".join(current))
    return parts


def _c_unescape(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: ESCAPES.get(m.group(1), m.group(1)), text)


def cpp_template(args: list[str]) -> list[str | None]:
    """Message arguments (TORCH_CHECK's, a `<<` chain's or a `+` chain's) as pieces: string literals literal (adjacent
    ones joined), anything else a placeholder."""
    pieces: list[str | None] = []
    for arg in args:
        stripped = arg.strip()
        literals = C_STRING.findall(stripped)
        if literals and C_STRING.sub("", stripped).strip() == "":
            pieces.append(_c_unescape("".join(literals)))
        elif stripped:
            pieces.append(None)
    return pieces


def _line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def cpp_sites(file: str, source: bytes) -> list[Site]:
    text = source.decode("utf-8", "replace")
    sites = []
    for match in CHECK_MACROS.finditer(text):
        end = _balanced(text, match.end())
        args = _split_top(text[match.end():end - 1], ",")
        condition = _short(args[0])
        pieces = cpp_template(args[1:]) + _stream(text, end)
        sites.append(Site(file, None, match.group(1), render(pieces), condition, _line_of(text, match.start())))
    for match in THROWS.finditer(text):
        if match.group(2):  # TVM_FFI_THROW(Kind) << "msg"
            pieces, kind = _stream(text, match.end()), match.group(2)
        else:
            end = _balanced(text, match.end())
            pieces = cpp_template(_split_top(text[match.end():end - 1], "+"))
            kind = match.group(1) or "FLASHINFER_ERROR"
        sites.append(Site(file, None, kind, render(pieces), _if_before(text, match.start()),
                          _line_of(text, match.start())))
    return sites


def _stream(text: str, start: int) -> list[str | None]:
    """The `<< a << "b"` chain after a macro, up to its `;`."""
    rest = text[start:start + 2000]
    if not rest.lstrip().startswith("<<"):
        return []
    statement = _split_top(rest, ";")[0]
    return cpp_template(_split_top(statement, "<<")[1:])


def _if_before(text: str, start: int) -> str | None:
    """The condition of an `if (...)` that ends right before the throw (`if (c) throw ...` or `if (c) {`)."""
    window_start = max(0, start - 400)
    found = None
    for match in IF_BEFORE.finditer(text, window_start, start):
        end = _balanced(text, match.end())
        between = text[end:start].strip()
        if end <= start and between in ("", "{"):
            found = _short(text[match.end():end - 1])
    return found


# ---------------------------------------------------------------- distributions


SEEN: dict[tuple[str, bytes], list[Site]] = {}  # (path, content digest) -> its sites: most files repeat across releases


def sites_of(members: Iterator[tuple[str, bytes]]) -> list[Site]:
    found: list[Site] = []
    for name, data in members:
        if SKIPPED_PARTS.search(name) or GENERATED.search(name):
            continue
        key = (name, hashlib.blake2b(data, digest_size=16).digest())
        if key not in SEEN:
            SEEN[key] = python_sites(name, data) if name.endswith(PY_SUFFIX) else cpp_sites(name, data)
        found += SEEN[key]
    return found
