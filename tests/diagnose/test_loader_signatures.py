"""The signatures of rules/loader.toml on the loader lines reports quote: vLLM's ModelOpt refusal with its list
(NVIDIA/dgx-spark-playbooks#77, vllm#37854), "Unknown quantization method" (NVIDIA/Model-Optimizer#261),
SGLang's "Invalid quantization method" (its source's format) and the --quantization mismatch (vllm#42181), and
what `log.quant` derives from the table for each: the release range that prints a list, the first release that
accepts the algo, the releases that register a method."""

from __future__ import annotations

from doctor.diagnose.quant_support import quant_log_view
from tests.diagnose.corpus import claimed, diagnose_text, rules_named

LIST_0151 = ("ValueError: ModelOpt currently only supports: ['FP8', 'FP8_PER_CHANNEL_PER_TOKEN', 'FP8_PB_WO', "
             "'NVFP4'] quantizations in vLLM. Please check the `hf_quant_config.json` file for your model's quant "
             "configuration.\n")
LIST_092 = ("ValueError: ModelOpt currently only supports: ['FP8', 'NVFP4'] quantizations in vLLM. Please check the "
            "`hf_quant_config.json` file for your model's quant configuration.\n")
UNKNOWN = ("Value error, Unknown quantization method: . Must be one of ['aqlm', 'awq', 'deepspeedfp', 'tpu_int8', "
           "'fp8', 'ptpc_fp8', 'fbgemm_fp8', 'modelopt', 'modelopt_fp4', 'marlin']\n")
UNKNOWN_BNB = "ValueError: Unknown quantization method: bitsandbytes. Must be one of ['awq', 'fp8', 'gptq']\n"
SGLANG_INVALID = ("ValueError: Invalid quantization method: modelopt_mixed. Available methods: ['fp8', 'mxfp8', "
                  "'modelopt', 'modelopt_fp4']\n")
MISMATCH = ("Value error, Quantization method specified in the model config (modelopt_fp4) does not match the "
            "quantization method specified in the `quantization` argument (modelopt).\n")


class Hit:
    def __init__(self, **groups: str) -> None:
        self.groups = groups



def test_the_modelopt_refusal_is_ckpt011s_and_names_the_release_range():
    assert claimed(LIST_0151)[:1] == ["CKPT011"]
    view = quant_log_view([Hit(log_modelopt_algos="['FP8', 'FP8_PER_CHANNEL_PER_TOKEN', 'FP8_PB_WO', 'NVFP4']")])
    assert view["quant"]["printed_by"] == "0.14.0-0.15.1"
    assert view["quant"]["added_later"] == "MXFP8 from 0.16.0, MIXED_PRECISION from 0.17.0, W4A16_NVFP4 from 0.21.0"


def test_the_first_releases_list_and_a_quoted_algo_name_the_first_release_that_accepts_it():
    view = quant_log_view([Hit(log_modelopt_algos="['FP8', 'NVFP4']", log_quant_algo="MIXED_PRECISION")])
    assert view["quant"]["printed_by"] == "0.9.2-0.13.0"
    assert "vllm>=0.17.0" in view["quant"]["fix"]
    view = quant_log_view([Hit(log_modelopt_algos="['FP8', 'NVFP4']", log_quant_algo="W4A8_AWQ")])
    assert "no vLLM release up to" in view["quant"]["fix"]


def test_a_quoted_algo_alone_is_not_claimed():
    """The algo signature needs vLLM's refusal beside it: a config dump alone is no error."""
    assert "CKPT011" not in claimed('  "quant_algo": "MIXED_PRECISION",\n')
    assert claimed(LIST_092 + '  "quant_algo": "MIXED_PRECISION",\n')[:1] == ["CKPT011"]


def test_unknown_quantization_method_is_ckpt013s_with_the_releases_that_register_it():
    assert claimed(UNKNOWN)[:1] == ["CKPT013"]
    assert claimed(UNKNOWN_BNB)[:1] == ["CKPT013"]
    text = quant_log_view([Hit(log_quant_method="bitsandbytes")])["quant"]["method_text"]
    assert "vLLM registers `bitsandbytes` in 0.9.2-0.27.1" in text
    assert "SGLang registers `bitsandbytes` in 0.5.8-0.5.23" in text
    assert claimed(SGLANG_INVALID)[:1] == ["CKPT013"]
    assert "no quant_method at all" in quant_log_view([Hit(log_quant_method="")])["quant"]["method_text"]


def test_the_quantization_argument_mismatch_is_ckpt015s():
    assert claimed(MISMATCH)[:1] == ["CKPT015"]


def test_other_quantization_lines_are_not_claimed():
    assert "CKPT013" not in claimed("WARNING: quantization method awq is not fully optimized yet\n")
    assert "CKPT011" not in claimed("ModelOpt NVFP4 checkpoint detected, using modelopt_fp4\n")
    assert "CKPT015" not in claimed("INFO: Quantization method: modelopt_fp4\n")


TOKENIZER = "ValueError: Tokenizer class TokenizersBackend does not exist or is not currently imported.\n"


def test_a_transformers_5_tokenizer_on_4x_is_ckpt016s_with_the_release_that_has_it():
    assert claimed(TOKENIZER)[:1] == ["CKPT016"]
    view = quant_log_view([Hit(log_tokenizer_class="TokenizersBackend")])["quant"]
    assert view["tokenizer_first"] == "5.0.0"
    assert "PreTrainedTokenizerFast" in view["tokenizer_fix"]
    assert "vLLM 0.19.1" in view["tokenizer_fix"]  # 0.19.0 still caps transformers below 5 (QwenPaw#3084)


def test_a_tokenizer_class_no_transformers_has_names_remote_code():
    view = quant_log_view([Hit(log_tokenizer_class="QWenTokenizer")])["quant"]
    assert view["tokenizer_known"] is False and "--trust-remote-code" in view["tokenizer_fix"]
    assert "PreTrainedTokenizerFast" not in view["tokenizer_fix"]


def test_a_gguf_architecture_transformers_cannot_read_is_ckpt018s():
    line = "ValueError: GGUF model with architecture qwen3vlmoe is not supported yet.\n"
    assert claimed(line)[:1] == ["CKPT018"]
    view = quant_log_view([Hit(log_gguf_arch="qwen3vlmoe")])["quant"]
    assert view["gguf_first"].startswith("none up to") and "llama-server b7324" in view["gguf_fix"]
    assert quant_log_view([Hit(log_gguf_arch="qwen3moe")])["quant"]["gguf_first"] == "4.55.0"  # read as qwen3_moe
    assert quant_log_view([Hit(log_gguf_arch="qwen2moe")])["quant"]["gguf_first"] == "4.50.0"
    assert "CKPT018" not in claimed("llama_model_load: error loading model: unknown model architecture: "
                                    "'qwen3vlmoe'\n")


def test_unsloths_bnb_line_names_the_releases_with_bitsandbytes():
    """unslothai/unsloth#482 (vLLM 0.4.0, an Unsloth 4-bit upload), the line verbatim."""
    line = ("ValueError: Unknown quantization method: bitsandbytes. Must be one of ['awq', 'gptq', 'squeezellm', "
            "'marlin'].\n")
    diagnosis = diagnose_text(line)
    assert rules_named(diagnosis)[:1] == ["CKPT013"]
    assert "0.9.2-0.27.1" in diagnosis.explanations[0].message


def test_vllms_deprecated_method_refusal_is_ckpt019s_with_the_flag():
    line = ("ValueError: ('The quantization method %s is deprecated and will be removed in future versions of vLLM. "
            "To bypass, set `--allow-deprecated-quantization`.', 'fbgemm_fp8')\n")
    diagnosis = diagnose_text(line)
    assert rules_named(diagnosis)[:1] == ["CKPT019"]
    assert any("--allow-deprecated-quantization" in str(f.details) for f in diagnosis.explanations[0].fixes)
    assert "CKPT019" not in claimed("WARNING The quantization method fbgemm_fp8 is deprecated and will be removed in "
                                    "future versions of vLLM.\n")
