"""The signatures of rules/enc6.toml (the spent sixth held-out sample) on the lines its reports quote, and the
lines next to them that must stay unclaimed: another parameter, another kernel, another GPU."""

from __future__ import annotations

from tests.diagnose.corpus import diagnose_on, diagnose_text, fix_texts, profile_base, rules_named

# tonyd2wild/Qwen3.8-Flash-Next-NVFP4-DGX-Spark#3 (DGX Spark, vLLM nightly with the repository's overlay)
MTP_SCALE = b"AttributeError: Layer mtp.layers.48.mlp.experts has no parameter 'w2_weight_scale_inv'\n"
# vLLM 0.33.0's RoutedExperts raise string, whole
ROUTED = (b"AttributeError: Layer model.layers.3.mlp.experts has no parameter 'w13_weight_scale_2' for checkpoint "
          b"weight 'model.layers.3.mlp.experts.0.gate_proj.weight_scale_2'\n")
# huggingface.co/nerkyor/Qwen3.6-35B-A3B-NVFP4-modelopt (the card's note on a vLLM fork, RTX PRO 6000)
KEYERROR = b"KeyError: 'experts.w2_input_scale'\n"
# vLLM's expert loader skipping biases is not this miss; a non-expert KeyError is the model's mapping, not the quant
BIAS = b"AttributeError: Layer model.layers.0.mlp.experts has no parameter 'w2_bias'\n"
OTHER_KEY = b"KeyError: 'model.layers.0.self_attn.qkv_proj.weight_scale'\n"
# modular/modular#6488 (MAX nightly, Gemma-4-31B, GB10 and RTX PRO 6000)
MAX_TOPK = (b"CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES\n"
            b"topk_topp_sampling_from_prob_float32_int64_False_ddb3285f at topk_fi.mojo:1419\n")
BARE_OOR = b"CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES\n"
# vllm#57595 (the failure of vllm#57475, RTX 5090 Laptop, a vLLM nightly), as the PR quotes it
GRAPH_OOM = (b"    Tried to allocate 136.00 MiB. GPU 0 has a total capacity of 22.36 GiB of\n"
             b"    which 120.88 MiB is free. ... If this problem persists, try setting\n"
             b"    VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0\n")
# a plain torch OOM (no vLLM hint), and vLLM's start-up note on the estimate: neither is this failure
PLAIN_OOM = (b"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 136.00 MiB. GPU 0 has a total capacity "
             b"of 22.36 GiB of which 120.88 MiB is free.\n")
ESTIMATE_NOTE = (b"INFO 09-18 10:00:00 [gpu_worker.py:580] CUDA graph memory profiling is enabled "
                 b"(default since v0.21.0). To disable, set VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0.\n")


def test_expert_scale_misses_are_ckpt080():
    for log in (MTP_SCALE, ROUTED):
        diagnosis = diagnose_text(log)
        assert rules_named(diagnosis)[:1] == ["CKPT080"], log
        assert any("FP8_PB_WO" in t and "compressed-tensors" in t for t in fix_texts(diagnosis))
    assert rules_named(diagnose_on(MTP_SCALE, "dgx-spark"))[:1] == ["CKPT080"]


def test_other_missing_parameters_are_not_ckpt080():
    # the fork-side KeyError form is not upstream's: its MoE loaders skip a missing input/weight scale
    assert "CKPT080" not in rules_named(diagnose_text(KEYERROR))
    assert "CKPT080" not in rules_named(diagnose_text(BIAS))
    assert "CKPT080" not in rules_named(diagnose_text(OTHER_KEY))


def test_max_sampling_kernel_on_sm12x_is_krn070():
    for profile in ("dgx-spark", "rtx-pro-6000", "rtx-5090"):
        diagnosis = diagnose_on(MAX_TOPK, profile)
        assert rules_named(diagnosis)[:1] == ["KRN070"], profile
        assert any("temperature 0" in t for t in fix_texts(diagnosis))


def test_max_sampling_kernel_elsewhere_or_other_kernels_are_not_krn070():
    assert "KRN070" not in rules_named(diagnose_text(MAX_TOPK, profile_base("h100-sxm-x8")))
    assert "KRN070" not in rules_named(diagnose_text(MAX_TOPK, profile_base("b200-x8")))
    assert "KRN070" not in rules_named(diagnose_on(BARE_OOR, "dgx-spark"))


def test_graph_capture_oom_with_the_estimate_hint_is_oom100():
    for profile in (None, "rtx-5090-laptop", "dgx-spark"):
        diagnosis = diagnose_on(GRAPH_OOM, profile)
        assert rules_named(diagnosis)[:1] == ["OOM100"], profile
        assert any("0.97 booted" in t for t in fix_texts(diagnosis))


def test_other_oom_lines_are_not_oom100():
    assert "OOM100" not in rules_named(diagnose_text(PLAIN_OOM))
    assert "OOM100" not in rules_named(diagnose_text(ESTIMATE_NOTE))


# llama.cpp#19308 (build 7929, RTX PRO 6000, Llama-4-Scout's projector): the warm-up banner as quoted
CLIP_FA = (b"warmup: WARNING: flash attention not supported by CUDA0, memory usage will increase\n"
           b"warmup: op params: \n"
           b"warmup:    dst: type = f32, ne = [88 16 577 1], nb = [4 352 5632 3249664]\n")
# the text model's own FA decision is another line, not this rule's
TEXT_FA = b"llama_context: Flash Attention was auto, set to disabled\n"


def test_the_projector_fa_banner_is_lcpp210():
    for profile in (None, "rtx-pro-6000", "rtx-5060-ti-16gb"):
        diagnosis = diagnose_on(CLIP_FA, profile)
        assert rules_named(diagnosis)[:1] == ["LCPP210"], profile
        assert any("--flash-attn auto" in t for t in fix_texts(diagnosis))


def test_the_text_models_fa_line_is_not_lcpp210():
    assert "LCPP210" not in rules_named(diagnose_text(TEXT_FA))
