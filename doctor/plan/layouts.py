"""TP x PP x EP layouts: which are valid for a model (the engines' divisibility checks) and what
communication path each one takes on a machine's topology.

Engines place ranks as rank = pp_rank * tp + tp_rank on GPUs 0..tp*pp-1 (CUDA order), so TP group s is
GPUs [s*tp, (s+1)*tp) and pipeline stages talk between consecutive groups. EP subdivides the TP group.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from doctor.pipeline.facts import Facts, Model
from doctor.topology import LINK_RANK

LINK_WORDS = {
    "NV": "over NVLink", "PIX": "under one PCIe switch (PIX)", "PXB": "across PCIe switches (PXB)",
    "PHB": "through one CPU host bridge (PHB)", "NODE": "inside one NUMA node, across root ports (NODE)",
    "SYS": "across CPU sockets (SYS)",
}


@dataclass(frozen=True)
class Layout:
    """A TP x PP x EP layout."""

    tp: int
    pp: int
    ep: int = 1

    @property
    def gpus(self) -> int:
        return self.tp * self.pp


@dataclass(frozen=True)
class ExpertSplit:
    """How TP cuts the routed experts: their quantization, each rank's intermediate width, the hidden size."""

    scheme: str
    per_rank: int
    hidden: int
    block: tuple[int, ...] | None = None


@dataclass(frozen=True)
class Comm:
    """How a layout's collectives travel on this machine, and what that costs."""

    tp_link: str | None
    pp_link: str | None
    custom_all_reduce: bool
    cost: float
    reasons: tuple[str, ...]


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def invalid_reasons(model: Model, layout: Layout, loads_split: Callable[[ExpertSplit], bool] | None = None
                    ) -> list[str]:
    """Why the engine would refuse this layout at startup (empty when it is valid). `loads_split`: the engine
    pads or refines a per-rank expert intermediate that cuts a quantization group or block
    (MemoryModel.loads_expert_split), so that divisibility does not apply."""
    a, tp, pp, ep = model.attention, layout.tp, layout.pp, layout.ep
    why = []
    if a.num_heads % tp:
        why.append(f"{a.num_heads} attention heads are not divisible by TP {tp}")
    if a.kind != "mla" and a.num_kv_heads % tp and tp % a.num_kv_heads:
        why.append(f"{a.num_kv_heads} KV heads and TP {tp}: neither divides the other")
    if pp > model.num_layers:
        why.append(f"PP {pp} exceeds the {model.num_layers} layers")
    moe = model.moe
    if moe is None:
        if ep > 1:
            why.append("EP needs a mixture-of-experts model")
        return why
    if tp % ep:
        why.append(f"EP {ep} must divide TP {tp} (EP runs inside the TP group)")
        return why
    if moe.routed_experts % ep:
        why.append(f"{moe.routed_experts} experts are not divisible by EP {ep}")
    moe_tp = tp // ep
    if moe.intermediate_size % moe_tp:
        why.append(f"expert intermediate size {moe.intermediate_size} is not divisible by {moe_tp}")
    else:
        q = model.quantization.for_experts()
        split = ExpertSplit(q.scheme, moe.intermediate_size // moe_tp, model.hidden_size, q.block_shape)
        if loads_split is None or not loads_split(split):
            why.extend(_quant_alignment(model, split.per_rank, "expert"))
    return why


def _quant_alignment(model: Model, per_rank: int, what: str) -> list[str]:
    q = model.quantization.for_experts()
    if "routed_experts" not in q.quantized:
        return []
    if q.scheme == "fp8-block" and q.block_shape:
        block = q.block_shape[0]
        if per_rank % block:
            return [f"{what} intermediate per rank {per_rank} is not divisible by the FP8 weight block {block}"]
    if q.scheme in ("int4-w4a16", "nvfp4", "mxfp4", "awq", "gptq"):
        group = q.group_size or (16 if q.scheme == "nvfp4" else 32 if q.scheme == "mxfp4" else 128)
        if per_rank % group:
            return [f"{what} intermediate per rank {per_rank} is not a multiple of the quantization group {group}"]
    return []


def enumerate_layouts(model: Model, gpu_count: int, loads_split: Callable[[ExpertSplit], bool] | None = None
                      ) -> list[Layout]:
    """Every valid TP x PP x EP on up to `gpu_count` GPUs, in (GPUs, TP, EP) order. TP must divide the
    attention heads and PP cannot pass the layer count (invalid_reasons' first checks), so only those
    are tried: the work grows with the model's divisors, not with the GPU count."""
    out = []
    heads = model.attention.num_heads
    for tp in (t for t in range(1, min(gpu_count, heads) + 1) if heads % t == 0):
        eps = [1] if model.moe is None else _divisors(tp)
        for pp in range(1, min(gpu_count // tp, model.num_layers) + 1):
            layouts = (Layout(tp, pp, ep) for ep in eps)
            out.extend(layout for layout in layouts if not invalid_reasons(model, layout, loads_split))
    return sorted(out, key=lambda layout: (layout.gpus, layout.tp, layout.ep))


def _tp_link(facts: Facts, layout: Layout) -> str | None:
    """Worst link inside any TP group (groups are consecutive blocks of `tp` GPUs in the facts' order)."""
    return facts.link_index.groups(layout.tp, layout.pp)[0] if layout.tp > 1 else None


def _pp_link(facts: Facts, layout: Layout) -> str | None:
    """Worst link between consecutive pipeline stages."""
    return facts.link_index.stages(layout.tp, layout.pp) if layout.pp > 1 else None


def communication(facts: Facts, layout: Layout) -> Comm:
    tp_link, pp_link = _tp_link(facts, layout), _pp_link(facts, layout)
    reasons: list[str] = []
    cost = 0.0
    if tp_link:
        reasons.append(f"TP{layout.tp} all-reduce {LINK_WORDS.get(tp_link, tp_link)}")
        cost += LINK_RANK.get(tp_link, 5)
    custom_ar = _custom_all_reduce(facts, layout)
    if layout.tp > 2 and tp_link != "NV":
        reasons.append(f"custom all-reduce off: on more than two GPUs it needs full NVLink; TP{layout.tp} "
                       f"all-reduces through NCCL over PCIe")
        cost += 1.0
    if pp_link:
        reasons.append(f"PP{layout.pp} sends activations between stages {LINK_WORDS.get(pp_link, pp_link)}; "
                       f"point-to-point traffic is small, pipeline bubbles cost decode latency")
        cost += 0.25 * LINK_RANK.get(pp_link, 5) + 1.5 * (layout.pp - 1)
    if layout.ep > 1:
        where = "NVLink" if tp_link == "NV" else "PCIe"
        reasons.append(f"EP{layout.ep} all-to-all of tokens over {where}"
                       + ("" if where == "NVLink" else "; on PCIe this usually costs more than TP's all-reduce"))
        cost += 0.0 if where == "NVLink" else 2.0
    return Comm(tp_link, pp_link, custom_ar, cost, tuple(reasons))


def _custom_all_reduce(facts: Facts, layout: Layout) -> bool:
    """`custom_all_reduce.py`: world size in (2,4,6,8); > 2 GPUs need full NVLink; P2P must work."""
    if layout.tp not in (2, 4, 6, 8):
        return False
    all_nvlink = facts.link_index.groups(layout.tp, layout.pp)[1]
    return (layout.tp == 2 or all_nvlink) and not facts.link_index.p2p_broken(layout.tp, layout.pp)
