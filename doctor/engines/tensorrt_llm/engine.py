"""TensorRT-LLM behind the Engine interface: `trtllm-serve` launch and its rules (rules/tensorrt_llm.toml); no
kernel plan or memory model yet."""

from __future__ import annotations

from doctor.engines.base import Engine
from doctor.engines.releases import TENSORRT_LLM


class TensorRTLLM(Engine):
    name = "tensorrt-llm"
    display_name = "TensorRT-LLM"
    package = "tensorrt-llm"
    releases = TENSORRT_LLM

    def base_command(self, model: str) -> list[str]:
        return ["trtllm-serve", model]

    def tp_flag(self) -> str:
        return "--tp_size"
