"""How an engine divides GPU memory, as the planner asks it: one implementation per engine
(doctor.engines.<engine>.memory), named in every figure it produces so a plan never shows one engine's
formula under another's name."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

from doctor.facts import Model
from doctor.plan.arch import Piece


@dataclass(frozen=True)
class LayoutShape:
    tp: int
    pp: int
    ep: int

    @property
    def gpus(self) -> int:
        return self.tp * self.pp


class MemoryModel(ABC):
    engine: str  # display name, as the engine spells itself
    version: str

    @property
    def label(self) -> str:
        return f"{self.engine} {self.version}"

    def load_extras(self, model: Model) -> list[Piece]:
        """What the engine allocates at load beyond the checkpoint's tensors (none by default)."""
        return []

    @abstractmethod
    def settings(self, total_bytes: int, layout: LayoutShape, model: Model, speculative: bool) -> dict[str, Any]:
        """The engine's memory knobs for this layout as it resolves them (user values win); must hold
        `page_size`."""

    @abstractmethod
    def preload_free(self, total_bytes: int, world_size: int, unified_memory: bool) -> int:
        """Free memory per GPU when the engine takes its measure, before the weights load."""

    @abstractmethod
    def kv_budget(self, preload_free: int, weights: int, settings: dict[str, Any]) -> int:
        """Bytes left for the KV cache on a rank holding `weights` bytes (negative: short by that much)."""

    @abstractmethod
    def max_requests(self, tokens: int, context: int) -> int:
        """The engine's own cap on concurrent requests for a KV pool of `tokens` at `context` length."""

    @abstractmethod
    def describe(self, weights: int, total: int, preload_free: int, settings: dict[str, Any]) -> str:
        """One sentence: what the formula keeps for weights + KV on this GPU."""

    @abstractmethod
    def shortfall_hint(self) -> str:
        """What the engine says (or which knob to turn) when the weights leave no KV cache."""

    @abstractmethod
    def layout_flags(self, layout: LayoutShape, settings: dict[str, Any], kv_dtype: str, explicit_kv: bool,
                     context_length: int | None, custom_all_reduce_off: bool) -> tuple[str, ...]:
        """The launch flags that produce this layout and these settings."""
