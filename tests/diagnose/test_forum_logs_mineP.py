"""Log lines that forum threads and blog posts added by task mineP quote, each named by the rule that states its
cause; the same lines on a GPU outside the rule's scope are not claimed. The lines are the pages' own (ledger/
mineP.toml cites the pages)."""

from __future__ import annotations

import pytest

from tests.diagnose.corpus import diagnose_on, fix_texts
from tests.diagnose.corpus import rules_named as claimed

# https://forums.developer.nvidia.com/t/xid-62-xid-154-gsp-pmu-halt-crash-on-rtx-pro-6000-blackwell-during-llm-
# inference/364958 (RTX PRO 6000, driver 595.58.03, vLLM 0.17.1 TP=2): crash 2 as the thread quotes it
GSP_PMU_PRO6000 = (
    b"Mar 27 17:40:36 kernel: NVRM: Xid (PCI:0000:01:00): 62, 223b6a66 00002100 00000000 20662342 20662ba6 "
    b"20664272 2065f7ca 2063f48c\n"
    b"Mar 27 17:40:36 kernel: NVRM: GPU0 _kgspRpcGspEventPmuHalted: Received signal from GSP that PMU has halted.\n"
    b"Mar 27 17:40:36 kernel: NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 "
    b"(GPU Reset Required)\n"
    b"Mar 27 17:40:36 kernel: NVRM: Xid (PCI:0000:01:00): 45, pid=12542, name=VLLM::Worker, channel 0x00000002\n"
)
# https://forums.developer.nvidia.com/t/bug-xid-62-gsp-watchdog-timeout-on-rtx-5080-during-high-context-llm-
# inference/371272 (RTX 5080, driver 595.71.05, llama.cpp): the kernel trace as the thread quotes it
GSP_PMU_5080 = (
    b"NVRM: Xid (PCI:0000:01:00): 62, 323f0f30 0000c3d8 00000000 206dae68 206da022 206da190 206d85f6 206d8d86\n"
    b"NVRM: GPU0 _kgspRpcGspEventPmuHalted: Received signal from GSP that PMU has halted.\n"
    b"NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)\n"
)
# https://www.lyb.re/writing/2026-04-15-anton-08-nvfp4 (vLLM on a DGX Spark behind LiteLLM): vLLM's 400 answer
AUTO_TOOL_CHOICE = b'"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set\n'
# https://jishuzhan.net/article/2000064284244639746 (RTX 5060 Ti, Unsloth + vLLM, PyTorch 2.5.x): the warning
TORCH_NO_SM120 = (b"UserWarning: NVIDIA GeForce RTX 5060 Ti with CUDA capability sm_120 is not compatible with the "
                  b"current PyTorch installation.\n")
# https://skillmds.dev/skill/soulmachine-skills-deploy-kimi-k26-on-rtx-pro-6000-skill-md names the refusal
# (Kimi-K2.6 NVFP4 on 8x RTX PRO 6000, vLLM); the line is FlashInfer's raise with the version it read
B12X_CUDA12 = b"ValueError: b12x fused MoE requires CUDA 13 or later. Current CUDA version: 12.9.\n"


@pytest.mark.parametrize(("log", "profile", "rule", "fix"), [
    (GSP_PMU_PRO6000, "rtx-pro-6000", "DRV100", "reboot"),
    (GSP_PMU_5080, "rtx-5080", "DRV100", "reboot"),
    (AUTO_TOOL_CHOICE, "dgx-spark", "PARSE007", "--enable-auto-tool-choice"),
    (TORCH_NO_SM120, "rtx-5060-ti-16gb", "TORCH001", "cu12"),
    (B12X_CUDA12, "rtx-pro-6000", "FI292", "CUDA_HOME"),
    (B12X_CUDA12, "dgx-spark", "FI292", "--moe-backend"),
])
def test_the_quoted_line_is_named_first_with_its_fix(log, profile, rule, fix):
    diagnosis = diagnose_on(log, profile)
    assert claimed(diagnosis) and claimed(diagnosis)[0] == rule, claimed(diagnosis)
    assert any(fix.lower() in t.lower() for t in fix_texts(diagnosis)), fix_texts(diagnosis)


@pytest.mark.parametrize("profile", ["h100-sxm-x8", "b200-x8"])
def test_the_gsp_lines_on_hopper_or_datacenter_blackwell_are_not_drv100s(profile):
    assert "DRV100" not in claimed(diagnose_on(GSP_PMU_PRO6000, profile))


@pytest.mark.parametrize("profile", ["h100-sxm-x8", "b200-x8"])
def test_the_b12x_refusal_off_sm12x_is_not_vllm730s(profile):
    assert "FI292" not in claimed(diagnose_on(B12X_CUDA12, profile))


def test_a_cuda_13_version_in_the_line_is_not_vllm730s():
    """The pattern takes the 12.x FlashInfer printed; 13 passes its check and never prints the line."""
    line = b"ValueError: b12x fused MoE requires CUDA 13 or later. Current CUDA version: 13.0.\n"
    assert "FI292" not in claimed(diagnose_on(line, "rtx-pro-6000"))
