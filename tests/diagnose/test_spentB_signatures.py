"""The signatures task spentB added (rules/spentB.toml's VLLM460, UMA150's Xinference line) on the lines their
reports quote, and the lines next to them that must stay unclaimed: another NVML query, another GPU."""

from __future__ import annotations

from tests.diagnose.corpus import diagnose_text, fix_texts, profile_base, rules_named

# vllm#49554 / humming#48 (DGX Spark, vLLM 0.23.1 dev build, humming 0.1.10): the call site and exception they quote
HUMMING = (b'  File "/usr/local/lib/python3.12/dist-packages/humming/utils/device.py", line 33, '
           b"in calculate_gpu_bandwidth\n"
           b"    mem_clock_mhz = pynvml.nvmlDeviceGetMaxClockInfo(handle, pynvml.NVML_CLOCK_MEM)\n"
           b"pynvml.NVMLError_NotSupported: Not Supported\n")
# xorbitsai/inference#4882's title line (GB10), and #5069's line for another query (WSL2 utilization, PR #5070)
XINFERENCE = b"xinference.device_utils 13176 ERROR Fail to get GPU info: Not Supported\n"
XINFERENCE_UNKNOWN = b"ERROR xinference.device_utils pid:36 Fail to get GPU info: Unknown Error\n"


def test_humming_nvml_clock_on_gb10_is_vllm460():
    diagnosis = diagnose_text(HUMMING, profile_base("dgx-spark", "vllm==0.25.0"))
    assert "VLLM460" in rules_named(diagnosis)
    assert any("0.28.0" in t for t in fix_texts(diagnosis))


def test_humming_line_elsewhere_is_not_vllm460():
    assert "VLLM460" not in rules_named(diagnose_text(HUMMING, profile_base("rtx-pro-6000", "vllm==0.25.0")))
    assert "VLLM460" not in rules_named(diagnose_text(HUMMING, profile_base("dgx-spark", "vllm==0.28.0")))


def test_xinference_not_supported_on_gb10_is_uma150():
    diagnosis = diagnose_text(XINFERENCE, profile_base("dgx-spark"))
    assert rules_named(diagnosis)[:1] == ["UMA150"]
    assert any("nvmlDeviceGetMemoryInfo_v2" in t for t in fix_texts(diagnosis))


def test_xinference_lines_that_are_not_uma150():
    assert "UMA150" not in rules_named(diagnose_text(XINFERENCE, profile_base("rtx-5090")))
    assert "UMA150" not in rules_named(diagnose_text(XINFERENCE_UNKNOWN, profile_base("dgx-spark")))
