"""llama.cpp behind the Engine interface: a `llama-server` launch and the build-arch rules
(rules/llama_cpp.toml, fed by the toolkit probe); no GGUF reader or memory model yet."""

from __future__ import annotations

from doctor.engines.base import Engine


class LlamaCpp(Engine):
    name = "llama.cpp"
    display_name = "llama.cpp"
    package = "llama.cpp"

    def base_command(self, model: str) -> list[str]:
        return ["llama-server", "-m", "MODEL.gguf"]
