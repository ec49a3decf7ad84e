"""Write doctor/data/derived/parsers.json: the `--tool-call-parser` and `--reasoning-parser` names each vLLM and SGLang
release registers, and how each release checks them at start-up.

For every final release on PyPI from vLLM 0.9.2 (its first with SM12x builds) and SGLang 0.5.1 (0.5.0 is not on
PyPI) it reads only the files that answer, parsed with `ast` (nothing is imported or installed), through
tools/model_support.py's wheel reader (a cached wheel, else HTTP range requests for vLLM, the whole few-MiB wheel in
memory for SGLang):

- vLLM: the keys of `_TOOL_PARSERS_TO_REGISTER` / `_REASONING_PARSERS_TO_REGISTER` (the lazy registrations of
  `vllm/tool_parsers/__init__.py` and `vllm/reasoning/__init__.py`, from 0.13) and every
  `@ToolParserManager.register_module("name")` / `@ReasoningParserManager.register_module(...)` decorator of the
  parser modules (up to 0.12 every parser registered itself that way); and, from `validate_api_server_args` and
  `validate_parsed_serve_args`, the conditions under which the release raises `KeyError("invalid tool call parser:
  ...")`, `KeyError("invalid reasoning parser: ...")` and `TypeError("Error: --enable-auto-tool-choice requires
  --tool-call-parser")`;
- SGLang: the keys of `FunctionCallParser.ToolCallParserEnum` (sglang/srt/function_call/function_call_parser.py)
  and `ReasoningParser.DetectorMap` (sglang/srt/reasoning_parser.py, from 0.5.4 sglang/srt/parser/), which
  `--tool-call-parser` / `--reasoning-parser` take as argparse `choices` (plus the literal `"auto"` where
  server_args.py adds it).

Names are stored as runs of consecutive releases ("first..last"), each with the parser class that serves it at the
newest release that has it.

    python tools/parser_tables.py                  # every release of both engines
    python tools/parser_tables.py --only vllm      # one engine's rows, the other kept
    python tools/parser_tables.py --check          # exit 1 when PyPI has a release the table lacks
"""

from __future__ import annotations

import ast
import json
import sys
import time
import zipfile
from datetime import date
from pathlib import Path
from typing import Any

from packaging.version import Version

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tools import model_support as wheels  # noqa: E402

TARGET = REPO / "doctor" / "data" / "derived" / "parsers.json"
FIRST = {"vllm": Version("0.9.2"), "sglang": Version("0.5.1")}
KINDS = ("tool_parsers", "reasoning_parsers")
VLLM_DIRS = {"tool_parsers": ("vllm/tool_parsers/", "vllm/entrypoints/openai/tool_parsers/"),
             "reasoning_parsers": ("vllm/reasoning/",)}
VLLM_LAZY = {"tool_parsers": "_TOOL_PARSERS_TO_REGISTER", "reasoning_parsers": "_REASONING_PARSERS_TO_REGISTER"}
VLLM_MANAGERS = {"tool_parsers": "ToolParserManager", "reasoning_parsers": "ReasoningParserManager"}
# the modules of vllm/entrypoints/ (any folder: they move between releases) holding the start-up checks
VLLM_VALIDATION = ("cli_args.py", "api_server.py", "launcher.py")
VLLM_ARGS = "vllm/engine/arg_utils.py"  # --reasoning-parser's argparse definition
# `parse_reasoning_parser` (0.33) maps "none" in any case to unset: the spellings users write
VLLM_NONE = ["none", "None", "NONE"]
# the messages whose raising condition the table records (the text starts the f-string or string)
VLLM_RAISES = {"invalid_tool_parser": "invalid tool call parser",
               "invalid_reasoning_parser": "invalid reasoning parser",
               "auto_tool_choice_needs_parser": "Error: --enable-auto-tool-choice requires --tool-call-parser"}
SGLANG_MAPS = {"tool_parsers": (("sglang/srt/function_call/function_call_parser.py",), "FunctionCallParser",
                                "ToolCallParserEnum"),
               "reasoning_parsers": (("sglang/srt/parser/reasoning_parser.py", "sglang/srt/reasoning_parser.py"),
                                     "ReasoningParser", "DetectorMap")}
SGLANG_ARGS = "sglang/srt/server_args.py"
SGLANG_DETECTION = "sglang/srt/parser/template_detection.py"  # --tool-call-parser auto: markup -> parser (0.5.12+)

# Model families whose tool-call markup the engines' own parsers name. A family lists, per engine, every parser
# that reads its markup (`tool`) and its reasoning format (`reasoning`); `detect` is the rule of SGLang's
# `--tool-call-parser auto` (TOOL_CALL_PARSER_RULES) that maps the family's chat-template markup to its parser.
# `main` writes a family only when every name is registered at some release, the first at the engine's newest, and
# SGLang's rule still maps to the first SGLang name: the table says nothing the wheels do not. (vLLM 0.10.0 named
# the GLM-4.5 parsers `glm4_moe`; 0.10.1 renamed them `glm45`.)
DEEPSEEK_V3_MARKUP = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME ```json ARGS```"
FAMILIES = (
    {"family": "gpt-oss", "markup": "harmony channels (<|channel|>commentary to=functions.NAME)",
     "model_types": ["gpt_oss"], "detect": "gpt_oss",
     "detect_reasoning": "gpt_oss", "harmony": True,
     "vllm": {"tool": ["openai"], "reasoning": ["openai_gptoss"]},
     "sglang": {"tool": ["gpt-oss"], "reasoning": ["gpt-oss"]}},
    {"family": "qwen3-coder", "markup": "<tool_call><function=NAME><parameter=KEY> XML",
     "model_types": ["qwen3_moe", "qwen3"], "id_pattern": "(?i)qwen3-coder", "detect": "qwen3_coder",
     "vllm": {"tool": ["qwen3_coder", "qwen3_xml"], "reasoning": []},
     "sglang": {"tool": ["qwen3_coder"], "reasoning": []}},
    {"family": "qwen3.5", "markup": "<tool_call><function=NAME><parameter=KEY> XML", "always_reasons": True,
     "model_types": ["qwen3_5", "qwen3_5_moe"], "detect": "qwen3_coder", "detect_reasoning": "qwen3",
     "vllm": {"tool": ["qwen3_coder"], "reasoning": ["qwen3"]},
     "sglang": {"tool": ["qwen3_coder"], "reasoning": ["qwen3"]}},
    {"family": "deepseek-v3.1", "markup": "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>ARGS",
     "model_types": ["deepseek_v3"], "id_pattern": "(?i)deepseek-v3\\.1", "detect": "deepseek_v31",
     "vllm": {"tool": ["deepseek_v31"], "reasoning": ["deepseek_v3", "deepseek_r1"]},
     "sglang": {"tool": ["deepseekv31"], "reasoning": ["deepseek-v3", "deepseek-r1"]}},
    {"family": "deepseek-r1", "markup": DEEPSEEK_V3_MARKUP, "always_reasons": True,
     "model_types": ["deepseek_v3"], "id_pattern": "(?i)deepseek-r1(?!-distill)",
     "detect": "deepseek_r1", "detect_reasoning": "deepseek_r1_force",
     "vllm": {"tool": ["deepseek_v3"], "reasoning": ["deepseek_r1"]},
     "sglang": {"tool": ["deepseekv3"], "reasoning": ["deepseek-r1"]}},
    {"family": "deepseek-v3", "markup": DEEPSEEK_V3_MARKUP,
     "model_types": ["deepseek_v3"], "id_pattern": "(?i)deepseek-v3(?![.]\\d)", "detect": "deepseek_v3",
     "vllm": {"tool": ["deepseek_v3"], "reasoning": []},
     "sglang": {"tool": ["deepseekv3"], "reasoning": []}},
    {"family": "deepseek-v3.2", "markup": "<｜DSML｜function_calls> blocks",
     "model_types": ["deepseek_v32"], "detect": "deepseek_v32",
     "vllm": {"tool": ["deepseek_v32"], "reasoning": ["deepseek_v3", "deepseek_r1"]},
     "sglang": {"tool": ["deepseekv32"], "reasoning": ["deepseek-v3", "deepseek-r1"]}},
    {"family": "kimi-k2", "markup": "<|tool_calls_section_begin|> ... <|tool_call_begin|>functions.NAME:IDX",
     "model_types": ["kimi_k2", "kimi_k25"], "id_pattern": "(?i)kimi-k2", "detect": "kimi_k2",
     "detect_reasoning": "kimi_k2",
     "vllm": {"tool": ["kimi_k2"], "reasoning": ["kimi_k2"]},
     "sglang": {"tool": ["kimi_k2"], "reasoning": ["kimi_k2", "kimi"]}},
    {"family": "minimax-m2", "markup": "<minimax:tool_call><invoke name=NAME> XML", "always_reasons": True,
     "model_types": ["minimax_m2"], "detect": "minimax",
     "detect_reasoning": "minimax",
     "vllm": {"tool": ["minimax_m2"], "reasoning": ["minimax_m2", "minimax_m2_append_think"]},
     "sglang": {"tool": ["minimax-m2"], "reasoning": ["minimax", "minimax-append-think"]}},
    {"family": "nemotron-3", "markup": "a <think> trace before the answer (the chat template opens it)",
     "always_reasons": True, "model_types": ["nemotron_h"], "id_pattern": "(?i)nemotron-3-", "detect": None,
     "detect_reasoning": "nemotron_3",
     "vllm": {"tool": [], "reasoning": ["nemotron_v3"]},
     "sglang": {"tool": [], "reasoning": ["nemotron_3", "nano_v3"]}},
    {"family": "gemma-4", "markup": "<|tool_call>call:NAME{KEY:VALUE}<tool_call|> (Gemma 4's own format)",
     "model_types": ["gemma4"], "detect": "gemma4", "detect_reasoning": "gemma4",
     "vllm": {"tool": ["gemma4"], "reasoning": ["gemma4"]},
     "sglang": {"tool": ["gemma4"], "reasoning": ["gemma4"]}},
    {"family": "glm", "markup": "<tool_call>NAME<arg_key>KEY</arg_key><arg_value>VALUE</arg_value>",
     "model_types": ["glm4_moe", "glm_moe_dsa"], "detect": "glm45",
     "detect_reasoning": "glm45",
     "vllm": {"tool": ["glm45", "glm47", "glm4_moe"], "reasoning": ["glm45", "glm4_moe"]},
     "sglang": {"tool": ["glm45", "glm47", "glm"], "reasoning": ["glm45"]}},
)
SGLANG_FLAGS = {"tool_parsers": "--tool-call-parser", "reasoning_parsers": "--reasoning-parser"}


def _text(archive: zipfile.ZipFile, member: str) -> str:
    return archive.read(member).decode("utf-8-sig", "replace")


def _tree(archive: zipfile.ZipFile, member: str) -> ast.Module | None:
    try:
        return ast.parse(_text(archive, member))
    except (KeyError, SyntaxError):
        return None


def _strings(node: ast.expr) -> list[str]:
    """The string constants of a name argument: "x", ["x", "y"] or ("x", "y")."""
    items = node.elts if isinstance(node, ast.List | ast.Tuple) else [node]
    return [i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)]


def lazy_registrations(tree: ast.Module, variable: str) -> dict[str, str]:
    """`NAME = {"name": ("module", "Class"), ...}`: name -> "module.Class"."""
    found: dict[str, str] = {}
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) \
            else []
        if not (isinstance(getattr(node, "value", None), ast.Dict) and any(isinstance(t, ast.Name) and t.id == variable
                                                         for t in targets)):
            continue
        for key, value in zip(node.value.keys, node.value.values, strict=True):
            parts = _strings(value) if isinstance(value, ast.Tuple) else []
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                found[key.value] = ".".join(parts) if parts else ""
    return found


def decorator_registrations(tree: ast.Module, manager: str, module: str) -> dict[str, str]:
    """`@Manager.register_module("name")` / `(["a", "b"])` / `(name="x")` on a class: name -> "module.Class"."""
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        for decorator in node.decorator_list:
            call = decorator if isinstance(decorator, ast.Call) else None
            func = call.func if call else None
            if not (isinstance(func, ast.Attribute) and func.attr == "register_module"
                    and isinstance(func.value, ast.Name) and func.value.id == manager):
                continue
            args = [*call.args, *(k.value for k in call.keywords if k.arg == "name")]
            for name in (n for arg in args[:1] for n in _strings(arg)):
                found[name] = f"{module}.{node.name}"
    return found


def raise_conditions(tree: ast.Module) -> dict[str, str]:
    """For each message of VLLM_RAISES, the condition of the `if` whose body raises it (as source text)."""
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.If):
            continue
        for statement in node.body:
            if not isinstance(statement, ast.Raise) or statement.exc is None:
                continue
            text = " ".join(c.value for c in ast.walk(statement.exc) if isinstance(c, ast.Constant)
                            and isinstance(c.value, str))
            for key, message in VLLM_RAISES.items():
                if text.lstrip().startswith(message):
                    found.setdefault(key, ast.unparse(node.test))
    return found


def vllm_release(archive: zipfile.ZipFile) -> dict[str, Any]:
    members = archive.namelist()
    names: dict[str, dict[str, str]] = {}
    read: list[str] = []
    for kind in KINDS:
        found: dict[str, str] = {}
        for folder in VLLM_DIRS[kind]:
            init = folder + "__init__.py"
            tree = _tree(archive, init) if init in members else None
            lazy = lazy_registrations(tree, VLLM_LAZY[kind]) if tree else {}
            found.update({n: f"{folder.replace('/', '.')}{target}" for n, target in lazy.items()})
            read += [init] if tree else []
            if lazy:
                continue  # the lazy table is the registry; its modules no longer register themselves
            for member in (m for m in members if m.startswith(folder) and m.endswith(".py") and "/" not in
                           m[len(folder):]):
                if "register_module" not in (text := _text(archive, member)):
                    continue
                module = member.removesuffix(".py").replace("/", ".")
                found.update(decorator_registrations(ast.parse(text), VLLM_MANAGERS[kind], module))
                read.append(member)
        names[kind] = found
    checks: dict[str, Any] = {}
    trees = []
    for member in sorted(m for m in members if m.startswith("vllm/entrypoints/") and m.rsplit("/", 1)[-1]
                         in VLLM_VALIDATION):
        tree = _tree(archive, member)
        checks.update({k: v for k, v in raise_conditions(tree).items() if k not in checks} if tree else {})
        trees += [tree] if tree else []
        read.append(member)
    args_tree = _tree(archive, VLLM_ARGS) if VLLM_ARGS in members else None
    trees += [args_tree] if args_tree else []
    read += [VLLM_ARGS] if args_tree else []
    for flag in SGLANG_FLAGS.values():  # argparse choices: vLLM 0.10.0 (tool), 0.10.0-0.11.0 (reasoning)
        dest = flag.lstrip("-").replace("-", "_")
        checks[flag] = {"argparse_choices": any(_has_choices(t, flag) or _sets_choices(t, dest) for t in trees),
                        "extra_choices": VLLM_NONE if flag == "--reasoning-parser" and args_tree
                        and _defines(args_tree, "parse_reasoning_parser") else []}
    return {"names": names, "checks": checks, "read": sorted(set(read))}


def _sets_choices(tree: ast.Module, dest: str) -> bool:
    """`kwargs["dest"]["choices"] = ...` (vLLM 0.10.0's FrontendArgs for --tool-call-parser)."""
    for node in ast.walk(tree):
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
        if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant) \
                and target.slice.value == "choices" and isinstance(target.value, ast.Subscript) \
                and isinstance(target.value.slice, ast.Constant) and target.value.slice.value == dest:
            return True
    return False


def _defines(tree: ast.Module, name: str) -> bool:
    return any(isinstance(n, ast.FunctionDef) and n.name == name for n in tree.body)


def class_dict(tree: ast.Module, class_name: str, variable: str) -> dict[str, str]:
    """Keys of a dict assigned in a class body (`Variable: Dict[...] = {"name": DetectorClass, ...}`)."""
    for node in ast.walk(tree):
        if not (isinstance(node, ast.ClassDef) and node.name == class_name):
            continue
        for item in node.body:
            target = item.target if isinstance(item, ast.AnnAssign) else item.targets[0] if isinstance(
                item, ast.Assign) else None
            if isinstance(target, ast.Name) and target.id == variable and isinstance(item.value, ast.Dict):
                return {k.value: ast.unparse(v) for k, v in zip(item.value.keys, item.value.values, strict=True)
                        if isinstance(k, ast.Constant) and isinstance(k.value, str)}
    return {}


def extra_choices(tree: ast.Module, flag: str) -> list[str]:
    """String literals added to the flag's argparse `choices` besides the parser map (SGLang's "auto")."""
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr
                == "add_argument" and node.args and isinstance(node.args[0], ast.Constant)
                and node.args[0].value == flag):
            continue
        choices = next((k.value for k in node.keywords if k.arg == "choices"), None)
        if choices is None:
            return []
        return [c.value for part in ast.walk(choices) if isinstance(part, ast.List)
                for c in part.elts if isinstance(c, ast.Constant) and isinstance(c.value, str)]
    return []


def sglang_release(archive: zipfile.ZipFile) -> dict[str, Any]:
    members = archive.namelist()
    names: dict[str, dict[str, str]] = {}
    read: list[str] = []
    args_tree = _tree(archive, SGLANG_ARGS)
    checks: dict[str, Any] = {}
    for kind, (paths, class_name, variable) in SGLANG_MAPS.items():
        member = next((p for p in paths if p in members), None)
        tree = _tree(archive, member) if member else None
        names[kind] = class_dict(tree, class_name, variable) if tree else {}
        read += [member] if member else []
        extras = extra_choices(args_tree, SGLANG_FLAGS[kind]) if args_tree else []
        checks[SGLANG_FLAGS[kind]] = {"argparse_choices": bool(args_tree) and _has_choices(args_tree,
                                                                                           SGLANG_FLAGS[kind]),
                                      "extra_choices": extras}
    read.append(SGLANG_ARGS)
    detection = detection_rules(archive)
    read += [SGLANG_DETECTION] if detection else []
    return {"names": names, "checks": checks, "read": read, "detection": detection,
            "reasoning_detection": detection_rules(archive, "REASONING_PARSER_RULES")}


def _has_choices(tree: ast.Module, flag: str) -> bool:
    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr
               == "add_argument" and node.args and isinstance(node.args[0], ast.Constant)
               and node.args[0].value == flag and any(k.arg == "choices" for k in node.keywords)
               for node in ast.walk(tree))


def detection_rules(archive: zipfile.ZipFile, variable: str = "TOOL_CALL_PARSER_RULES") -> dict[str, str]:
    """SGLang's `auto` rules: `DetectionRule(name=..., value="parser", ...)` of TOOL_CALL_PARSER_RULES (or
    REASONING_PARSER_RULES), rule name -> parser."""
    tree = _tree(archive, SGLANG_DETECTION) if SGLANG_DETECTION in archive.namelist() else None
    found: dict[str, str] = {}
    for node in tree.body if tree else []:
        if not (isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == variable
                                                      for t in node.targets)):
            continue
        for call in (c for c in ast.walk(node.value) if isinstance(c, ast.Call)):
            words = {k.arg: k.value for k in call.keywords}
            if isinstance(words.get("name"), ast.Constant) and isinstance(words.get("value"), ast.Constant):
                found[str(words["name"].value)] = str(words["value"].value)
    return found


def checked_families(tables: dict[str, Any], detection: dict[str, str], reasoning: dict[str, str]
                     ) -> list[dict[str, Any]]:
    """FAMILIES, each checked against the newest release of every engine the table holds (see FAMILIES)."""
    out = []
    for family in FAMILIES:
        for package in (p for p in ("vllm", "sglang") if p in tables):
            newest = tables[package]["releases"][-1]
            for kind, names in family[package].items():
                table = tables[package][f"{kind}_parsers"]
                missing = [n for n in names if not table.get(n)] + [n for n in names[:1] if not table.get(
                    n, "").endswith(".." + newest)]  # every name registered somewhere, the first at the newest
                if missing:
                    raise SystemExit(f"{family['family']}: {package} {newest} does not register {missing}")
        rules = [("detect", detection, "tool", "TOOL_CALL_PARSER_RULES"),
                 ("detect_reasoning", reasoning, "reasoning", "REASONING_PARSER_RULES")]
        cited = {}
        for key, found, kind, variable in rules:
            if not family.get(key):
                continue
            if found and found.get(family[key]) != family["sglang"][kind][0]:
                raise SystemExit(f"{family['family']}: SGLang's auto rule {family[key]} maps to "
                                 f"{found.get(family[key])}, not {family['sglang'][kind][0]}")
            cited[key] = f"{SGLANG_DETECTION} {variable} {family[key]}"
        out.append({**{k: v for k, v in family.items() if k not in ("detect", "detect_reasoning")}, **cited})
    return out


def read_release(package: str, version: str, files: list[dict[str, Any]]) -> dict[str, Any]:
    archive, provenance = wheels.open_wheel(package, version, files)
    with archive:
        row = vllm_release(archive) if package == "vllm" else sglang_release(archive)
    provenance["read_members"] = row.pop("read")
    return {**row, "provenance": provenance}


def package_table(package: str, releases: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    rows = wheels.read_rows(package, releases, read_release)
    versions = list(rows)
    table: dict[str, Any] = {"releases": versions}
    for kind in KINDS:
        table[kind] = wheels.runs(versions, [set(rows[v]["names"][kind]) for v in versions])
        names = sorted({n for v in versions for n in rows[v]["names"][kind]})
        table[kind.replace("parsers", "classes")] = {  # name -> {class: runs of releases}
            name: wheels.runs(versions, [{rows[v]["names"][kind][name]} if name in rows[v]["names"][kind] else set()
                                         for v in versions]) for name in names}
    table["checks"] = _check_runs(versions, rows)
    if "detection" in rows[versions[-1]]:  # SGLang's --tool-call-parser auto rules at the newest release
        table["auto_rules"] = rows[versions[-1]]["detection"]
        table["auto_reasoning_rules"] = rows[versions[-1]]["reasoning_detection"]
    table["provenance"] = {v: rows[v]["provenance"] for v in versions}
    return table


def _check_runs(versions: list[str], rows: dict[str, dict[str, Any]]) -> dict[str, dict[str, str]]:
    """Each start-up check's condition (as JSON text, for SGLang's dict) by runs of releases that share it."""
    out: dict[str, dict[str, str]] = {}
    keys = sorted({k for v in versions for k in rows[v]["checks"]})
    for key in keys:
        texts = [json.dumps(rows[v]["checks"].get(key), sort_keys=True) for v in versions]
        spans = wheels.runs(versions, [{t} for t in texts])
        out[key] = {text: span for text, span in spans.items() if text != "null"}
    return out


def main(argv: list[str] | None = None) -> int:
    args = wheels.table_arguments(__doc__.split("\n\n")[0], FIRST, argv)
    old = wheels.old_table(TARGET)
    packages = args.only or sorted(FIRST)
    wheels.FIRST.update(FIRST)
    listed = {package: wheels.final_releases(package) for package in packages}
    if args.check:
        return wheels.report_missing(TARGET, old, listed)
    started = time.monotonic()
    listed = {p: {v: f for v, f in releases.items() if any(x["filename"].endswith(".whl") for x in f)}
              for p, releases in listed.items()}
    tables = {**old["packages"], **{p: package_table(p, listed[p]) for p in packages}}
    document = {
        "generated": date.today().isoformat(),
        "generated_by": "python tools/parser_tables.py",
        "source": "PyPI wheels, read statically: vLLM's ToolParserManager / ReasoningParserManager registrations "
                  "(lazy tables and register_module decorators) and the start-up checks of validate_api_server_args "
                  "/ validate_parsed_serve_args; SGLang's FunctionCallParser.ToolCallParserEnum, "
                  "ReasoningParser.DetectorMap and server_args.py's argparse choices",
        "packages": dict(sorted(tables.items())),
        "families": checked_families(tables, tables.get("sglang", {}).get("auto_rules", {}),
                                     tables.get("sglang", {}).get("auto_reasoning_rules", {})),
    }
    wheels.write_table(TARGET, document, started)
    return 0

if __name__ == "__main__":
    sys.exit(main())
