"""vLLM behind the Engine interface. What the doctor knows of vLLM today is in rules/vllm.toml and the
launch line; it has no vLLM kernel plan or memory model yet, and says so rather than borrow another engine's."""

from __future__ import annotations

from doctor.engines.base import Engine
from doctor.engines.releases import VLLM


class VLLM(Engine):
    name = "vllm"
    display_name = "vLLM"
    package = "vllm"
    releases = VLLM

    def base_command(self, model: str) -> list[str]:
        return ["vllm", "serve", model]

    def tp_flag(self) -> str:
        return "--tensor-parallel-size"
