"""What quantization configs have in common: which module a name (or pattern) addresses, safely matched, and the
field readers every format uses. Shared by doctor.probe.quant (the dispatcher) and doctor.probe.quant_formats."""

from __future__ import annotations

import dataclasses
import fnmatch
import functools
import re
from typing import Any

from doctor.errors import InputError
from doctor.pipeline.facts import Quantization

# Representative module names per component, as the checkpoints name them (with and without the
# multimodal wrapper's `language_model.` prefix). Used to decide what an ignore list leaves unquantized.
MODULE_KINDS = {
    "attention": "model.layers.5.self_attn.q_proj",
    "dense_mlp": "model.layers.0.mlp.gate_proj",
    "shared_experts": "model.layers.5.mlp.shared_experts.gate_proj",
    "routed_experts": "model.layers.5.mlp.experts.7.gate_proj",
    "lm_head": "lm_head",
    "mamba": "model.layers.5.mixer.in_proj",  # Nemotron-H / Mamba2 mixers (backbone.layers.N.mixer.*)
    "linear_attention": "model.layers.5.linear_attn.in_proj_qkvz",  # Qwen3-Next / Qwen3.5 Gated DeltaNet
    "latent": "model.layers.5.mixer.fc1_latent_proj",  # latent MoE projections (Nemotron-3-Super)
}
# The same kinds under DeepSeek-V4's names (`attn.wq_b`, `ffn.experts`), which config-group targets address:
# RedHatAI/DeepSeek-V4-Flash-NVFP4-FP8 targets `re:.*attn.*(fused_wqa_wkv|wq_b|wo_a|wo_b)$` (block FP8) and
# `re:.*ffn.*(gate|up|down)_proj$` (NVFP4), neither of which matches the names above.
KIND_ALIASES = {
    "attention": ("model.layers.5.attn.wq_b",),
    "shared_experts": ("model.layers.5.ffn.shared_experts.gate_proj",),
    "routed_experts": ("model.layers.5.ffn.experts.7.gate_proj",),
}


PER_CHANNEL = 1 << 19  # group_size -1 (GPTQ/AWQ per output channel): one group spans any input width
LAYER = re.compile(r"(?:^|\.)(?:layers|h|blocks)\.(\d+)\.")


def group_size(value: Any) -> int | None:
    """A config's group size: None when absent, PER_CHANNEL for -1 or 0."""
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and value in (-1, 0):
        return PER_CHANNEL
    return positive_int(value, "group_size")


def kind_of(name: str) -> tuple[str | None, int | None]:
    """The MODULE_KINDS kind and decoder layer a checkpoint module name addresses (None: not a linear we size,
    e.g. a router or a norm)."""
    if name.startswith("mtp.") or ".mtp." in name:  # MTP modules: sized by the decoder kinds they repeat
        return None, None
    match = LAYER.search(name)
    layer = int(match.group(1)) if match else None
    rest = name[match.end():] if match else name
    if "lm_head" in name or name.endswith("unembedding") or name == "output":
        return "lm_head", None
    if "shared_expert" in rest:
        return "shared_experts", layer
    if ".experts." in f".{rest}" or rest.endswith("experts"):
        return "routed_experts", layer
    if "latent_proj" in rest:
        return "latent", layer
    if "linear_attn" in rest:
        return "linear_attention", layer
    if "mixer.in_proj" in rest or "mixer.out_proj" in rest or "mamba" in rest:
        return "mamba", layer
    if any(k in rest for k in ("self_attn", "attention", ".attn.", "q_proj", "k_proj", "v_proj", "o_proj")):
        return "attention", layer
    if any(k in rest for k in ("mlp", "up_proj", "down_proj", "gate_proj", "feed_forward")) and "gate." not in rest:
        return ("dense_mlp", layer) if not rest.endswith(("mlp.gate", "router")) else (None, layer)
    return None, layer


def with_targets(q: Quantization) -> Quantization:
    quantized = tuple(kind for kind, name in MODULE_KINDS.items() if not is_ignored(name, q.ignored))
    return dataclasses.replace(q, quantized=quantized)


def is_ignored(module: str, patterns: tuple[str, ...]) -> bool:
    bare = module.removeprefix("model.")
    names = (module, f"language_model.{module}", f"model.language_model.{bare}", f"backbone.{bare}")
    for pattern in patterns:
        for name in names:
            if matches(pattern, name):
                return True
    return False


def matches(pattern: str, name: str) -> bool:
    if pattern.startswith("re:"):
        compiled = _bounded_regex(pattern[3:])
        return compiled is not None and compiled.match(name) is not None
    if any(ch in pattern for ch in "*?["):
        return fnmatch.fnmatchcase(name, pattern) or fnmatch.fnmatchcase(name, pattern + ".*")
    return name == pattern or name.endswith("." + pattern) or name.startswith(pattern + ".")


MAX_PATTERN = 1000  # characters; ignore-list patterns name modules, a few dozen characters each


@functools.lru_cache(maxsize=256)
def _bounded_regex(pattern: str) -> Any:
    """A `re:` pattern from a config, compiled so that matching a module name stays fast whatever the
    pattern (Python's backtracking `re` takes seconds on `(.*)*!`): the shapes real checkpoints use
    (`.*mlp\\.(gate|up)_proj.*`) by `re`, anything else by RE2, whose matching is linear. A pattern RE2
    cannot compile (backreferences, lookaround) or longer than MAX_PATTERN matches nothing."""
    if len(pattern) > MAX_PATTERN:
        return None
    if _backtracks_little(pattern):
        return re.compile(pattern)
    import re2  # ~5 ms to load: only for patterns `re` could take too long on

    options = re2.Options()
    options.log_errors = False  # RE2 would print parse errors on stderr
    options.max_mem = 8 << 20
    try:
        return re2.compile(pattern, options)
    except re2.error:
        return None



MAX_PLAIN_REPEATS = 2  # un-nested repeats: backtracking over a name of n characters is at most ~n**3 steps
_UNSAFE = {"GROUPREF", "GROUPREF_EXISTS", "ASSERT", "ASSERT_NOT", "ATOMIC_GROUP"}  # RE2 refuses these
_REPEATS = {"MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"}


def _backtracks_little(pattern: str) -> bool:
    """True when `re` matches `pattern` in polynomial time: no repeat inside a repeat, at most
    MAX_PLAIN_REPEATS repeats, nothing RE2 would refuse. Decided on the stdlib's own parse tree."""
    try:
        from re import _parser
    except ImportError:  # a Python without it: leave every pattern to RE2
        return False
    try:
        tree = _parser.parse(pattern)
    except (re.error, RecursionError, OverflowError):
        return False
    repeats = _repeats(list(tree), nested=False)
    return repeats is not None and repeats <= MAX_PLAIN_REPEATS


def _repeats(items: list[Any], nested: bool) -> int | None:
    """How many repeats `items` hold; None when one sits inside another (or inside a repeated branch)."""
    total = 0
    for op, arg in items:
        name = str(op)
        if name in _UNSAFE:
            return None
        inner: list[list[Any]] = []
        if name in _REPEATS:
            if nested:
                return None
            total += 1
            inner = [list(arg[2])]
        elif name == "SUBPATTERN":
            inner = [list(arg[-1])]
        elif name == "BRANCH":
            if nested:  # `(a|a)*b` backtracks exponentially without a nested repeat
                return None
            inner = [list(alt) for alt in arg[1]]
        for part in inner:
            found = _repeats(part, nested or name in _REPEATS)
            if found is None:
                return None
            total += found
    return total

def as_list(value: Any, field: str) -> list[Any]:
    if not isinstance(value, list):
        raise InputError(f"config.json: quantization field {field} must be a list")
    return value


def str_list(value: Any, field: str) -> tuple[str, ...]:
    if value is None:
        return ()
    items = as_list(value, field)
    if not all(isinstance(v, str) for v in items):
        raise InputError(f"config.json: quantization field {field} must be a list of strings")
    return tuple(items)


def positive_int(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 1 << 20:
        raise InputError(f"config.json: quantization field {field}={value!r} is not a positive integer")
    return value

