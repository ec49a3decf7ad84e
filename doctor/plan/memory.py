"""How an engine divides GPU memory, as the planner asks it: one implementation per engine
(doctor.engines.<engine>.memory), named in every figure it produces so a plan never shows one engine's
formula under another's name."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from doctor.pipeline.facts import Model
from doctor.plan.arch import Piece

if TYPE_CHECKING:
    from doctor.launch import Launch
    from doctor.pipeline.facts import Facts

if TYPE_CHECKING:
    from doctor.plan.kv import KvShape
    from doctor.plan.layouts import Comm, ExpertSplit
    from doctor.plan.weights import RankWeights


@dataclass(frozen=True)
class LayoutShape:
    """The parallel sizes a memory model needs."""

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

    def cache_key(self) -> tuple[Any, ...] | None:
        """What makes two instances plan alike, sentences included (the planner memoises on it); None: never."""
        return None

    def arithmetic_key(self) -> tuple[Any, ...] | None:
        """What makes two instances give the same numbers (their sentences may name another version)."""
        return self.cache_key()

    def load_extras(self, model: Model) -> list[Piece]:
        """What the engine allocates at load beyond the checkpoint's tensors (none by default)."""
        return []

    def own_summary(self, facts: Facts, launch: Launch) -> dict[str, Any] | None:
        """An engine whose memory is not a TP x PP layout (llama.cpp places each tensor on a device) answers
        the plan itself, in plan_summary's shape; None: the planner's layouts."""
        return None

    def layout_problems(self, tp: int, ep: int, pp: int = 1) -> list[str]:
        """Why this engine cannot launch a TP x PP x EP layout that the model itself allows (none by default;
        an engine without pipeline parallelism says so for pp > 1, and `plan` never offers such layouts)."""
        return []

    def loads_expert_split(self, split: ExpertSplit) -> bool:
        """Does this engine load experts whose per-rank intermediate size cuts a quantization group or block
        (it pads or refines it)? Default no: the group or block must divide it."""
        return False

    def kernel_shape_problems(self, model: Model, tp: int, ep: int) -> list[str]:
        """Why a kernel this engine runs for the layout rejects a layer's per-rank shape at load (a Marlin repack of a
        shard off its tile: doctor.plan.quant_shapes); none by default."""
        return []

    def kernel_shape_risks(self, model: Model, tp: int, ep: int) -> list[str]:
        """Shards a kernel this engine runs loads but likely cannot compute (no Marlin thread tile divides them: the
        first forward raises); none by default."""
        return []

    def own_reasons(self, reasons: list[str]) -> list[str]:
        """The planner's sentences this engine stands behind (some describe another engine's launcher); default all."""
        return reasons

    @abstractmethod
    def settings(self, total_bytes: int, layout: LayoutShape, model: Model, speculative: bool) -> dict[str, Any]:
        """The engine's memory knobs for this layout as it resolves them (user values win); must hold
        `page_size`."""

    @abstractmethod
    def preload_free(self, total_bytes: int, world_size: int, unified_memory: bool) -> int:
        """Free memory per GPU when the engine takes its measure, before the weights load."""

    def preload_free_with(self, total_bytes: int, world_size: int, unified_memory: bool, comm: Comm | None) -> int:
        """preload_free knowing how the ranks talk (None: unknown); engines whose measure ignores it keep this."""
        return self.preload_free(total_bytes, world_size, unified_memory)

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

    def weights_bytes(self, rank: RankWeights, model: Model, layout: LayoutShape) -> int:
        """Bytes the engine holds for this rank's weights (the checkpoint's, unless it re-lays them out)."""
        return rank.bytes

    def borderline_bytes(self, weights: int, default: int) -> int:
        """How far from zero a KV budget stays inside this formula's known error (the planner's `default`
        unless the engine's measured error on the weights is wider)."""
        return default

    def kv_cell_bytes(self, model: Model, attn_tp: int, layers: int, dtype: str) -> int | None:
        """KV bytes per token per GPU for `layers` layers when the engine stores more than the planner's cell
        (per-token scales of a quantised cache); None: the planner's (doctor.plan.kv.cell_bytes)."""
        return None

    def kv_tokens(self, budget: int, shape: KvShape, settings: dict[str, Any]) -> int:
        """KV-cache tokens a budget buys, as the engine counts and reports them."""
        from doctor.plan.kv import tokens_for_bytes

        return tokens_for_bytes(budget, shape, settings["page_size"])

    def state_cache(self, budget: int, shape: KvShape, model: Model, layout: LayoutShape,
                    settings: dict[str, Any]) -> dict[str, Any] | None:
        """A hybrid model's recurrent-state blocks as the engine counts them in a pool of `budget` bytes (must
        hold `blocks`); None: the engine keeps no such pool or the doctor does not model it."""
        return None

    @abstractmethod
    def layout_flags(self, layout: LayoutShape, settings: dict[str, Any], kv_dtype: str, explicit_kv: bool,
                     context_length: int | None, custom_all_reduce_off: bool) -> tuple[str, ...]:
        """The launch flags that produce this layout and these settings."""
