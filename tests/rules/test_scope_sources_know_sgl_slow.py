"""The SGLang facts SGL180 and SGL182 rest on, re-read from the real wheels (slow: downloads).

docs/rules/audit.toml cites them; when a release changes one, the rule's scope must move with it:
- SGL180: `ModelOptNvFp4FusedMoEMethod.create_moe_runner` builds no runner for `auto` in 0.5.10.post1, turns `auto`
  into FLASHINFER_TRTLLM on every GPU in 0.5.11-0.5.12.post1 and on capability >= 10 from 0.5.13; the SM12x hook
  that picks flashinfer_cutlass appears in 0.5.13 and tests the `--quantization` flag (`modelopt_fp4`) only;
- SGL182: the cutlass MoE runner calls `fp8_blockwise_scaled_grouped_mm` (0.5.12 on admit SM120 in Python), and
  the kernel wheel's `common_ops` has SM90/SM100 launchers for it only.
Run with `pytest -m slow tests/rules/test_scope_sources_know_sgl_slow.py` and SM120_DOCTOR_TEST_CACHE set.
"""

from __future__ import annotations

import re
import zipfile

import pytest

from tests.wheels import download_wheel

pytestmark = [pytest.mark.slow, pytest.mark.wheel]

MODELOPT = "sglang/srt/layers/quantization/modelopt_quant.py"
HOOK = re.compile(r"Use flashinfer_cutlass as MoE runner backend on SM1[12]0(?:/SM120)? for")


def member(version: str, name: str) -> str:
    with zipfile.ZipFile(download_wheel("sglang", version)) as wheel:
        return wheel.read(name).decode("utf-8")


def args_sources(version: str) -> str:
    with zipfile.ZipFile(download_wheel("sglang", version)) as wheel:
        files = [n for n in wheel.namelist()
                 if n == "sglang/srt/server_args.py" or n.startswith("sglang/srt/arg_groups/")]
        return "\n".join(wheel.read(n).decode("utf-8") for n in files if n.endswith(".py"))


def nvfp4_moe_create_runner(version: str) -> str:
    source = member(version, MODELOPT)
    start = source.index("class ModelOptNvFp4FusedMoEMethod")
    body = source[source.index("def create_moe_runner", start):]
    return body[:body.index("\n    def ", 10)]


@pytest.mark.parametrize(("version", "auto_to_trtllm", "sm80_marlin", "sm12x_hook"), [
    ("0.5.10.post1", False, False, False),
    ("0.5.11", True, False, False),
    ("0.5.12.post1", True, False, False),
    ("0.5.13", True, True, True),
    ("0.5.23", True, True, True),
])
def test_sgl180_nvfp4_moe_default_runner(version, auto_to_trtllm, sm80_marlin, sm12x_hook):
    create = nvfp4_moe_create_runner(version)
    assert bool(re.search(r"is_auto\(\):.*?moe_runner_backend = MoeRunnerBackend\.FLASHINFER_TRTLLM", create,
                          re.S)) is auto_to_trtllm
    assert bool(re.search(r"\(8, 0\) <= get_device_capability\(\) < \(10, 0\)", create)) is sm80_marlin
    sources = args_sources(version)
    assert bool(HOOK.search(sources)) is sm12x_hook
    if sm12x_hook:
        hook = sources[:HOOK.search(sources).start()][-600:]
        assert 'view.quantization == "modelopt_fp4"' in hook or 'self.quantization == "modelopt_fp4"' in hook


@pytest.mark.parametrize("version", ["0.5.12", "0.5.23"])
def test_sgl182_cutlass_moe_reaches_the_grouped_gemm_and_admits_sm120(version):
    fp8 = member(version, "sglang/srt/layers/quantization/fp8.py")
    assert "cutlass_fp8 MoE requires SM90, SM100, or SM120 GPUs" in fp8
    assert "fp8_blockwise_scaled_grouped_mm(" in member(version, "sglang/srt/layers/moe/cutlass_moe.py")


def test_sgl182_kernel_has_sm90_and_sm100_grouped_gemm_launchers_only():
    with zipfile.ZipFile(download_wheel("sgl-kernel", "0.3.21")) as wheel:
        blob = wheel.read("sgl_kernel/sm100/common_ops.abi3.so")
    launchers = set(re.findall(rb"launch_sm(\d+)_fp8_blockwise_scaled_group_mm", blob))
    assert launchers == {b"90", b"100"}
    assert b"No implemented fp8_blockwise_scaled_grouped_mm for current compute capability" in blob
