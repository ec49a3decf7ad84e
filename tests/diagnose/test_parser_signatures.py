"""The signatures of rules/parsers.toml on the lines vLLM and SGLang print: each is the raise or log string of the
wheels tools/parser_tables.py reads (vLLM 0.33.0 common/cli_args.py, parser_manager.py, renderers/online_renderer.py,
the tool parsers' `logger.exception`; SGLang's argparse `choices` and its detectors), inside the output the server
prints around it. A log that states the release and the launch confirms the rule (the logged name is tied to the
deployment's); a bare line is a signature match with a fix said without the facts it lacks."""

from __future__ import annotations

from tests.diagnose.corpus import claimed, diagnose_text
from tests.diagnose.corpus import profile_base as profile

BANNER = "(APIServer pid=1) INFO 07-09 10:01:02 [api_server.py:1822] vLLM API server version 0.24.0\n"
ARGS = ("(APIServer pid=1) INFO 07-09 10:01:02 [utils.py:253] non-default args: {'model_tag': "
        "'nvidia/Qwen3.6-35B-A3B-NVFP4', 'enable_auto_tool_choice': True, 'tool_call_parser': '%s', "
        "'model': 'nvidia/Qwen3.6-35B-A3B-NVFP4'}\n")
KEYERROR = ("Traceback (most recent call last):\n"
            '  File "/usr/local/lib/python3.12/dist-packages/vllm/entrypoints/openai/api_server.py", line 1431, in '
            "validate_api_server_args\n    raise KeyError(\n"
            "KeyError: 'invalid tool call parser: %s (chose from { deepseek_v3,glm45,hermes,openai,qwen3_coder })'\n")
XML = ("(APIServer pid=1) WARNING 07-09 10:14:03 [qwen3xml_tool_parser.py:303] Error when parsing XML elements: "
       "not well-formed (invalid token)\n")



def explanation(log: str, rule: str, base=None):
    return next(e for e in diagnose_text(log, base).explanations if e.rule == rule)


def test_vllm_invalid_tool_parser_is_confirmed_by_the_launch_it_logs():
    log = ARGS % "qwen3-coder" + KEYERROR % "qwen3-coder"
    assert claimed(log, profile("dgx-spark", "vllm==0.24.0"))[:1] == ["PARSE001"]
    found = explanation(log, "PARSE001", profile("dgx-spark", "vllm==0.24.0"))
    assert found.severity == "error" and any("qwen3_coder" in f.summary for f in found.fixes)


def test_a_bare_keyerror_line_is_a_signature_match_with_a_fix():
    found = explanation(KEYERROR % "gpt-oss", "PARSE001")
    assert any("chose from" in f.summary for f in found.fixes)


def test_qwen3xml_line_with_the_launch_names_qwen3_coder():
    log = BANNER.replace("0.24.0", "0.23.0") + ARGS % "qwen3_xml" + XML
    assert claimed(log, profile("dgx-spark", "vllm==0.23.0"))[:1] == ["PARSE010"]
    found = explanation(log, "PARSE010", profile("dgx-spark", "vllm==0.23.0"))
    assert any("--tool-call-parser qwen3_coder" in f.summary for f in found.fixes)


def test_qwen3xml_is_qwen3_coder_from_0_24_so_the_launch_rules_it_out():
    log = ARGS % "qwen3_xml" + XML
    assert "PARSE010" not in claimed(log, profile("dgx-spark", "vllm==0.24.0"))


def test_each_start_up_refusal_is_its_rule():
    assert claimed("TypeError: Error: --enable-auto-tool-choice requires --tool-call-parser\n")[:1] == ["PARSE006"]
    assert claimed("KeyError: 'invalid reasoning parser: deepseek-r1 (chose from { deepseek_r1,qwen3 })'\n")[:1] \
        == ["PARSE003"]
    assert claimed("launch_server.py: error: argument --reasoning-parser: invalid choice: 'deepseek_r1' (choose "
                   "from 'deepseek-r1', 'qwen3', 'kimi')\n")[:1] == ["PARSE005"]


def test_request_and_parser_lines():
    assert claimed('{"object":"error","message":"\\"auto\\" tool choice requires --enable-auto-tool-choice and '
                   '--tool-call-parser to be set","type":"BadRequestError"}\n'
                   "Error code: 400\n")[:1] == ["PARSE007"]
    assert claimed("(APIServer pid=1) ERROR 07-09 10:14:03 [hermes_tool_parser.py:117] Error in extracting tool "
                   "call from response.\njson.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)\n"
                   )[:1] == ["PARSE020"]
    assert claimed("[2026-07-09 10:14:03 TP0] Error in detect_and_parse: Expecting value: line 1 column 2 (char 1)\n"
                   )[:1] == ["PARSE021"]


def test_old_vllm_argparse_line_is_not_sglangs():
    """vLLM up to 0.6 gave --tool-call-parser argparse choices too (vllm#9312): that line is not SGLang's."""
    log = "api_server.py: error: argument --tool-call-parser: invalid choice: 'llama3_json' (choose from 'mistral', " \
          "'hermes')\n"
    assert "PARSE004" not in claimed(log)


def test_parser_manager_lookups():
    """The KeyError the managers raise when a name is looked up unregistered (0.9.2 and 0.13+ wordings)."""
    assert claimed('KeyError: "Tool parser \'qwen3-coder\' not found."\n')[:1] == ["PARSE001"]
    assert claimed("KeyError: \"tool helper: 'glm45' not found in tool_parsers\"\n")[:1] == ["PARSE001"]
    assert claimed("KeyError: \"reasoning helper: 'glm45' not found in reasoning_parsers\"\n")[:1] == ["PARSE003"]


def test_sglang_parser_constructors():
    """SGLang's own constructors refuse a name that bypassed argparse (the Engine API, a config)."""
    assert claimed("ValueError: Unsupported tool_call_parser: qwen3-coder\n")[:1] == ["PARSE004"]
    frame = '  File "/sgl-workspace/sglang/python/sglang/srt/parser/reasoning_parser.py", line 404, in __init__\n'
    assert claimed(frame + "ValueError: Unsupported model type: deepseek_r1\n")[:1] == ["PARSE005"]
    assert "PARSE005" not in claimed("ValueError: Unsupported model type: llava_next\n")


def test_a_json_decode_error_is_the_parsers_only_beside_a_parser_frame():
    frame = '  File "/usr/local/lib/python3.12/dist-packages/vllm/tool_parsers/hermes_tool_parser.py", line 98, in x\n'
    error = "json.decoder.JSONDecodeError: Extra data: line 1 column 52 (char 51)\n"
    assert claimed(frame + error)[:1] == ["PARSE020"]
    assert "PARSE020" not in claimed('  File "/app/client.py", line 3, in <module>\n' + error)
