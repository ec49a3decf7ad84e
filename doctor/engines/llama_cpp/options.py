"""The llama-server flags that decide memory and kernels, parsed to one value object, with the defaults of
the known release (common/common.h and tools/server/server.cpp at ggml-org/llama.cpp@0c1e57098):
`-ngl` auto (fit to free memory, `--fit on`), `-c 0` (the trained context), F16 K/V cache, `-fa auto`,
layer split across GPUs by free memory, `-b 2048 -ub 512`, `-np -1` (the server makes that 4 slots over a
unified KV cache)."""

from __future__ import annotations

from dataclasses import dataclass

from doctor.engines.llama_cpp.flags import BENCH, FlagTable, pairs
from doctor.engines.spi import Launch, UsageError

FFN_EXPS_REGEX = r"\.ffn_(up|down|gate|gate_up)_(ch|)exps"  # common.h LLM_FFN_EXPS_REGEX
AUTO, ALL = -1, -2
SERVER_AUTO_SLOTS = 4


@dataclass(frozen=True)
class LlamaOptions:
    n_gpu_layers: int = AUTO  # AUTO: --fit decides; ALL: every layer; else that many (from the last)
    ctx_size: int = 0  # 0: the model's trained context
    cache_type_k: str = "f16"
    cache_type_v: str = "f16"
    flash_attn: str = "auto"
    split_mode: str = "layer"
    tensor_split: tuple[float, ...] = ()
    main_gpu: int = 0
    overrides: tuple[tuple[str, str], ...] = ()  # (regex, buffer type), first match wins
    n_batch: int = 2048
    n_ubatch: int = 512
    parallel: int = -1
    kv_unified: bool = False
    swa_full: bool = False
    no_kv_offload: bool = False
    fit: bool = True
    n_cpu_moe: int = 0  # as given, for the report (already expanded into overrides)
    cpu_moe: bool = False
    load_mode: str = "default"  # as given: --load-mode MODE, or "mmap"/"none" from --mmap/--no-mmap; else "default"

    @property
    def slots(self) -> int:
        return SERVER_AUTO_SLOTS if self.parallel < 0 else max(1, self.parallel)

    @property
    def unified(self) -> bool:
        return self.kv_unified or self.parallel < 0

    @property
    def fa_enabled(self) -> bool | None:
        """True/False when set; None for auto (on where the device supports it for the model)."""
        if self.flash_attn in ("on", "enabled", "true", "1"):
            return True
        if self.flash_attn in ("off", "disabled", "false", "0"):
            return False
        return None


def parse_options(argv: list[str], table: FlagTable) -> LlamaOptions:
    values: dict[str, object] = {}
    overrides: list[tuple[str, str]] = []
    for flag, value in pairs(argv, table):
        name = table.canonical(flag)
        if table.tool == BENCH and value and name != "--override-tensor":
            value = _largest(value)
        if name in ("--override-tensor",) and value:
            overrides += [_override(item) for item in value.split(",") if item]
        elif name == "--cpu-moe":
            overrides.append((FFN_EXPS_REGEX, "CPU"))
            values["cpu_moe"] = True
        elif name == "--n-cpu-moe" and value is not None:
            n = _int(flag, value)
            overrides += [(rf"blk\.{i}{FFN_EXPS_REGEX}", "CPU") for i in range(n)]
            values["n_cpu_moe"] = n
        elif flag in ("--mmap", "--no-mmap"):  # one entry with a negated spelling at some builds, two at others
            values["load_mode"] = "mmap" if flag == "--mmap" else "none"
        elif name == "--load-mode" and value is not None:
            values["load_mode"] = value
        elif name in _SETTERS:
            key, convert = _SETTERS[name]
            values[key] = True if convert is None else convert(flag, value)
    return LlamaOptions(overrides=tuple(overrides), **values)  # type: ignore[arg-type]


def launch_values(options: LlamaOptions, argv: list[str]) -> Launch:
    """The generic Launch the pipeline carries, with llama-server's own keys."""
    values = {"n_gpu_layers": options.n_gpu_layers, "ctx_size": options.ctx_size,
              "cache_type_k": options.cache_type_k, "cache_type_v": options.cache_type_v,
              "flash_attn": options.flash_attn, "split_mode": options.split_mode, "n_cpu_moe": options.n_cpu_moe,
              "cpu_moe": options.cpu_moe, "parallel": options.parallel, "n_ubatch": options.n_ubatch}
    return Launch(values=values, args=tuple(argv))


def _largest(value: str) -> str:
    """llama-bench takes a comma list (`-ub 512,1024`) and runs every value: the plan takes the largest number,
    else the first word."""
    items = [item for item in value.split(",") if item]
    numbers = [int(item) for item in items if item.lstrip("-").isdigit()]
    return str(max(numbers)) if numbers and len(numbers) == len(items) else (items[0] if items else value)


def _int(flag: str, value: str | None) -> int:
    try:
        return int(str(value))
    except ValueError as exc:
        raise UsageError(f"llama-server flag {flag}: {value!r} is not an integer") from exc


def _gpu_layers(flag: str, value: str | None) -> int:
    if value == "auto":
        return AUTO
    if value == "all":
        return ALL
    return _int(flag, value)


def _split(flag: str, value: str | None) -> tuple[float, ...]:
    try:
        return tuple(float(x) for x in str(value).replace("/", ",").split(",") if x)
    except ValueError as exc:
        raise UsageError(f"llama-server flag {flag}: {value!r} is not a list of proportions like 3,1") from exc


def _override(item: str) -> tuple[str, str]:
    pattern, eq, buffer = item.rpartition("=")
    if not eq or not pattern or not buffer:
        raise UsageError(f"llama-server -ot {item!r}: expected <tensor regex>=<buffer type>, e.g. exps=CPU")
    return pattern, buffer


def _text(flag: str, value: str | None) -> str:
    return str(value)


def _flash_attn(flag: str, value: str | None) -> str:
    """Before llama.cpp took a value for -fa (b6301 and older samples; b6431 takes one), the bare switch turned
    it on."""
    return "on" if value is None else str(value)


def _truthy(flag: str, value: str | None) -> bool:
    return str(value) in ("on", "enabled", "true", "1")


_SETTERS = {
    "--n-gpu-layers": ("n_gpu_layers", _gpu_layers), "--ctx-size": ("ctx_size", _int),
    "--cache-type-k": ("cache_type_k", _text), "--cache-type-v": ("cache_type_v", _text),
    "--flash-attn": ("flash_attn", _flash_attn), "--split-mode": ("split_mode", _text),
    "--tensor-split": ("tensor_split", _split), "--main-gpu": ("main_gpu", _int),
    "--batch-size": ("n_batch", _int), "--ubatch-size": ("n_ubatch", _int), "--parallel": ("parallel", _int),
    "--kv-unified": ("kv_unified", None), "--swa-full": ("swa_full", None),
    "--no-kv-offload": ("no_kv_offload", None), "-nkvo": ("no_kv_offload", None), "--fit": ("fit", _truthy),
}
