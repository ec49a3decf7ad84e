"""tools/parser_tables.py and the table it writes (doctor/data/derived/parsers.json), read by
doctor/engines/parsers.py: the registrations and start-up checks read from source text in both forms vLLM used,
SGLang's class maps and argparse choices, the table's runs and families, and (slow) the newest release of each
engine read again from its wheel."""

from __future__ import annotations

import ast
import json

import pytest

from doctor.engines import parsers
from tools import parser_tables as tool
from tools.model_support import final_releases

LAZY = '''
_TOOL_PARSERS_TO_REGISTER = {
    "hermes": ("hermes_tool_parser", "Hermes2ProToolParser"),
    "qwen3_xml": ("qwen3_engine_tool_parser", "Qwen3EngineToolParser"),
}
'''
DECORATED = '''
@ToolParserManager.register_module("llama3_json")
@ToolParserManager.register_module(["llama4_json", "llama4_x"])
class Llama3JsonToolParser(ToolParser):
    pass

@OtherManager.register_module("not_a_tool_parser")
class Other:
    pass
'''
CHECKS = '''
def validate_api_server_args(args):
    if args.enable_auto_tool_choice and args.tool_call_parser not in valid_tool_parses:
        raise KeyError(f"invalid tool call parser: {args.tool_call_parser} (chose from {{ x }})")
    if args.reasoning_parser and args.reasoning_parser not in valid:
        raise KeyError(f"invalid reasoning parser: {args.reasoning_parser}")
    if args.enable_auto_tool_choice and not args.tool_call_parser:
        raise TypeError("Error: --enable-auto-tool-choice requires --tool-call-parser")
'''
SGLANG = '''
class FunctionCallParser:
    ToolCallParserEnum: Dict[str, Type[BaseFormatDetector]] = {"deepseekv3": DeepSeekV3Detector, "gpt-oss": GptOss}
'''
ARGS = '''
parser.add_argument("--tool-call-parser", type=str, choices=["auto"] + _tool_call_parser_choices())
parser.add_argument("--reasoning-parser", type=str, choices=list(ReasoningParser.DetectorMap.keys()))
'''


def test_lazy_table_and_decorators():
    assert tool.lazy_registrations(ast.parse(LAZY), "_TOOL_PARSERS_TO_REGISTER") == {
        "hermes": "hermes_tool_parser.Hermes2ProToolParser",
        "qwen3_xml": "qwen3_engine_tool_parser.Qwen3EngineToolParser"}
    assert tool.decorator_registrations(ast.parse(DECORATED), "ToolParserManager", "m") == {
        "llama3_json": "m.Llama3JsonToolParser", "llama4_json": "m.Llama3JsonToolParser",
        "llama4_x": "m.Llama3JsonToolParser"}


def test_start_up_checks_keep_their_conditions():
    found = tool.raise_conditions(ast.parse(CHECKS))
    assert "enable_auto_tool_choice" in found["invalid_tool_parser"]
    assert "enable_auto_tool_choice" not in found["invalid_reasoning_parser"]
    assert found["auto_tool_choice_needs_parser"] == "args.enable_auto_tool_choice and (not args.tool_call_parser)"


def test_sglang_map_and_literal_choices():
    assert tool.class_dict(ast.parse(SGLANG), "FunctionCallParser", "ToolCallParserEnum") == {
        "deepseekv3": "DeepSeekV3Detector", "gpt-oss": "GptOss"}
    tree = ast.parse(ARGS)
    assert tool.extra_choices(tree, "--tool-call-parser") == ["auto"]
    assert tool.extra_choices(tree, "--reasoning-parser") == []
    assert tool._has_choices(tree, "--reasoning-parser")


def test_table_boundaries_read_from_the_wheels():
    assert parsers.span_text("vllm", parsers.TOOL, "glm47") == "0.14.0-0.33.0"
    assert parsers.span_text("vllm", parsers.TOOL, "openai") == "0.10.2-0.33.0"
    assert parsers.span_text("sglang", parsers.TOOL, "hermes") == "0.5.9-0.5.23"
    assert parsers.span_text("sglang", parsers.REASONING, "nano_v3") == "0.5.7-0.5.9"
    assert parsers.class_at("vllm", parsers.TOOL, "qwen3_xml", "0.23.0") != \
        parsers.class_at("vllm", parsers.TOOL, "qwen3_coder", "0.23.0")
    assert parsers.class_at("vllm", parsers.TOOL, "qwen3_xml", "0.24.0") == \
        parsers.class_at("vllm", parsers.TOOL, "qwen3_coder", "0.24.0")
    assert parsers.table_release("vllm", "0.33.1.dev3") is None


def test_every_release_has_the_start_up_checks():
    data = json.loads(parsers.TABLE.read_text())["packages"]
    for key in ("invalid_tool_parser", "invalid_reasoning_parser", "auto_tool_choice_needs_parser"):
        covered = [r for r in data["vllm"]["releases"] if parsers.check_condition("vllm", key, r)]
        assert covered == data["vllm"]["releases"], key
    for release in data["sglang"]["releases"]:
        assert parsers.check_condition("sglang", "--tool-call-parser", release)["argparse_choices"]


def test_families_name_only_registered_parsers():
    """Every name a family lists is registered in some release, its first name in the newest."""
    document = json.loads(parsers.TABLE.read_text())
    for family in document["families"]:
        for package in ("vllm", "sglang"):
            newest = document["packages"][package]["releases"][-1]
            for kind in (parsers.TOOL, parsers.REASONING):
                names = family[package][kind]
                assert all(parsers.span_text(package, kind, n) for n in names), family["family"]
                assert set(names[:1]) <= set(parsers.registered(package, kind, newest)), family["family"]


def test_vllm_argparse_choices_where_the_wheels_have_them():
    def choices(flag, release):
        return parsers.check_condition("vllm", flag, release)["argparse_choices"]
    assert choices("--tool-call-parser", "0.10.0") and not choices("--tool-call-parser", "0.10.1")
    assert not choices("--tool-call-parser", "0.9.2")
    assert choices("--reasoning-parser", "0.11.0") and not choices("--reasoning-parser", "0.11.1")


@pytest.mark.parametrize("flags, expected", [
    (["--tool-call-parser", "hermes"], "hermes"), (["--tool-call-parser=hermes"], "hermes"),
    (["--tool_call_parser", "hermes"], "hermes"), (["--tool-call-parser", "a", "--tool-call-parser", "b"], "b"),
    (["--tool-call-parser"], None), ([], None)])
def test_flag_spellings(flags, expected):
    assert parsers.flag_value(flags, "--tool-call-parser") == expected


@pytest.mark.slow
@pytest.mark.parametrize("package", ["vllm", "sglang"])
def test_newest_release_in_the_table_matches_its_wheel(package):
    """The newest release the table holds, read again from its wheel (cached, else PyPI by ranges)."""
    data = json.loads(parsers.TABLE.read_text())["packages"][package]
    newest = data["releases"][-1]
    tool.wheels.FIRST.update(tool.FIRST)
    read = tool.read_release(package, newest, final_releases(package)[newest])
    for kind in tool.KINDS:
        held = set(parsers.registered(package, kind.split("_")[0], newest))  # "tool" / "reasoning"
        assert held == set(read["names"][kind]), (package, newest, kind, sorted(held ^ set(read["names"][kind])))
