"""VLLM003's generic 'NvFp4 MoE backend ... does not support the' signature stands down where the backend declined
the model's activation (MOE020's forced --moe-backend); 0.15.0's regression line names the device."""

from tests.diagnose.corpus import claimed, profile_base

DEVICE = ("ValueError: NvFp4 MoE backend 'FLASHINFER_CUTLASS' does not support the deployment configuration since "
          "kernel does not support current device.")
ACTIVATION = ("ValueError: NvFp4 MoE backend 'FLASHINFER_CUTLASS' does not support the deployment configuration since "
              "kernel does not support MoEActivation.SWIGLUSTEP activation.")


def test_the_device_line_is_the_0150_regression():
    assert claimed(DEVICE, profile_base("rtx-pro-6000"))[0] == "VLLM003"


def test_an_activation_line_is_the_forced_backend_not_the_regression():
    rules = claimed(ACTIVATION, profile_base("dgx-spark"))
    assert rules[0] == "MOE020"
    assert "VLLM003" not in rules
