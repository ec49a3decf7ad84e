"""The launch the user intends: engine flags given after `--`, e.g.
`sm120-doctor check MODEL -- --tp-size 8 --attention-backend triton`. Unknown flags are kept verbatim."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from doctor.errors import UsageError

# Engine flag spellings (and argparse prefixes people use) → canonical key
ALIASES = {
    "--tp": "tp", "--tp-size": "tp", "--tensor-parallel-size": "tp",
    "--pp": "pp", "--pp-size": "pp", "--pipeline-parallel-size": "pp",
    "--ep": "ep", "--ep-size": "ep", "--expert-parallel-size": "ep",
    "--dp": "dp", "--dp-size": "dp", "--data-parallel-size": "dp",
    "--attention-backend": "attention_backend",
    "--prefill-attention-backend": "prefill_attention_backend",
    "--decode-attention-backend": "decode_attention_backend",
    "--mm-attention-backend": "mm_attention_backend",
    "--moe-runner-backend": "moe_runner_backend",
    "--fp8-gemm-backend": "fp8_gemm_backend",
    "--fp4-gemm-backend": "fp4_gemm_backend",
    "--moe-backend": "moe_backend",  # vLLM >= 0.17, TensorRT-LLM
    "--linear-backend": "linear_backend",  # vLLM >= 0.22
    "--all2all-backend": "all2all_backend",  # vLLM
    "--moe-a2a-backend": "moe_a2a_backend",
    "--dsa-topk-backend": "dsa_topk_backend",
    "--linear-attn-backend": "linear_attn_backend",  # linear-attention (GDN/KDA) kernels, prefill and decode
    "--linear-attn-prefill-backend": "linear_attn_prefill_backend",
    "--linear-attn-decode-backend": "linear_attn_decode_backend",
    "--dsa-prefill-backend": "dsa_prefill_backend",
    "--dsa-decode-backend": "dsa_decode_backend",
    "--dsv4-attn-backend": "dsv4_attn_backend",  # DeepSeek-V4 attention kernels (rules/sweep9.toml)
    "--qsa-indexer-dtype": "qsa_indexer_dtype",  # Qwen4-Exp QSA indexer cache dtype
    "--mamba-backend": "mamba_backend", "--mamba-ssm-dtype": "mamba_ssm_dtype",  # the SSM state cache's kernels
    "--kv-cache-dtype": "kv_cache_dtype",
    "--quantization": "quantization",
    "--dtype": "dtype",  # the activation dtype; absent or auto: the config's torch_dtype
    "--mem-fraction-static": "mem_fraction_static",
    "--chunked-prefill-size": "chunked_prefill_size",
    "--context-length": "context_length",
    "--page-size": "page_size",
    "--cuda-graph-max-bs": "cuda_graph_max_bs",
    "--nnodes": "nnodes", "--node-rank": "node_rank",  # one distributed world over several nodes
    "--dist-init-addr": "dist_init_addr", "--nccl-init-addr": "dist_init_addr",  # the head node's host:port
    "--distributed-executor-backend": "distributed_executor_backend",  # vLLM: ray places ranks on every node
    "--host": "host",
}
SWITCHES = {
    "--disable-radix-cache": "disable_radix_cache",
    "--disable-cuda-graph": "disable_cuda_graph",
    "--disable-custom-all-reduce": "disable_custom_all_reduce",
    "--enable-dp-attention": "enable_dp_attention",
    "--disable-shared-experts-fusion": "disable_shared_experts_fusion",
    "--trust-remote-code": "trust_remote_code",
    "--disable-piecewise-cuda-graph": "disable_piecewise_cuda_graph",
    "--enable-expert-parallel": "enable_expert_parallel",  # vLLM
    "--enforce-eager": "enforce_eager",  # vLLM
}
# The doctor's own layout options (`check --tp/--pp/--ep/--context-length`) in the spelling parse_launch reads;
# each engine writes them its own way (Engine.option_flags).
GENERIC_OPTION_FLAGS = {"tp": "--tp-size", "pp": "--pp-size", "ep": "--ep-size", "context_length": "--context-length"}


def generic_option_flags(options: dict[str, int] | None) -> list[str]:
    return [part for key, value in (options or {}).items() if value and key in GENERIC_OPTION_FLAGS
            for part in (GENERIC_OPTION_FLAGS[key], str(value))]


INT_KEYS = {"tp", "pp", "ep", "dp", "chunked_prefill_size", "context_length", "page_size", "cuda_graph_max_bs",
            "nnodes", "node_rank"}
FLOAT_KEYS = {"mem_fraction_static"}


@dataclass(frozen=True)
class Launch:
    """The engine flags the user gave after `--`: canonical values, the argv as given, unknown flags."""

    values: dict[str, object] = field(default_factory=dict)
    args: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()
    # A value as the user wrote it, where the parser stored another spelling in `values` (vLLM's
    # `--kv-cache-dtype nvfp4` is fp4_e2m1 there): what a message or fix prints back to the user.
    given: dict[str, str] = field(default_factory=dict)

    def get(self, key: str, default: object = None) -> object:
        return self.values.get(key, default)

    def flags(self) -> list[str]:
        """The flag names given, normalised (`--tp_size=8` → `--tp-size`), in order, without values."""
        return [a.partition("=")[0].replace("_", "-") for a in self.args if a.startswith("--")]

    def tp(self, gpu_count: int) -> int:
        return int(self.values.get("tp") or max(gpu_count, 1))


def is_flag(token: str) -> bool:
    """`--x` and `-x` are flags; `-1` and `-0.5` are values."""
    return token.startswith("-") and not token.lstrip("-").replace(".", "").isdigit()


def flag_pairs(tokens: Sequence[str], is_switch: Callable[[str], bool] = lambda flag: False,
               takes_value: Callable[[str], bool] = lambda flag: False) -> list[tuple[str, str | None]]:
    """The one argv tokenizer: `--a 1 --b=2 --c` → [("--a", "1"), ("--b", "2"), ("--c", None)].

    A flag takes the next token as its value unless it is a switch or that token is itself a flag (or, for
    a flag `takes_value` says always takes one, whatever the next token is). A bare word stays a pair
    (word, None)."""
    pairs: list[tuple[str, str | None]] = []
    i = 0
    while i < len(tokens):
        flag, eq, inline = tokens[i].partition("=")
        if eq and flag.startswith("-"):
            pairs.append((flag, inline))
        elif not tokens[i].startswith("-") or is_switch(tokens[i]):
            pairs.append((tokens[i], None))
        elif i + 1 < len(tokens) and (takes_value(tokens[i]) or not is_flag(tokens[i + 1])):
            pairs.append((tokens[i], tokens[i + 1]))
            i += 1
        else:
            pairs.append((tokens[i], None))
        i += 1
    return pairs


def normal_flag(flag: str) -> str:
    """`--tp_size` → `--tp-size`: argparse accepts neither spelling for the other, engines print dashes."""
    return flag.replace("_", "-") if flag.startswith("--") else flag


def parse_launch(args: list[str]) -> Launch:
    values: dict[str, object] = {}
    unknown: list[str] = []
    pairs = flag_pairs(args, is_switch=lambda t: normal_flag(t) in SWITCHES,
                       takes_value=lambda t: normal_flag(t) in ALIASES)
    for raw, value in pairs:
        flag = normal_flag(raw)
        if flag in SWITCHES:
            values[SWITCHES[flag]] = True
        elif flag in ALIASES:
            if value is None:
                raise UsageError(f"engine flag {flag} needs a value")
            values[ALIASES[flag]] = _typed(ALIASES[flag], flag, value)
        else:
            unknown.extend([raw] if value is None else [raw, value])
    return Launch(values=values, args=tuple(args), unknown=tuple(unknown))


def _typed(key: str, flag: str, text: str) -> object:
    try:
        if key in INT_KEYS:
            value = int(text)
            if not -1 <= value <= 1 << 24:
                raise ValueError
            return value
        if key in FLOAT_KEYS:
            value = float(text)
            if not 0 < value <= 1:
                raise ValueError
            return value
    except ValueError as exc:
        raise UsageError(f"engine flag {flag}: {text!r} is not a valid value") from exc
    return text


def closest(word: str, known: Iterable[str], cutoff: float = 0.6) -> str | None:
    """The known spelling nearest to `word` (difflib's ratio at least `cutoff`), for "did you mean"."""
    from difflib import get_close_matches  # with heapq ~2 ms: paid only when something is misspelled

    found = get_close_matches(word, list(known), n=1, cutoff=cutoff)
    return found[0] if found else None
