"""The signatures of rules/fixpr_vllm.toml on the lines the code prints. Where a report quotes the line it is used
verbatim (vllm#40023's FlashInfer overflow on a B300, vllm#56084's cooperative top-K failure on a Jetson Thor: both
other GPUs, so they must stay unclaimed without an SM12x GPU); the rest are the raise strings of the wheels the
rules read (marlin_utils.py 0.21.0, pynvml's NVMLError_NotSupported through startup_plan.py 0.32.0)."""

from __future__ import annotations

from pathlib import Path

from tests.diagnose.corpus import claimed
from tests.diagnose.corpus import profile_base as profile

LOGS = Path(__file__).parent / "logs"
OVERFLOW = (LOGS / "vllm-40023-b300-flashinfer-workspace.log").read_text(encoding="utf-8")
THOR_TOPK = (LOGS / "vllm-56084-thor-cooperative-topk.log").read_text(encoding="utf-8")
SM120_TOPK = ("RuntimeError: launch_cooperative_cluster, csrc/libtorch_stable/cooperative_topk.cu:48,\n"
              "cooperative_topk launch failed: invalid argument\n")
MARLIN = ('  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/quantization/utils/'
          'marlin_utils.py", line 483, in get_marlin_input_dtype\n'
          "ValueError: Marlin W4A8-FP8 only support SM89 or SM120 device (It is slower than Marlin W4A16 on other "
          "devices). You can consider using W4A8-INT8 instead(set VLLM_MARLIN_INPUT_DTYPE=int8).\n")
NVML = ('  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/startup_plan.py", line 66, in '
        'compute_plan_fingerprint\n'
        '    "device_total_memory": current_platform.get_device_total_memory(),\n'
        "pynvml.NVMLError_NotSupported: Not Supported\n")



def test_the_workspace_overflow_on_sm12x_is_vllm244s():
    assert claimed(OVERFLOW, profile("rtx-pro-6000", "vllm==0.25.0"))[:1] == ["VLLM244"]
    assert claimed(OVERFLOW, profile("rtx-5090", "vllm==0.20.0"))[:1] == ["VLLM244"]


def test_the_workspace_overflow_is_not_claimed_elsewhere():
    assert "VLLM244" not in claimed(OVERFLOW)  # vllm#40023 is a B300: no SM12x GPU in the log
    assert "VLLM244" not in claimed(OVERFLOW, profile("h100-sxm-x8", "vllm==0.25.0"))
    assert "VLLM244" not in claimed(OVERFLOW, profile("rtx-pro-6000", "vllm==0.26.0"))  # sized to the batch


def test_the_cooperative_topk_launch_on_sm120_is_vllm240s():
    assert claimed(SM120_TOPK, profile("rtx-pro-6000-x8", "vllm==0.24.0"))[:1] == ["VLLM240"]


def test_thors_cluster_misconfiguration_is_not_vllm240s():
    assert "VLLM240" not in claimed(THOR_TOPK)
    assert "VLLM240" not in claimed(THOR_TOPK, profile("rtx-pro-6000-x8", "vllm==0.24.0"))


def test_the_marlin_refusal_on_gb10_is_vllm241s():
    """The message's own advice `(set VLLM_MARLIN_INPUT_DTYPE=int8)` is not read as the environment."""
    assert claimed(MARLIN, profile("dgx-spark", "vllm==0.21.0"))[:1] == ["VLLM241"]


def test_the_marlin_refusal_elsewhere_is_not_vllm241s():
    assert "VLLM241" not in claimed(MARLIN, profile("h100-sxm-x8", "vllm==0.21.0"))  # by design on 9.0
    assert "VLLM241" not in claimed(MARLIN)  # no GB10 in the log


def test_the_startup_plan_nvml_error_on_gb10_is_vllm243s():
    assert claimed(NVML, profile("dgx-spark", "vllm==0.32.0"))[:1] == ["VLLM243"]
    assert "VLLM243" not in claimed(NVML, profile("dgx-spark", "vllm==0.33.0"))
