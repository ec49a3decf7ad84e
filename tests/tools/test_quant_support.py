"""tools/quant_support.py: the static readers on the shapes the real files have (vLLM's `QuantizationMethods`
Literal, `QUANT_ALGOS` as a list literal up to 0.28 and as `[*LINEAR_ALGOS, "MIXED_PRECISION"]` from 0.31, its
deprecated list and the mixed config's per-layer algos; SGLang's registry with the platform-conditioned updates;
transformers' tokenizer names and GGUF mapping), and the table's answers at the boundaries the rules rest on."""

from __future__ import annotations

from doctor.engines import quant_support
from tools import quant_support as tool

VLLM_INIT = '''
QuantizationMethods = Literal[
    "awq",
    "fp8",
    "modelopt",
    "modelopt_fp4",
]
QUANTIZATION_METHODS: list[str] = list(get_args(QuantizationMethods))

DEPRECATED_QUANTIZATION_METHODS = [
    "fbgemm_fp8",
    "fp_quant",
]
'''

MODELOPT_OLD = 'QUANT_ALGOS = ["FP8", "NVFP4"]\nKV_CACHE_QUANT_ALGOS = ["FP8"]\n'
MODELOPT_NEW = '''
_BLOCK_FP8_MOE_ALGOS = ("FP8_PB_WO", "FP8_BLOCK_SCALES")
LINEAR_ALGOS: dict[str, tuple[str, str]] = {
    "FP8": ("modelopt", "fp8_config"),
    "NVFP4": ("modelopt_fp4", "nvfp4_config"),
    "W4A16_NVFP4": ("modelopt_fp4", "w4a16_nvfp4_config"),
}
QUANT_ALGOS = [*LINEAR_ALGOS, "MIXED_PRECISION"]


class ModelOptMixedPrecisionConfig(ModelOptQuantConfigBase):
    """Mixed (e.g., FP8 for dense layers and NVFP4 for MoE experts)."""

    def get_quant_method(self, layer, prefix):
        quant_algo = self._resolve_quant_algo(prefix)
        if quant_algo == "FP8":
            return None
        if quant_algo in _BLOCK_FP8_MOE_ALGOS:
            return None
        if quant_algo == "MIXED_PRECISION":
            raise ValueError("nested")
'''

SGLANG_INIT = '''
BASE_QUANTIZATION_METHODS: Dict[str, Type[QuantizationConfig]] = {
    "fp8": Fp8Config,
    "modelopt": ModelOptFp8Config,
}
if is_cpu() or is_cuda() or _is_gfx95_supported or is_xpu():
    BASE_QUANTIZATION_METHODS.update({"mxfp4": Mxfp4Config})
if is_npu():
    BASE_QUANTIZATION_METHODS.update({"gptq": GPTQAscendConfig})
if is_cuda() and not is_hip():
    BASE_QUANTIZATION_METHODS.update({"w4afp8": W4AFp8Config})
if is_npu():
    BASE_QUANTIZATION_METHODS.update({"npu_only": X})
elif is_cuda():
    BASE_QUANTIZATION_METHODS.update({"from_elif": Y})
elif _is_mxfp_supported and is_hip():
    BASE_QUANTIZATION_METHODS.update({"quark": QuarkConfig})
VLLM_QUANTIZATION_METHODS = {
    "aqlm": AQLMConfig,
    "fp8": Fp8Config,
}
'''


def test_vllm_methods_deprecated_and_modelopt_algos_in_both_spellings():
    assert tool.vllm_quant_methods(VLLM_INIT) == {"awq", "fp8", "modelopt", "modelopt_fp4"}
    assert tool.vllm_deprecated_methods(VLLM_INIT) == {"fbgemm_fp8", "fp_quant"}
    assert tool.vllm_deprecated_methods('QUANTIZATION_METHODS = ["awq"]\n') == set()
    assert tool.vllm_modelopt_algos(MODELOPT_OLD) == {"FP8", "NVFP4"}
    assert tool.vllm_modelopt_algos(MODELOPT_NEW) == {"FP8", "NVFP4", "W4A16_NVFP4", "MIXED_PRECISION"}


def test_the_mixed_configs_layer_algos_follow_module_constants_and_skip_docstrings():
    assert tool.vllm_mixed_layer_algos(MODELOPT_NEW) == {"FP8", "FP8_PB_WO", "FP8_BLOCK_SCALES"}
    assert tool.vllm_mixed_layer_algos(MODELOPT_OLD) == set()


def test_sglang_registers_what_a_cuda_machine_runs():
    found = tool.sglang_quant_methods(SGLANG_INIT)
    assert found["quant_methods"] == {"fp8", "modelopt", "mxfp4", "w4afp8", "from_elif"}
    assert found["quant_methods_via_vllm"] == {"aqlm"}


def test_transformers_tokenizer_names_and_gguf_architectures():
    source = ('TOKENIZER_MAPPING_NAMES = OrderedDict([("glm", "TokenizersBackend" if is_tokenizers_available() '
              'else None), ("llama", ("LlamaTokenizer", "LlamaTokenizerFast"))])\nx = "not a Class"\n')
    assert tool.tokenizer_classes(source) == {"TokenizersBackend", "LlamaTokenizer", "LlamaTokenizerFast"}
    ggml = 'GGUF_CONFIG_MAPPING = {"general": {}, "llama": {}, "qwen2moe": {}, "tokenizer": {}}\n'
    assert tool.gguf_architectures(ggml) == {"llama", "qwen2moe"}


def test_the_table_at_the_rules_boundaries():
    assert quant_support.accepted_algos("vllm", "0.15.1") == ["FP8", "FP8_PB_WO", "FP8_PER_CHANNEL_PER_TOKEN",
                                                              "NVFP4"]
    assert "MIXED_PRECISION" not in quant_support.accepted_algos("vllm", "0.16.0")
    assert "MIXED_PRECISION" in quant_support.accepted_algos("vllm", "0.17.0")
    assert quant_support.span_text("vllm", quant_support.QUANT_METHODS, "bitsandbytes") == "0.9.2-0.27.1"
    assert quant_support.span_text("vllm", quant_support.QUANT_METHODS, "gguf") == "0.9.2-0.23.0"
    assert quant_support.first_release("sglang", quant_support.QUANT_METHODS, "modelopt_mixed") == "0.5.10"
    assert quant_support.first_release("vllm", quant_support.DEPRECATED, "fbgemm_fp8") == "0.14.0"
    assert quant_support.first_release("vllm", quant_support.MIXED_LAYER_ALGOS, "W4A16_NVFP4") == "0.22.0"
