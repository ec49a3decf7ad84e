"""The user's `vllm serve` flags (after `--`) as the doctor's Launch values: vLLM spellings (`-tp`,
`--max-model-len 32k`, `--tensor_parallel_size`, `--no-enforce-eager`) mapped to the keys the planner and
rules read. Which flags take a value comes from the wheel data of every known release."""

from __future__ import annotations

import re

from doctor.engines.spi import Launch, UsageError, flag_pairs
from doctor.engines.vllm import knowledge
from doctor.engines.vllm.flags import normalise

VALUES = {
    "--tensor-parallel-size": "tp", "-tp": "tp", "--pipeline-parallel-size": "pp", "-pp": "pp",
    "--data-parallel-size": "dp", "-dp": "dp", "--attention-backend": "attention_backend",
    "--kv-cache-dtype": "kv_cache_dtype", "--quantization": "quantization", "-q": "quantization",
    "--max-model-len": "context_length", "--gpu-memory-utilization": "gpu_memory_utilization",
    "--device-memory-utilization": "gpu_memory_utilization",
    "--max-num-seqs": "max_num_seqs", "--max-num-batched-tokens": "max_num_batched_tokens",
    "--block-size": "block_size", "--moe-backend": "moe_backend", "--linear-backend": "linear_backend",
    "--kv-cache-memory-bytes": "kv_cache_memory_bytes", "--kv-cache-memory": "kv_cache_memory_bytes",
    "--cpu-offload-gb": "cpu_offload_gb", "--max-cudagraph-capture-size": "max_cudagraph_capture_size",
    "--speculative-config": "speculative_config", "--dtype": "dtype",
    "--limit-mm-per-prompt": "limit_mm_per_prompt",
    # several nodes: the Ray executor, or the multiprocessing executor's own --nnodes / --node-rank
    "--distributed-executor-backend": "distributed_executor_backend", "--nnodes": "nnodes", "-n": "nnodes",
    "--node-rank": "node_rank", "-r": "node_rank",
    "--mamba-backend": "mamba_backend",  # 0.20+: the Mamba SSU kernels (triton, flashinfer)
    "--mamba-cache-mode": "mamba_cache_mode",  # none, align, all: how prefix caching keeps Mamba state
    "--all2all-backend": "all2all_backend",  # expert parallelism's all2all: deepep_* need DeepEP's kernels
}
SWITCHES = {
    "--enforce-eager": "enforce_eager", "--disable-custom-all-reduce": "disable_custom_all_reduce",
    "--enable-expert-parallel": "enable_expert_parallel", "--trust-remote-code": "trust_remote_code",
    "--enable-prefix-caching": "enable_prefix_caching",
    "--skip-mm-profiling": "skip_mm_profiling", "--language-model-only": "language_model_only",
}
KV_DTYPES = {"fp8": "fp8_e4m3", "fp8_inc": "fp8_e4m3", "fp8_ds_mla": "fp8_e4m3", "bfloat16": "bf16",
             "float16": "fp16", "nvfp4": "fp4_e2m1"}
INTS = {"tp", "pp", "dp", "context_length", "max_num_seqs", "max_num_batched_tokens", "block_size",
        "kv_cache_memory_bytes", "max_cudagraph_capture_size", "nnodes", "node_rank"}
FLOATS = {"gpu_memory_utilization", "cpu_offload_gb"}
HUMAN = re.compile(r"^(\d+(?:\.\d+)?)([kKmMgGtT])$")
DECIMAL = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
BINARY = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def takes_value(flag: str) -> bool:
    flag = normalise(flag)
    if flag in VALUES:
        return True
    history = knowledge.flag_history(flag)
    return history is not None and history["takes_value"] is True


def is_switch(flag: str) -> bool:
    flag = normalise(flag)
    if flag in SWITCHES or (flag.startswith("--no-") and flag[5:] in {s[2:] for s in SWITCHES}):
        return True
    history = knowledge.flag_history(flag)
    return history is not None and history["takes_value"] is False


def parse_launch(args: list[str]) -> Launch:
    values: dict[str, object] = {}
    given: dict[str, str] = {}
    unknown: list[str] = []
    for raw, value in flag_pairs(args, is_switch=is_switch, takes_value=takes_value):
        flag = normalise(raw)
        if flag in SWITCHES:
            values[SWITCHES[flag]] = True
        elif (negated := inverse_of(flag)) in SWITCHES:
            values[SWITCHES[negated]] = False
        elif flag in VALUES and value is not None:
            values[VALUES[flag]] = typed(VALUES[flag], flag, value)
            if VALUES[flag] == "kv_cache_dtype" and value in KV_DTYPES:
                # `values` holds the planner's spelling of vLLM's choice, `given` the user's (what findings print)
                values["kv_cache_dtype"], given["kv_cache_dtype"] = KV_DTYPES[value], value
        elif flag == "--speculative-config" or flag.startswith("--speculative-config."):
            values["speculative_config"] = value or True
            values["speculative_config_dotted"] = flag != "--speculative-config"  # a key's value, not JSON
        else:
            unknown.extend([raw] if value is None else [raw, value])
    if values.get("enable_expert_parallel"):
        values["ep"] = int(values.get("tp") or 1) * int(values.get("dp") or 1)  # type: ignore[call-overload]
    return Launch(values=values, args=tuple(args), unknown=tuple(unknown), given=given)


def inverse_of(flag: str) -> str | None:
    """The switch a negation turns off: `--no-X` (argparse) -> `--X`; `--disable-X` <-> `--enable-X`
    (vLLM 0.33's EnableDisableAction; VLLM013 reports it in a release without that action)."""
    if flag.startswith("--no-"):
        return "--" + flag[5:]
    for prefix, inverse in (("--disable-", "--enable-"), ("--enable-", "--disable-")):
        if flag.startswith(prefix):
            return inverse + flag.removeprefix(prefix)
    return None


def typed(key: str, flag: str, text: str) -> object:
    try:
        if key in INTS:
            if key == "context_length" and text.lower() in ("auto", "-1"):
                return None
            value = human_int(text)
            if not 0 <= value <= 1 << 40:
                raise ValueError
            return value
        if key in FLOATS:
            number = float(text)
            if key == "gpu_memory_utilization" and not 0 < number <= 1:
                raise ValueError
            return number
    except ValueError as exc:
        raise UsageError(f"vLLM flag {flag}: {text!r} is not a valid value") from exc
    return text


def human_int(text: str) -> int:
    """vLLM's human_readable_int: `32k` = 32000, `25.6k` = 25600, `32K` = 32768; no decimals with a binary
    suffix; a plain integer otherwise."""
    match = HUMAN.match(text.strip())
    if not match or not match.group(2):
        return int(text)
    number, suffix = match.group(1), match.group(2)
    if suffix in DECIMAL:
        return int(float(number) * DECIMAL[suffix])
    return int(number) * BINARY[suffix]
