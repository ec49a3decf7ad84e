"""Plans: for each layout, weights on the fullest rank, the KV budget the engine's memory formula leaves
(a doctor.plan.memory.MemoryModel), the tokens and concurrent requests it holds, the communication path, the
flags to launch it; ranked."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from doctor.errors import InputError, UsageError
from doctor.pipeline.facts import Facts, Model
from doctor.plan import kv as kvmod
from doctor.plan.layouts import Comm, Layout, communication, enumerate_layouts, invalid_reasons
from doctor.plan.memory import LayoutShape, MemoryModel
from doctor.plan.weights import ByPlace, WeightSource, rank_bytes_by_place, stage_weights, weight_source

# Error of this estimate near zero KV: the runtime's memory before load is an estimate (1.1-3.1 GiB seen)
# and weights accounting is within ~1-2 % of the engine's measured usage.
GiB = 1 << 30
BORDERLINE_BYTES = 2 * GiB


@dataclass(frozen=True)
class PlanRequest:
    """What a plan is asked for: the engine's memory model, a layout, KV dtype, context."""

    memory: MemoryModel  # the engine's formula, with the user's memory knobs already in it
    tp: int | None = None
    pp: int | None = None
    ep: int | None = None
    kv_cache_dtype: str | None = None
    context_length: int | None = None
    speculative: bool = False


@dataclass(frozen=True)
class Plan:
    """One layout's memory: weights and KV per GPU, tokens, whether it fits and why."""

    tp: int
    pp: int
    ep: int
    fits: bool
    weights_per_gpu_bytes: int
    kv_bytes_per_token: int
    kv_capacity_tokens: int
    kv_budget_bytes: int
    max_concurrent_requests: int
    context_length: int
    kv_cache_dtype: str
    flags: tuple[str, ...]
    reasons: tuple[str, ...]
    valid: bool = True
    context_fits: bool = False
    borderline: bool = False
    rank_score: float = 0.0
    gpu_memory_bytes: int = 0
    memory: dict[str, Any] = field(default_factory=dict)
    stages: tuple[dict[str, Any], ...] = ()
    comm: dict[str, Any] = field(default_factory=dict)
    short_of_gpus_only: bool = False  # invalid only because the machine has fewer GPUs than the layout
    kernel_shapes: tuple[str, ...] = ()  # a kernel the engine runs rejects a per-rank shard (QNT rules)
    kernel_shape_only: bool = False  # invalid only because of kernel_shapes
    kernel_shape_tps: tuple[int, ...] = ()  # with kernel_shapes: the TP sizes whose shards the kernels take
    kernel_shape_risks: tuple[str, ...] = ()  # shards that load but no kernel thread tile divides (QNT004)

    def to_dict(self) -> dict[str, Any]:
        return {"tp": self.tp, "pp": self.pp, "ep": self.ep, "gpus": self.tp * self.pp, "valid": self.valid,
                "fits": self.fits, "context_fits": self.context_fits, "borderline": self.borderline,
                "weights_per_gpu_bytes": self.weights_per_gpu_bytes, "kv_bytes_per_token": self.kv_bytes_per_token,
                "kv_capacity_tokens": self.kv_capacity_tokens, "kv_budget_bytes": self.kv_budget_bytes,
                "max_concurrent_requests": self.max_concurrent_requests, "context_length": self.context_length,
                "kv_cache_dtype": self.kv_cache_dtype, "gpu_memory_bytes": self.gpu_memory_bytes,
                "flags": list(self.flags), "reasons": list(self.reasons), "memory": self.memory,
                "stages": list(self.stages), "comm": self.comm,
                "short_of_gpus_only": self.short_of_gpus_only, "kernel_shapes": list(self.kernel_shapes),
                "kernel_shape_only": self.kernel_shape_only, "kernel_shape_tps": list(self.kernel_shape_tps),
                "kernel_shape_risks": list(self.kernel_shape_risks)}


def gpu_memory_bytes(facts: Facts) -> int:
    size = _gpu_totals(facts)[0]
    if not size:
        raise InputError("the facts give no GPU memory size: planning needs a GPU, --hardware or --facts")
    return size  # engines size by the smallest visible GPU


_GPU_TOTALS: dict[int, tuple[tuple, int, bool]] = {}


def _gpu_totals(facts: Facts) -> tuple[int, bool]:
    """(smallest GPU memory, any unified memory), once per GPU list: every layout asks (doctor/topology.py)."""
    hit = _GPU_TOTALS.get(id(facts.gpus))
    if hit is None or hit[0] is not facts.gpus:
        sizes = [g.memory_total_bytes for g in facts.gpus if g.memory_total_bytes]
        unified = any(g.unified_memory for g in facts.gpus)
        hit = _GPU_TOTALS[id(facts.gpus)] = (facts.gpus, min(sizes, default=0), unified)
        if len(_GPU_TOTALS) > 64:
            _GPU_TOTALS.clear()
    return hit[1], hit[2]


def _more_cards_hint(facts: Facts, gpus: int) -> str:
    """A one-card profile asked for a bigger layout: the same cards in one machine are `PROFILE-xN`."""
    if facts.source.kind != "profile" or len(facts.gpus) != 1 or facts.gpus[0].unified_memory:
        return ""
    return f"; {gpus} of these cards in one machine: `--hardware {facts.source.name}-x{gpus}`"


def plan_layout(facts: Facts, model: Model, layout: Layout, req: PlanRequest,
                source: WeightSource | None = None, comm: Comm | None = None) -> Plan:
    """`comm`: the communication path when the caller knows better than this machine's topology (several
    nodes: doctor/cluster/layouts.py)."""
    source = source or weight_source(model)
    bad = invalid_reasons(model, layout, req.memory.loads_expert_split) + \
        req.memory.layout_problems(layout.tp, layout.ep, layout.pp)
    shapes = [] if bad else req.memory.kernel_shape_problems(model, layout.tp, layout.ep)
    bad += shapes
    if layout.gpus > len(facts.gpus):
        bad.append(f"TP{layout.tp} x PP{layout.pp} needs {layout.gpus} GPUs; the machine has {len(facts.gpus)} (a "
                   f"layout over several machines is checked with `--hardware PROFILE --nodes N`, one `--facts` "
                   f"snapshot per node, or `--ray`{_more_cards_hint(facts, layout.gpus)})")
    total = gpu_memory_bytes(facts)
    ranks = _ranks(source, model, layout, req.speculative, req.memory)
    dtype = kvmod.resolve_kv_dtype(model, req.kv_cache_dtype)
    context = req.context_length or model.max_position_embeddings or 4096
    memory = req.memory
    shape = LayoutShape(layout.tp, layout.pp, layout.ep)
    mem = memory.settings(total, shape, model, req.speculative)
    if comm is None and len(facts.gpus) >= layout.gpus:
        comm = communication(facts, layout)
    free = memory.preload_free_with(total, layout.gpus, _gpu_totals(facts)[1], comm)
    stages, tokens, budget_min, cell_max = [], None, None, 0
    state_cache: dict[str, Any] | None = None
    weights_of = {r.stage: memory.weights_bytes(r, model, shape) for r in ranks}
    for r in ranks:
        cell = kvmod.kv_shape(model, layout.tp, r.layers[0], r.layers[1], dtype, memory.kv_cell_bytes)
        budget = memory.kv_budget(free, weights_of[r.stage], mem)
        stage_tokens = memory.kv_tokens(budget, cell, mem)
        state = memory.state_cache(budget, cell, model, shape, mem)
        if state is not None and (state_cache is None or state["blocks"] < state_cache["blocks"]):
            state_cache = state
        tokens = stage_tokens if tokens is None else min(tokens, stage_tokens)
        budget_min = budget if budget_min is None else min(budget_min, budget)
        cell_max = max(cell_max, cell.cell_bytes)
        stages.append({"stage": r.stage, "layers": list(r.layers), "weights_bytes": weights_of[r.stage],
                       "kv_bytes_per_token": cell.cell_bytes, "kv_budget_bytes": budget,
                       "kv_tokens": stage_tokens, "by_kind": r.by_kind})
    tokens = tokens or 0
    if state_cache is not None:  # a prefix-cache hit reuses whole blocks: none fits a shorter context
        state_cache = {**state_cache, "context_below_block": context < state_cache["block_size"]}
    last = kvmod.kv_shape(model, layout.tp, ranks[-1].layers[0], ranks[-1].layers[1], dtype, memory.kv_cell_bytes)
    concurrent = min(kvmod.concurrent_requests(tokens, last, context, model.attention.sliding_window),
                     memory.max_requests(tokens, context))
    weights = max(weights_of.values())
    fits = not bad and tokens > 0
    margin = memory.borderline_bytes(weights, BORDERLINE_BYTES)
    reasons = memory.own_reasons(_reasons(bad, memory.describe(weights, total, free, mem), memory.shortfall_hint(),
                                          budget_min or 0, tokens, context, concurrent, comm, margin))
    idle = max(0, len(facts.gpus) - layout.gpus)
    score = _score(fits, tokens >= context, (comm.cost if comm else 9.0) + idle * 0.5, tokens, budget_min or 0,
                   layout)
    return Plan(
        tp=layout.tp, pp=layout.pp, ep=layout.ep, fits=fits, weights_per_gpu_bytes=weights,
        kv_bytes_per_token=cell_max, kv_capacity_tokens=tokens, kv_budget_bytes=budget_min or 0,
        max_concurrent_requests=concurrent, context_length=context, kv_cache_dtype=dtype,
        flags=memory.layout_flags(shape, mem, dtype, bool(req.kv_cache_dtype), req.context_length,
                                  comm is not None and layout.tp > 2 and comm.tp_link != "NV"),
        reasons=tuple(reasons), valid=not bad,
        short_of_gpus_only=len(bad) == 1 and layout.gpus > len(facts.gpus),
        kernel_shapes=tuple(shapes), kernel_shape_only=bool(shapes) and len(bad) == len(shapes),
        kernel_shape_tps=_shape_tps(model, layout, req.memory, len(facts.gpus)) if shapes else (),
        kernel_shape_risks=() if shapes else tuple(req.memory.kernel_shape_risks(model, layout.tp, layout.ep)),
        context_fits=fits and tokens >= context, rank_score=score,
        borderline=not bad and abs(budget_min or 0) < margin, gpu_memory_bytes=total,
        memory={"engine": memory.label, **mem, "preload_free_bytes": free, "weights_source": source.kind,
                "checkpoint_bytes": source.checkpoint_bytes, "notes": list(source.notes),
                **({"state_cache": state_cache} if state_cache else {})},
        stages=tuple(stages),
        comm={} if comm is None else {"tp_link": comm.tp_link, "pp_link": comm.pp_link,
                                      "custom_all_reduce": comm.custom_all_reduce, "cost": comm.cost})


def _shape_tps(model: Model, layout: Layout, memory: MemoryModel, gpu_count: int) -> tuple[int, ...]:
    """The TP sizes (up to the machine's GPUs, at least 8) whose layout the model allows and whose shards the
    engine's kernels take, keeping the layout's PP and EP-or-not."""
    out = []
    for tp in range(1, max(8, gpu_count) + 1):
        ep = 1 if layout.ep == 1 else tp
        candidate = Layout(tp, layout.pp, ep)
        if invalid_reasons(model, candidate, memory.loads_expert_split) or \
                memory.layout_problems(tp, ep, layout.pp) or memory.kernel_shape_problems(model, tp, ep):
            continue
        out.append(tp)
    return tuple(out)


def _reasons(bad: list[str], description: str, shortfall_hint: str, budget: int, tokens: int,
             context: int, concurrent: int, comm: Any, margin: int) -> list[str]:
    reasons = [f"invalid: {b}" for b in bad]
    reasons.append(description)
    if budget <= 0:
        reasons.append(f"does not fit: {-budget / GiB:.2f} GiB short before any KV cache ({shortfall_hint})")
    if abs(budget) < margin:
        reasons.append(f"borderline: the KV budget is within {margin / GiB:.2g} GiB of zero, inside this "
                       f"estimate's error (runtime memory before load, allocator slack); measure before relying on it")
    if budget > 0:
        reasons.append(f"KV cache {budget / GiB:.2f} GiB = {tokens:,} tokens; {concurrent} concurrent request(s) "
                       f"of {context:,} tokens")
        if tokens < context:
            reasons.append(f"KV cache holds fewer tokens than one {context:,}-token request: lower "
                           f"--context-length or free memory")
    if comm is not None:
        reasons.extend(comm.reasons)
    return reasons


def _score(fits: bool, context_ok: bool, comm_cost: float, tokens: int, budget: int, layout: Layout) -> float:
    """Higher is better: fitting first, then a full-length request, then cheap communication, then KV;
    among layouts that do not fit, the smallest shortfall first."""
    if not fits:
        return -1e6 + budget / GiB
    return 1e6 + (1e5 if context_ok else 0) - comm_cost * 1e3 + min(tokens, 10**8) / 1e5 + layout.gpus * 1e-3


_RANK_CACHE: dict[tuple[int, str, str, int, bool], tuple[Model, ByPlace, dict[int, list]]] = {}


def _ranks(source: WeightSource, model: Model, layout: Layout, speculative: bool, memory: MemoryModel) -> list:
    """rank_weights per layout, the pass over the pieces memoised: `check` plans ~26 layouts for each of
    several what-if analyses of the same model, and one rank's bytes depend only on the model, the source,
    the engine's load extras, TP and speculation (PP only groups them into stages)."""
    key = (id(model), source.kind, type(memory).__name__, layout.tp, speculative)
    hit = _RANK_CACHE.get(key)
    if hit is None or hit[0] is not model:
        pieces = list(source.pieces) + memory.load_extras(model)
        hit = (model, rank_bytes_by_place(pieces, model, layout.tp, speculative), {})
        if len(_RANK_CACHE) > 512:
            _RANK_CACHE.clear()
        _RANK_CACHE[key] = hit
    by_pp = hit[2]  # layouts that differ only in EP share their stages
    if layout.pp not in by_pp:
        by_pp[layout.pp] = stage_weights(hit[1], model, layout.pp)
    return by_pp[layout.pp]


def make_plans(facts: Facts, model: Model, req: PlanRequest, source: WeightSource | None = None) -> list[Plan]:
    """All valid layouts on this machine, best first; a requested layout comes first whatever it scores."""
    if not facts.gpus:
        raise InputError("no GPU in the facts: planning needs a GPU, --hardware PROFILE or --facts FILE")
    source = source or weight_source(model)
    layouts = [lay for lay in enumerate_layouts(model, len(facts.gpus), req.memory.loads_expert_split)
               if not req.memory.layout_problems(lay.tp, lay.ep, lay.pp)
               and not req.memory.kernel_shape_problems(model, lay.tp, lay.ep)]
    if req.tp or req.pp or req.ep:
        wanted = Layout(req.tp or max(1, len(facts.gpus) // (req.pp or 1)), req.pp or 1, req.ep or 1)
        if wanted.tp < 1 or wanted.pp < 1 or wanted.ep < 1:
            raise UsageError("--tp, --pp and --ep must be at least 1")
        first = plan_layout(facts, model, wanted, req, source)
        rest = [plan_layout(facts, model, lay, req, source) for lay in layouts if lay != wanted]
        return [first, *sorted(rest, key=lambda p: -p.rank_score)]
    plans = [plan_layout(facts, model, lay, req, source) for lay in layouts]
    return sorted(plans, key=lambda p: -p.rank_score)
