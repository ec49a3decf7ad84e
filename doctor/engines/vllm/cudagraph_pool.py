"""Whether a vLLM release reserves the CUDA graphs' memory pool before it sizes the KV cache.

`Worker.determine_available_memory` (vllm/v1/worker/gpu_worker.py) subtracts `profile_cudagraph_memory()` from the
KV budget only when VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS is on (absent before 0.18.0; default 0 in 0.18.0 and
0.19.x, 1 from 0.20.0: the wheel tables' envs), and the graphs are captured after the KV cache, in what the
utilization's share leaves. Model Runner V2 (vllm/v1/worker/gpu/model_runner.py) answers
`profile_cudagraph_memory()` with a placeholder 0 in every wheel from 0.21.0 to 0.28.0 and measures it from 0.29.0;
it is the default runner (`VllmConfig.use_v2_model_runner`, vllm/config/vllm.py) for the architectures
DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES lists from 0.22.0, and from 0.25.0 also for every generate model that is
neither MoE nor hybrid nor attention-free, unless VLLM_USE_V2_MODEL_RUNNER says otherwise (opt-in only up to
0.21.x). Read in the 0.21.0, 0.22.0, 0.23.0, 0.24.0, 0.25.0, 0.25.1, 0.26.0, 0.27.0, 0.28.0 and 0.29.0 wheels.
Features V2 does not support send a run back to V1 (speculative methods, pipeline parallelism with an external
launcher, sequence or prefill-context parallelism): with speculative decoding the runner is left unsettled."""

from __future__ import annotations

from typing import Any

from packaging.version import Version

ESTIMATE_ENV = "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS"
RUNNER_ENV = "VLLM_USE_V2_MODEL_RUNNER"
V2_DEFAULT_FROM, V2_DENSE_DEFAULT_FROM, V2_PROFILES_FROM = Version("0.22.0"), Version("0.25.0"), Version("0.29.0")
# DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES by the first release that ships each set
V2_ARCHITECTURES = (
    (Version("0.28.0"), frozenset({"DeepseekV2ForCausalLM", "DeepseekV4ForCausalLM", "GraniteMoeForCausalLM",
                                   "InklingForCausalLM", "InklingForConditionalGeneration",
                                   "KimiK3ForConditionalGeneration", "LongcatFlashNgramForCausalLM",
                                   "Qwen2MoeForCausalLM"})),
    (Version("0.27.0"), frozenset({"DeepseekV2ForCausalLM", "GraniteMoeForCausalLM", "InklingForCausalLM",
                                   "InklingForConditionalGeneration", "KimiK3ForConditionalGeneration",
                                   "LongcatFlashNgramForCausalLM", "Qwen2MoeForCausalLM"})),
    (Version("0.26.0"), frozenset({"DeepseekV2ForCausalLM", "GraniteMoeForCausalLM", "InklingForCausalLM",
                                   "InklingForConditionalGeneration", "LongcatFlashNgramForCausalLM",
                                   "Qwen2MoeForCausalLM"})),
    (Version("0.25.0"), frozenset({"DeepseekV2ForCausalLM", "Qwen2MoeForCausalLM", "GraniteMoeForCausalLM"})),
    (Version("0.24.0"), frozenset({"Qwen3ForCausalLM", "DeepseekV2ForCausalLM", "Qwen2MoeForCausalLM",
                                   "GraniteMoeForCausalLM", "LlamaForCausalLM", "MistralForCausalLM"})),
    (Version("0.23.0"), frozenset({"LlamaForCausalLM", "MistralForCausalLM", "Qwen3ForCausalLM"})),
    (Version("0.22.0"), frozenset({"Qwen3ForCausalLM"})),
)
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


def _env_bool(env: dict[str, str], name: str) -> bool | None:
    value = env.get(name, "").strip().lower()
    return True if value in _TRUE else False if value in _FALSE else None


def v2_default(release: Version, model: Any) -> bool:
    """Whether `use_v2_model_runner` picks V2 for this model when VLLM_USE_V2_MODEL_RUNNER is unset."""
    if release < V2_DEFAULT_FROM:
        return False
    listed = next((archs for first, archs in V2_ARCHITECTURES if release >= first), frozenset())
    if model.architecture in listed:
        return True
    hybrid = model.attention.linear_attention_layers > 0
    return release >= V2_DENSE_DEFAULT_FROM and model.moe is None and not hybrid


def model_runner(version: str, env: dict[str, str], model: Any | None, speculative: bool) -> str | None:
    """"v2" or "v1", None where the model or a speculative method leaves it open."""
    release = Version(version).release[:3]
    release_version = Version(".".join(str(n) for n in release))
    forced = _env_bool(env, RUNNER_ENV)
    if forced is not None:
        return "v2" if forced else "v1"
    if release_version < V2_DEFAULT_FROM:
        return "v1"
    if model is None or speculative:
        return None
    return "v2" if v2_default(release_version, model) else "v1"


def pool_reserved(version: str, estimate_default: str | None, env: dict[str, str], model: Any | None,
                  speculative: bool, enforce_eager: bool) -> bool | None:
    """Whether the KV budget leaves out the graph pool: None with CUDA graphs off (nothing to reserve) or where the
    runner is not settled; `estimate_default` is the release's default of the switch (None: no switch)."""
    if enforce_eager:
        return None
    if estimate_default is None:
        return False
    stated = _env_bool(env, ESTIMATE_ENV)
    if not (stated if stated is not None else estimate_default.strip() not in ("0", "")):
        return False
    release = Version(".".join(str(n) for n in Version(version).release[:3]))
    if release >= V2_PROFILES_FROM:
        return True
    runner = model_runner(version, env, model, speculative)
    return None if runner is None else runner == "v1"
