"""Launch commands pasted into or echoed by a log: `vllm serve MODEL ...`, `python -m sglang.launch_server ...`,
`trtllm-serve MODEL ...`, `llama-server -m FILE ...`. Split like a shell; the model and flags go to `check`."""

from __future__ import annotations

import shlex
from typing import Any

from doctor.diagnose.formats.base import LineRule
from doctor.diagnose.logfacts import LogFacts

FMT = "command"
LAUNCHERS = {"vllm serve": "vllm", "vllm.entrypoints.openai.api_server": "vllm", "sglang.launch_server": "sglang",
             "sglang serve": "sglang", "trtllm-serve": "tensorrt-llm", "llama-server": "llama.cpp",
             "llama-cli": "llama.cpp"}
MODEL_FLAGS = ("--model", "--model-path", "-m", "--model_path")


def _command(m: Any, line: int, facts: LogFacts) -> None:
    launcher = m.group("launcher")
    engine = next(e for k, e in LAUNCHERS.items() if k in launcher)
    facts.saw(FMT, line)
    facts.hint_engine(engine, line)
    tokens = _split(m.group("rest"))
    model, argv = _model_and_flags(tokens, positional=launcher in ("vllm serve", "trtllm-serve", "sglang serve"))
    if model and "$" not in model and ("/" in model or model.endswith(".gguf")):
        facts.set_once("model", model, line)
    facts.set_once("argv", [a for a in argv if "$" not in a], line)


def _split(text: str) -> list[str]:
    text = text.split(" | ")[0].split(" && ")[0].rstrip("\\` ")
    try:
        return shlex.split(text, comments=False)
    except ValueError:  # an unbalanced quote in a cut line
        return text.split()


def _model_and_flags(tokens: list[str], positional: bool) -> tuple[str | None, list[str]]:
    model = None
    argv: list[str] = []
    index = 0
    if positional and tokens and not tokens[0].startswith("-"):
        model, index = tokens[0], 1
    while index < len(tokens):
        token = tokens[index]
        if token in MODEL_FLAGS and index + 1 < len(tokens):
            model = model or tokens[index + 1]
            index += 2
            continue
        if token.split("=", 1)[0] in MODEL_FLAGS and "=" in token:
            model = model or token.split("=", 1)[1]
        elif token.startswith("-") or argv:
            argv.append(token)
        index += 1
    return model, argv


RULES = (
    LineRule(FMT, r"(?P<launcher>vllm serve|vllm\.entrypoints\.openai\.api_server|sglang\.launch_server|sglang serve"
                  r"|trtllm-serve(?: serve)?|llama-server|llama-cli)(?P<rest>(?:\s+\S+)+)", _command),
)
