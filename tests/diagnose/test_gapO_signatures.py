"""The signatures task gapO added (rules/gapO.toml, DRV004, SGL184, TRT033) on the lines the reports quote, and
just outside them: another Xid, another op, a GPU that is not Blackwell, a log without the FP4 GEMM."""

from __future__ import annotations

from tests.diagnose.corpus import diagnose_text, profile_base, rules_named

XID43 = ("2026-04-07T10:11:08,080132-04:00 NVRM: Xid (PCI:0000:41:00): 43, pid=1049772, name=llama-server, "
         "channel 0x00000002\n")
SIGMOID = "CUDA error: misaligned address in ggml_cuda_op_unary<op_sigmoid>\n"
LSPCI = "01:00.0 VGA compatible controller: NVIDIA Corporation GB202GL [RTX PRO 6000 Blackwell Workstation Edition]\n"
NO_DEVICES = "No devices were found\n"
PHI4 = "ValueError: No processor registered for architecture: ['Phi4MMForCausalLM'].\n"
BLOG = "When I tried to run TensorRT-LLM's FP4 GEMM kernels on the DGX Spark, I got a cryptic kErrorInternal error.\n"


def test_xid_43_from_llama_server_on_b8685_is_lcpp310s():
    assert rules_named(diagnose_text(XID43, profile_base("rtx-5090", "llama.cpp==b8685")))[:1] == ["LCPP310"]


def test_xid_43_on_b8679_is_ruled_out_and_another_xid_is_not_claimed():
    assert "LCPP310" not in rules_named(diagnose_text(XID43, profile_base("rtx-5090", "llama.cpp==b8679")))
    other = XID43.replace("): 43,", "): 31,")
    assert "LCPP310" not in rules_named(diagnose_text(other, profile_base("rtx-5090", "llama.cpp==b8685")))


def test_the_sigmoid_misaligned_address_is_lcpp311s():
    base = profile_base("rtx-5090-laptop", "llama.cpp==b10950")
    assert rules_named(diagnose_text(SIGMOID, base))[:1] == ["LCPP311"]
    two_lines = ("CUDA error: misaligned address\n  current device: 0, in function ggml_cuda_op_unary<op_sigmoid> at "
                 "/src/ggml/src/ggml-cuda/unary.cu:200\n")
    assert rules_named(diagnose_text(two_lines, base))[:1] == ["LCPP311"]


def test_a_misaligned_address_in_another_op_is_not_lcpp311s():
    log = SIGMOID.replace("op_sigmoid", "op_silu")
    assert "LCPP311" not in rules_named(diagnose_text(log, profile_base("rtx-5090-laptop", "llama.cpp==b10950")))


def test_no_devices_beside_a_blackwell_lspci_line_is_drv130s():
    assert rules_named(diagnose_text(LSPCI + NO_DEVICES))[:1] == ["DRV130"]
    assert rules_named(diagnose_text(NO_DEVICES, profile_base("rtx-pro-6000")))[:1] == ["DRV130"]


def test_no_devices_on_an_older_gpu_is_not_claimed():
    ada = LSPCI.replace("GB202GL [RTX PRO 6000 Blackwell Workstation Edition]", "AD102 [GeForce RTX 4090]")
    assert "DRV130" not in rules_named(diagnose_text(ada + NO_DEVICES))
    assert "DRV130" not in rules_named(diagnose_text(NO_DEVICES, profile_base("h100-sxm-x8")))


def test_the_playbooks_processor_line_on_a_spark_is_sgl184s():
    assert rules_named(diagnose_text(PHI4, profile_base("dgx-spark", "sglang==0.5.3.post3")))[:1] == ["SGL184"]


def test_the_processor_line_on_another_gpu_is_not_sgl184s():
    assert "SGL184" not in rules_named(diagnose_text(PHI4, profile_base("rtx-5090", "sglang==0.5.3.post3")))


def test_kerrorinternal_beside_the_fp4_gemm_is_trt033s():
    assert rules_named(diagnose_text(BLOG, profile_base("dgx-spark", "tensorrt-llm==1.3.0rc2")))[:1] == ["TRT033"]


def test_kerrorinternal_alone_is_not_claimed():
    log = "I got a cryptic kErrorInternal error.\n"
    assert "TRT033" not in rules_named(diagnose_text(log, profile_base("dgx-spark", "tensorrt-llm==1.3.0rc2")))


PAGE_FAULT = ("[ 7460.483919] nvidia 0000:81:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x001c "
              "address=0xd0826240 flags=0x0020]\n")


def test_the_gpus_iommu_page_fault_under_llama_cpp_b8792_is_lcpp312s():
    base = profile_base("rtx-pro-6000", "llama.cpp==b8792")
    assert rules_named(diagnose_text(PAGE_FAULT, base))[:1] == ["LCPP312"]


def test_a_page_fault_without_llama_cpp_or_from_another_device_is_not_lcpp312s():
    assert "LCPP312" not in rules_named(diagnose_text(PAGE_FAULT, profile_base("rtx-pro-6000", "vllm==0.20.0")))
    amdgpu = PAGE_FAULT.replace("nvidia 0000:81:00.0", "amdgpu 0000:03:00.0")
    assert "LCPP312" not in rules_named(diagnose_text(amdgpu, profile_base("rtx-pro-6000", "llama.cpp==b8792")))
