"""One parser per log format: each module lists LineRules (base.py) for the lines it understands."""

from __future__ import annotations

from doctor.diagnose.formats import collect_env, command, llama_cpp, ollama, sglang, tensorrt_llm, traceback, vllm
from doctor.diagnose.formats.base import LineRule


def all_rules() -> tuple[LineRule, ...]:
    return (*vllm.RULES, *sglang.RULES, *tensorrt_llm.RULES, *llama_cpp.RULES, *ollama.RULES, *collect_env.RULES,
            *command.RULES, *traceback.RULES)
