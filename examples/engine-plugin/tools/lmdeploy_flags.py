"""Offline generator: `lmdeploy serve api_server`'s flags and the architectures TurboMind serves at release tags,
read from LMDeploy's source with the AST (nothing is imported), into src/lmdeploy_doctor/flags.json.

    git clone https://github.com/InternLM/lmdeploy && python tools/lmdeploy_flags.py lmdeploy/.git v0.13.0 ...

Each release lists every flag the api_server parser adds: its spellings, whether it is a switch, its type,
its literal choices and default, and whether it takes several values (nargs)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "src" / "lmdeploy_doctor" / "flags.json"
SWITCH_ACTIONS = ("store_true", "store_false")


def source(git_dir: str, tag: str, path: str) -> ast.Module:
    text = subprocess.run(["git", "--git-dir", git_dir, "show", f"{tag}:{path}"], check=True,
                          capture_output=True, text=True).stdout
    return ast.parse(text)


def enums(messages: ast.Module) -> dict[str, list[str]]:
    """Enum classes of lmdeploy/messages.py → their constant values (`choices=list(QuantPolicy)`)."""
    out = {}
    for cls in (n for n in messages.body if isinstance(n, ast.ClassDef)):
        values = [str(a.value.value) for a in cls.body if isinstance(a, ast.Assign)
                  and isinstance(a.value, ast.Constant)]
        if values:
            out[cls.name] = values
    return out


ENUMS: dict[str, list[str]] = {}


def flag_of(call: ast.Call) -> dict[str, object] | None:
    names = [a.value for a in call.args if isinstance(a, ast.Constant) and str(a.value).startswith("-")]
    if not names:
        return None
    kw = {k.arg: k.value for k in call.keywords}
    action = kw.get("action")
    flag: dict[str, object] = {"name": max(names, key=len), "aliases": sorted(set(names) - {max(names, key=len)})}
    flag["switch"] = isinstance(action, ast.Constant) and action.value in SWITCH_ACTIONS
    kind = kw.get("type")
    flag["type"] = kind.id if isinstance(kind, ast.Name) and kind.id in ("int", "float", "str") else "str"
    choices = kw.get("choices")
    if isinstance(choices, ast.List) and all(isinstance(e, ast.Constant) for e in choices.elts):
        flag["choices"] = [str(e.value) for e in choices.elts]  # type: ignore[attr-defined]
    elif (isinstance(choices, ast.Call) and isinstance(choices.func, ast.Name) and choices.func.id == "list"
          and choices.args and isinstance(choices.args[0], ast.Name) and choices.args[0].id in ENUMS):
        flag["choices"] = ENUMS[choices.args[0].id]
    default = kw.get("default")
    if isinstance(default, ast.Constant) and default.value is not None:
        flag["default"] = default.value
    nargs = kw.get("nargs")
    flag["many"] = isinstance(nargs, ast.Constant) and nargs.value in ("+", "*")
    return flag


def add_argument_calls(node: ast.AST) -> list[ast.Call]:
    return [n for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and n.func.attr == "add_argument"]


def helpers(utils: ast.Module) -> dict[str, list[dict[str, object]]]:
    """ArgumentHelper.NAME → the flags that helper adds."""
    cls = next(n for n in utils.body if isinstance(n, ast.ClassDef) and n.name == "ArgumentHelper")
    out = {}
    for fn in cls.body:
        if isinstance(fn, ast.FunctionDef):
            out[fn.name] = [f for c in sorted(add_argument_calls(fn), key=lambda c: c.lineno) if (f := flag_of(c))]
    return out


def api_server_flags(serve: ast.Module, by_helper: dict[str, list[dict[str, object]]]) -> list[dict[str, object]]:
    fn = next(n for n in ast.walk(serve) if isinstance(n, ast.FunctionDef) and n.name == "add_parser_api_server")
    flags: list[dict[str, object]] = []
    calls = sorted((n for n in ast.walk(fn) if isinstance(n, ast.Call)), key=lambda c: (c.lineno, c.col_offset))
    for call in calls:
        func = call.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "ArgumentHelper":
            flags += by_helper.get(func.attr, [])
        elif isinstance(func, ast.Attribute) and func.attr == "add_argument" and (found := flag_of(call)):
            flags.append(found)
    return list({str(f["name"]): f for f in flags}.values())


def turbomind_archs(supported: ast.Module) -> list[str]:
    """The keys of SUPPORTED_ARCHS = dict(...) in lmdeploy/turbomind/supported_models.py."""
    assign = next(n for n in supported.body if isinstance(n, ast.Assign)
                  and any(isinstance(t, ast.Name) and t.id == "SUPPORTED_ARCHS" for t in n.targets))
    return sorted(k.arg for k in assign.value.keywords if k.arg)  # type: ignore[attr-defined]


def main(git_dir: str, tags: list[str]) -> None:
    releases, archs = {}, {}
    for tag in tags:
        archs[tag.lstrip("v")] = turbomind_archs(source(git_dir, tag, "lmdeploy/turbomind/supported_models.py"))
        ENUMS.clear()
        ENUMS.update(enums(source(git_dir, tag, "lmdeploy/messages.py")))
        by_helper = helpers(source(git_dir, tag, "lmdeploy/cli/utils.py"))
        releases[tag.lstrip("v")] = api_server_flags(source(git_dir, tag, "lmdeploy/cli/serve.py"), by_helper)
    provenance = {"source": "https://github.com/InternLM/lmdeploy", "files": ["lmdeploy/cli/serve.py",
                  "lmdeploy/cli/utils.py", "lmdeploy/messages.py", "lmdeploy/turbomind/supported_models.py"],
                  "tags": tags, "generator": "tools/lmdeploy_flags.py"}
    OUT.write_text(json.dumps({"provenance": provenance, "releases": releases, "turbomind_archs": archs},
                              indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
