"""FI070's signature (rules/wrong_output.toml): torch.multinomial's NaN error, claimed only beside SGLang's logged
ServerArgs line (`logger.info(f"{server_args=}")`, sglang/srt/entrypoints/engine.py) of an NVFP4 model on FlashInfer's
CUTLASS FP4 GEMM. The error line is torch's text as PR 20047 quotes it; the ServerArgs line is the dataclass repr's
format (fields in declaration order: model_path, ..., quantization, ..., fp4_gemm_runner_backend)."""

from __future__ import annotations

from tests.diagnose.corpus import claimed

NAN = ("RuntimeError: probability tensor contains either `inf`, `nan` or element < 0\n")
ARGS = ("[2026-03-05 10:12:01] server_args=ServerArgs(model_path='{model}', tokenizer_path='{model}', "
        "quantization={quant}, tp_size=8, attention_backend='flashinfer', fp4_gemm_runner_backend='{backend}', "
        "moe_runner_backend='auto')\n")
FRAME = ('  File "/usr/local/lib/python3.12/dist-packages/sglang/srt/layers/sampler.py", line 272, in forward\n'
         "    batch_next_token_ids = torch.multinomial(probs, num_samples=1).view(-1)\n")


def args(model="nvidia/Qwen3.5-397B-A17B-NVFP4", quant="None", backend="flashinfer_cutlass"):
    return ARGS.format(model=model, quant=quant, backend=backend)



def test_the_nan_beside_an_nvfp4_model_on_flashinfer_cutlass_is_fi070s():
    assert "FI070" in claimed(args() + FRAME + NAN)
    assert "FI070" in claimed(args(model="nvidia/Kimi-K2.5-NVFP4", quant="'modelopt_fp4'") + FRAME + NAN)


def test_a_bundled_bf16_model_contradicts_it_even_with_modelopt_fp4_stated():
    assert "FI070" not in claimed(args(model="zai-org/GLM-4.7", quant="'modelopt_fp4'") + FRAME + NAN)


def test_not_beside_another_fp4_backend_or_a_non_fp4_model():
    assert "FI070" not in claimed(args(backend="flashinfer_cudnn") + FRAME + NAN)
    assert "FI070" not in claimed(args(backend="auto") + FRAME + NAN)
    assert "FI070" not in claimed(args(model="Qwen/Qwen3-235B-A22B-FP8", quant="'fp8'") + FRAME + NAN)


def test_not_without_the_server_args_line_or_on_a_datacenter_gpu():
    assert "FI070" not in claimed(FRAME + NAN)
    b200 = "  Device 0: NVIDIA B200, compute capability 10.0\n"
    assert "FI070" not in claimed(b200 + args() + FRAME + NAN)


def test_sglangs_own_nan_detection_warning_is_claimed_the_same_way():
    warning = "[2026-03-05 10:14:07 TP0] Detected errors during sampling! NaN in the logits.\n"
    assert "FI070" in claimed(args() + warning)
    assert "FI070" not in claimed(args(backend="flashinfer_cudnn") + warning)
