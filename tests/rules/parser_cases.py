"""Positive and boundary cases of rules/parsers.toml (PARSE001-PARSE017), read from the wheel-derived table
doctor/data/derived/parsers.json: one release before and after each name's first release, the flag that gates
the check (--enable-auto-tool-choice, a parser plugin), the model family and the other engine. The failures do
not depend on the GPU: the same launch fires on an H100 as on an RTX PRO 6000 or a DGX Spark."""

from __future__ import annotations

from collections.abc import Callable

from doctor.pipeline.facts import Facts
from tests.rules.builders import Case, a, build

PRO, SPARK, R5090, H100 = "rtx-pro-6000-x8", "dgx-spark", "rtx-5090", "h100-sxm-x8"
GPT_OSS, QWEN36, CODER = "openai/gpt-oss-120b", "Qwen/Qwen3.6-35B-A3B", "Qwen/Qwen3-Coder-30B-A3B-Instruct"
MINIMAX, DSV31, QWEN3 = "MiniMaxAI/MiniMax-M2.5", "deepseek-ai/DeepSeek-V3.1", "Qwen/Qwen3-30B-A3B"
GLM47, GLM5 = "zai-org/GLM-4.7", "zai-org/GLM-5"
GEMMA4, DSR1, DSV3 = "google/gemma-4-26B-A4B", "deepseek-ai/DeepSeek-R1", "nvidia/DeepSeek-V3-0324-NVFP4"
NEMOTRON3, NEMOTRON_H = "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4", "nvidia/Nemotron-H-56B-Base-8K"
AUTO = "--enable-auto-tool-choice"


def run(engine: str, model: str | None = None, profile: str = PRO) -> Callable[[], Facts]:
    return lambda: build(profile, model, (engine,))


def tool(name: str) -> tuple[str, str]:
    return ("--tool-call-parser", name)


def think(name: str) -> tuple[str, str]:
    return ("--reasoning-parser", name)


PARSER_CASES = [
    # PARSE001: vLLM checks the name only with auto tool choice
    a("PARSE001", True, "sglang's gpt-oss name on vllm", run("vllm==0.30.0", GPT_OSS), AUTO, *tool("gpt-oss")),
    a("PARSE001", True, "same on an h100", run("vllm==0.30.0", GPT_OSS, H100), AUTO, *tool("gpt-oss")),
    a("PARSE001", True, "glm47 one release before it", run("vllm==0.13.0"), AUTO, *tool("glm47")),
    a("PARSE001", False, "glm47 at its first release", run("vllm==0.14.0"), AUTO, *tool("glm47")),
    a("PARSE001", False, "without auto tool choice", run("vllm==0.30.0", GPT_OSS), *tool("gpt-oss")),
    a("PARSE001", False, "a plugin may register it", run("vllm==0.30.0"), AUTO, *tool("gpt-oss"),
      "--tool-parser-plugin", "/plugins/my_parser.py"),
    a("PARSE001", True, "the table's first release", run("vllm==0.9.2"), AUTO, *tool("gpt-oss")),
    a("PARSE001", False, "a source build the table does not hold", run("vllm==0.33.1.dev12"), AUTO,
      *tool("gpt-oss")),
    a("PARSE001", False, "the same name on sglang", run("sglang==0.5.9", GPT_OSS), *tool("gpt-oss")),
    a("PARSE001", True, "0.10.0's argparse choices: glm45 without auto", run("vllm==0.10.0"), *tool("glm45")),
    a("PARSE001", False, "glm45 at 0.10.1", run("vllm==0.10.1"), *tool("glm45")),
    a("PARSE001", True, "0.10.0's choices ignore a plugin", run("vllm==0.10.0"), *tool("glm45"),
      "--tool-parser-plugin", "/plugins/glm.py"),
    # PARSE002: unknown name, no auto tool choice: ignored
    a("PARSE002", False, "0.10.0 refuses it at parsing (PARSE001)", run("vllm==0.10.0"), *tool("glm45")),
    a("PARSE002", True, "unknown name, no auto", run("vllm==0.33.0"), *tool("deepseekv3")),
    a("PARSE002", False, "unknown name with auto (PARSE001)", run("vllm==0.33.0"), AUTO, *tool("deepseekv3")),
    a("PARSE002", False, "known name, no auto", run("vllm==0.33.0"), *tool("deepseek_v3")),
    # PARSE003: reasoning names are checked whenever given
    a("PARSE003", True, "kimi_k2 before 0.11.1", run("vllm==0.11.0"), *think("kimi_k2")),
    a("PARSE003", False, "kimi_k2 at 0.11.1", run("vllm==0.11.1"), *think("kimi_k2")),
    a("PARSE003", True, "sglang's deepseek-r1 on vllm", run("vllm==0.33.0", profile=SPARK), *think("deepseek-r1")),
    a("PARSE003", False, "deepseek_r1", run("vllm==0.33.0", profile=SPARK), *think("deepseek_r1")),
    a("PARSE003", False, "a reasoning plugin", run("vllm==0.33.0"), *think("deepseek-r1"),
      "--reasoning-parser-plugin", "/plugins/r.py"),
    a("PARSE003", False, "none means unset from 0.33.0", run("vllm==0.33.0"), *think("none")),
    a("PARSE003", True, "none before 0.33.0", run("vllm==0.32.0"), *think("none")),
    # PARSE004/PARSE005: SGLang's argparse choices
    a("PARSE004", True, "hermes before 0.5.9", run("sglang==0.5.8", profile=R5090), *tool("hermes")),
    a("PARSE004", False, "hermes at 0.5.9", run("sglang==0.5.9", profile=R5090), *tool("hermes")),
    a("PARSE004", True, "auto before 0.5.12", run("sglang==0.5.11"), *tool("auto")),
    a("PARSE004", False, "auto at 0.5.12", run("sglang==0.5.12"), *tool("auto")),
    a("PARSE004", False, "vllm's deepseek_v3 on vllm", run("vllm==0.33.0"), AUTO, *tool("deepseek_v3")),
    a("PARSE004", True, "vllm's deepseek_v3 on sglang", run("sglang==0.5.23"), *tool("deepseek_v3")),
    a("PARSE005", True, "vllm's deepseek_r1 on sglang", run("sglang==0.5.10"), *think("deepseek_r1")),
    a("PARSE005", False, "deepseek-r1", run("sglang==0.5.10"), *think("deepseek-r1")),
    a("PARSE005", True, "nano_v3 after 0.5.9", run("sglang==0.5.10"), *think("nano_v3")),
    a("PARSE005", False, "nano_v3 at 0.5.9", run("sglang==0.5.9"), *think("nano_v3")),
    # PARSE019: SGLang's argparse has no underscore spellings
    a("PARSE019", True, "--reasoning_parser on sglang 0.5.5", run("sglang==0.5.5"), "--reasoning_parser", "kimi_k2"),
    a("PARSE019", False, "--reasoning-parser on sglang 0.5.5", run("sglang==0.5.5"), *think("kimi_k2")),
    a("PARSE019", False, "--reasoning_parser on vllm", run("vllm==0.33.0"), "--reasoning_parser", "kimi_k2"),
    # PARSE006/PARSE007: the auto-tool-choice pair
    a("PARSE006", True, "auto without a parser", run("vllm==0.24.0", QWEN36, SPARK), AUTO),
    a("PARSE006", False, "auto with a parser", run("vllm==0.24.0", QWEN36, SPARK), AUTO, *tool("qwen3_coder")),
    a("PARSE006", False, "neither", run("vllm==0.24.0", QWEN36, SPARK)),
    a("PARSE006", False, "sglang has no such switch check", run("sglang==0.5.23", QWEN36)),
    a("PARSE007", True, "parser without auto", run("vllm==0.33.0", QWEN36), *tool("qwen3_coder")),
    a("PARSE007", False, "parser with auto", run("vllm==0.33.0", QWEN36), AUTO, *tool("qwen3_coder")),
    a("PARSE007", False, "gpt-oss: harmony path", run("vllm==0.33.0", GPT_OSS), *tool("openai")),
    a("PARSE007", False, "sglang reads it without a switch", run("sglang==0.5.23", QWEN36), *tool("qwen3_coder")),
    # PARSE010/PARSE011: the family's parser
    a("PARSE010", True, "qwen3.6 with hermes", run("vllm==0.33.0", QWEN36, SPARK), AUTO, *tool("hermes")),
    a("PARSE010", True, "qwen3.6 with the separate qwen3_xml of 0.23", run("vllm==0.23.0", QWEN36, SPARK), AUTO,
      *tool("qwen3_xml")),
    a("PARSE010", False, "qwen3_xml is qwen3_coder's class from 0.24", run("vllm==0.24.0", QWEN36, SPARK), AUTO,
      *tool("qwen3_xml")),
    a("PARSE010", False, "qwen3.6 with qwen3_coder", run("vllm==0.23.0", QWEN36, SPARK), AUTO, *tool("qwen3_coder")),
    a("PARSE010", False, "qwen3-coder with qwen3_xml", run("vllm==0.23.0", CODER), AUTO, *tool("qwen3_xml")),
    a("PARSE010", True, "qwen3-coder with hermes", run("vllm==0.23.0", CODER), AUTO, *tool("hermes")),
    a("PARSE010", False, "qwen3 (not coder) with hermes", run("vllm==0.23.0", QWEN3), AUTO, *tool("hermes")),
    a("PARSE010", True, "deepseek-v3.1 with the v3 parser", run("vllm==0.33.0", DSV31), AUTO, *tool("deepseek_v3")),
    a("PARSE010", False, "deepseek-v3.1 with deepseek_v31", run("vllm==0.33.0", DSV31), AUTO,
      *tool("deepseek_v31")),
    a("PARSE010", False, "an unregistered name is PARSE001's", run("vllm==0.33.0", GPT_OSS), AUTO,
      *tool("gpt-oss")),
    a("PARSE011", True, "gpt-oss with qwen25 on sglang", run("sglang==0.5.23", GPT_OSS), *tool("qwen25")),
    a("PARSE011", False, "gpt-oss with gpt-oss on sglang", run("sglang==0.5.23", GPT_OSS), *tool("gpt-oss")),
    a("PARSE011", True, "qwen3-coder with qwen25 on sglang", run("sglang==0.5.9", CODER), *tool("qwen25")),
    a("PARSE011", False, "qwen3-coder with qwen3_coder", run("sglang==0.5.9", CODER), *tool("qwen3_coder")),
    a("PARSE010", True, "deepseek-v3-0324 with the v3.1 parser", run("vllm==0.33.0", DSV3), AUTO,
      *tool("deepseek_v31")),
    a("PARSE010", False, "deepseek-v3-0324 with deepseek_v3", run("vllm==0.33.0", DSV3), AUTO, *tool("deepseek_v3")),
    a("PARSE011", True, "deepseek-r1 with qwen25 on sglang", run("sglang==0.5.9", DSR1), *tool("qwen25")),
    a("PARSE011", False, "deepseek-r1 with deepseekv3 on sglang", run("sglang==0.5.9", DSR1), *tool("deepseekv3")),
    a("PARSE015", True, "deepseek-r1, no reasoning parser", run("sglang==0.5.9", DSR1)),
    a("PARSE015", False, "deepseek-r1 with deepseek-r1", run("sglang==0.5.9", DSR1), *think("deepseek-r1")),
    a("PARSE015", False, "deepseek-v3 need not reason", run("sglang==0.5.9", DSV3)),
    # PARSE012/PARSE013: the family's reasoning parser
    a("PARSE012", True, "gpt-oss with deepseek_r1", run("vllm==0.33.0", GPT_OSS), *think("deepseek_r1")),
    a("PARSE012", False, "gpt-oss with openai_gptoss", run("vllm==0.33.0", GPT_OSS), *think("openai_gptoss")),
    a("PARSE013", True, "gpt-oss with qwen3 on sglang", run("sglang==0.5.23", GPT_OSS), *think("qwen3")),
    a("PARSE013", False, "gpt-oss with gpt-oss on sglang", run("sglang==0.5.23", GPT_OSS), *think("gpt-oss")),
    a("PARSE013", False, "<think> families are not judged", run("sglang==0.5.23", MINIMAX), *think("qwen3")),
    a("PARSE012", False, "qwen3.6 with deepseek_r1 is not judged", run("vllm==0.33.0", QWEN36), *think("deepseek_r1")),
    # PARSE014/PARSE015: a family that always reasons, no reasoning parser
    a("PARSE014", True, "minimax-m2 on vllm 0.11.1", run("vllm==0.11.1", MINIMAX)),
    a("PARSE014", False, "vllm 0.11.0 has no minimax_m2 parser", run("vllm==0.11.0", MINIMAX)),
    a("PARSE014", False, "with minimax_m2", run("vllm==0.11.1", MINIMAX), *think("minimax_m2")),
    a("PARSE014", True, "qwen3.6 thinks by default", run("vllm==0.33.0", QWEN36)),
    a("PARSE014", False, "qwen3.6 with qwen3", run("vllm==0.33.0", QWEN36), *think("qwen3")),
    a("PARSE014", False, "qwen3 (no family) without one", run("vllm==0.33.0", QWEN3)),
    a("PARSE014", False, "a checkpoint named Instruct", run("vllm==0.33.0", "Qwen/Qwen3.6-35B-A3B-Instruct")),
    a("PARSE014", True, "nemotron-3 on 0.17.1", run("vllm==0.17.1", NEMOTRON3, SPARK)),
    a("PARSE014", False, "nemotron-3 on 0.17.0 (no nemotron_v3 yet)", run("vllm==0.17.0", NEMOTRON3, SPARK)),
    a("PARSE014", False, "nemotron-3 with nemotron_v3", run("vllm==0.17.1", NEMOTRON3, SPARK), *think("nemotron_v3")),
    a("PARSE014", False, "nemotron-h base, not nemotron 3", run("vllm==0.24.0", NEMOTRON_H, SPARK)),
    a("PARSE010", False, "nemotron-3: no tool family, any parser", run("vllm==0.24.0", NEMOTRON3), AUTO,
      *tool("hermes")),
    a("PARSE016", False, "nemotron-3: no tool family, nothing predates", run("vllm==0.24.0", NEMOTRON3), AUTO,
      *tool("hermes")),
    a("PARSE015", True, "minimax-m2 on sglang 0.5.4.post1", run("sglang==0.5.4.post1", MINIMAX)),
    a("PARSE015", False, "sglang 0.5.4 has no minimax parser", run("sglang==0.5.4", MINIMAX)),
    a("PARSE015", False, "with minimax-append-think", run("sglang==0.5.23", MINIMAX), *think("minimax-append-think")),
    a("PARSE010", True, "gemma-4 with pythonic", run("vllm==0.19.0", GEMMA4, SPARK), AUTO, *tool("pythonic")),
    a("PARSE010", False, "gemma-4 with gemma4", run("vllm==0.19.0", GEMMA4, SPARK), AUTO, *tool("gemma4")),
    a("PARSE011", True, "gemma-4 with pythonic on sglang", run("sglang==0.5.11", GEMMA4), *tool("pythonic")),
    a("PARSE017", True, "gemma-4 on sglang 0.5.10 (gemma4 from 0.5.11)", run("sglang==0.5.10", GEMMA4),
      *tool("pythonic")),
    a("PARSE017", False, "gemma-4 on sglang 0.5.11", run("sglang==0.5.11", GEMMA4), *tool("gemma4")),
    # PARSE018: GLM-4.7's zero-argument calls crash the GLM parser before 0.15.0
    a("PARSE018", True, "glm-4.7 with glm47 on 0.14.1", run("vllm==0.14.1", GLM47), AUTO, *tool("glm47")),
    a("PARSE018", True, "glm-4.7 with glm45 on 0.13.0", run("vllm==0.13.0", GLM47), AUTO, *tool("glm45")),
    a("PARSE018", False, "glm-4.7 with glm47 on 0.15.0", run("vllm==0.15.0", GLM47), AUTO, *tool("glm47")),
    a("PARSE018", False, "glm-5 is not glm-4.7", run("vllm==0.14.1", GLM5), AUTO, *tool("glm47")),
    a("PARSE018", False, "glm-4.7 with hermes (PARSE010's)", run("vllm==0.14.1", GLM47), AUTO, *tool("hermes")),
    # PARSE016/PARSE017: the release predates the family's parser
    a("PARSE016", True, "gemma-4 on 0.18.0 (gemma4 from 0.19.0)", run("vllm==0.18.0", GEMMA4, SPARK), AUTO,
      *tool("pythonic")),
    a("PARSE016", False, "gemma-4 on 0.19.0", run("vllm==0.19.0", GEMMA4, SPARK), AUTO, *tool("pythonic")),
    a("PARSE016", True, "minimax-m2 on 0.11.0 with minimax (M1)", run("vllm==0.11.0", MINIMAX), AUTO,
      *tool("minimax")),
    a("PARSE016", False, "0.11.1 has minimax_m2", run("vllm==0.11.1", MINIMAX), AUTO, *tool("minimax")),
    a("PARSE017", True, "minimax-m2 on sglang 0.5.4 with qwen25", run("sglang==0.5.4", MINIMAX), *tool("qwen25")),
    a("PARSE017", False, "0.5.4.post1 has minimax-m2", run("sglang==0.5.4.post1", MINIMAX), *tool("minimax-m2")),
]


def logged(rule: str, fires: bool, why: str, engine: str, shown: tuple[str, ...] | None = None) -> Case:
    """An engine run as `diagnose` rebuilds it, with `shown` (default: the rule itself) as the rules whose
    signatures the log showed; `shown=()` is `check` (no log)."""
    log = None if shown == () else {"signatures": [rule] if shown is None else list(shown)}
    return Case(rule, fires, lambda: build(PRO, None, (engine,)), (), (), why,
                (lambda: {"image": None, "recipe": None, "log": log}) if log is not None else None)


# PARSE020/PARSE021 explain a parser's failure line only: they fire in the engine's own run when the log showed it
PARSER_LOG_CASES = [
    logged("PARSE020", True, "vllm parser line", "vllm==0.33.0"),
    logged("PARSE020", False, "check: no log", "vllm==0.33.0", shown=()),
    logged("PARSE020", False, "another rule's line", "vllm==0.33.0", shown=("PARSE001",)),
    logged("PARSE020", False, "an sglang run", "sglang==0.5.23"),
    logged("PARSE021", True, "sglang detector line", "sglang==0.5.23"),
    logged("PARSE021", False, "check: no log", "sglang==0.5.23", shown=()),
    logged("PARSE021", False, "a vllm run", "vllm==0.33.0"),
]
