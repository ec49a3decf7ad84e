"""The signatures task sweepG added (rules/sweepG.toml's DRV100) on the kernel-log lines the reports quote, and the
lines next to them that must stay another rule's or unclaimed."""

from __future__ import annotations

from tests.diagnose.corpus import diagnose_text, fix_texts, profile_base, rules_named

# NVIDIA/open-gpu-kernel-modules#1200 (RTX 5080, 595.71.05)
HEARTBEAT = (b"NVRM: _kgspRpcRecvPoll: GSP RM heartbeat timed out\n"
             b"NVRM: _kgspRpcRecvPoll: LibOS heartbeat timed out\n")
XID_154_RESET = (b"NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 "
                 b"(GPU Reset Required)\n")
# #1111, a comment's RTX PRO 6000 under vLLM
XID_119 = (b"[ 388.565288] NVRM: Xid (PCI:0000:01:00): 119, pid=6211, name=nvidia-smi, Timeout after 45s of "
           b"waiting for RPC response from GPU0 GSP! Expected function 103 (GSP_RM_ALLOC) sequence 15421 (0x0 0x78).\n")
# what follows Xid 79 (DRV030's line): a node reboot, not this rule's GPU reset
XID_79 = b"NVRM: Xid (PCI:0000:06:00): 79, GPU has fallen off the bus.\n"
XID_154_REBOOT = (b"NVRM: Xid (PCI:0000:06:00): 154, GPU recovery action changed from 0x0 (None) to 0x2 "
                  b"(Node Reboot Required)\n")


def claimed(log: bytes, profile: str | None = None) -> list[str]:
    return rules_named(diagnose_text(log, profile_base(profile) if profile else None))


def test_gsp_timeouts_are_drv100_on_sm12x():
    for line in (HEARTBEAT, XID_154_RESET, XID_119):
        assert claimed(line)[0] == "DRV100"
        assert claimed(line, "rtx-5080")[0] == "DRV100"
        assert claimed(line, "rtx-pro-6000")[0] == "DRV100"
    assert any("nvidia-smi -pl" in t for t in fix_texts(diagnose_text(HEARTBEAT, profile_base("rtx-5080"))))


def test_gsp_timeouts_on_other_gpus_are_not_drv100():
    for other in ("h100-sxm-x8", "b200-x8"):
        assert "DRV100" not in claimed(HEARTBEAT, other)


def test_xid_79_and_its_node_reboot_stay_drv030s():
    named = claimed(XID_79 + XID_154_REBOOT, "rtx-5090")
    assert named[0] == "DRV030" and "DRV100" not in named


# withcatai/node-llama-cpp#580 (Windows, WDDM): the CU_CHECK line ggml-cuda prints when the VMM reserve fails
VMM_RESERVE = (b"CUDA error: out of memory\n"
               b"  current device: 0, in function alloc at D:\\a\\ggml\\src\\ggml-cuda\\ggml-cuda.cu:476\n"
               b"  cuMemAddressReserve(&pool_addr, CUDA_POOL_VMM_MAX_SIZE, 0, 0, 0)\n")
# PR #610 (WSL2, RTX 5090): the same abort as the PR words it
VMM_RESERVE_SHORT = b"CUDA error: out of memory\ncuMemAddressReserve failure\n"
# a plain weight allocation that does not fit: another rule's (or none)
WEIGHTS_OOM = (b"ggml_backend_cuda_buffer_type_alloc_buffer: allocating 30000.00 MiB on device 0: cudaMalloc failed: "
               b"out of memory\n")


def test_vmm_reserve_failure_is_wsl050_on_sm12x_only():
    for log in (VMM_RESERVE, VMM_RESERVE_SHORT):
        assert claimed(log, "rtx-5090")[0] == "WSL050"
        assert "WSL050" not in claimed(log, "h100-sxm-x8")
    diagnosis = diagnose_text(VMM_RESERVE_SHORT, profile_base("rtx-5090"))
    assert any("GGML_CUDA_NO_VMM=ON" in t for t in fix_texts(diagnosis))


def test_a_weight_allocation_oom_is_not_wsl050():
    assert "WSL050" not in claimed(WEIGHTS_OOM, "rtx-5090")
