"""The TMA gather/scatter ptxas lines (task scope13): SGLang's fix (MOE002) only where the log shows SGLang, vLLM
0.11's own rule (VLLM580) in vLLM's log, and the library's reading (TRI070/TRI071) where the log shows neither;
each rule's scope checked on both sides of its boundaries (capability, release, Triton)."""

from __future__ import annotations

from tests.diagnose.corpus import diagnose_text, fix_texts, profile_base, rules_named

# vllm#27542 (0.11.1rc4, RTX PRO 6000 Max-Q), sglang#8879, triton#8335: the line as printed
GATHER = (b"ptxas /tmp/tmppg3i0awm.ptx, line 818; error   : Feature '.tile::gather4 with destination state space as "
          b".shared::cluster' not supported on .target 'sm_120a'\n")
GATHER_121 = GATHER.replace(b"sm_120a", b"sm_121a")
# triton#11859 (RTX PRO 6000, Triton main built from source)
SCATTER = (b"ptxas-blackwell /tmp/tmp5gzj9h7b.ptx, line 4129; error   : Feature '.tile::scatter4' not supported on "
           b".target 'sm_120a'\n")
VLLM = b"INFO 10-27 09:00:00 [__init__.py:216] vLLM API server version %s\n"
SGLANG = (b"[2025-08-10 10:00:00 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
          b'  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2, in run_scheduler_process\n')


def vllm(version: str) -> bytes:
    return VLLM % version.encode()


def claimed(log: bytes, profile: str | None = None) -> list[str]:
    return rules_named(diagnose_text(log, profile_base(profile) if profile else None))


def test_a_bare_gather_line_is_tritons_not_sglangs():
    for line in (GATHER, GATHER_121):
        for profile in (None, "rtx-5090", "dgx-spark"):
            named = claimed(line, profile)
            assert named[0] == "TRI070" and "MOE002" not in named and "VLLM580" not in named
    texts = fix_texts(diagnose_text(GATHER))
    assert any("triton>=3.6.0" in t for t in texts)
    assert not any("sglang" in t.lower() or "vllm" in t.lower() for t in texts)


def test_a_bare_scatter_line_is_tritons():
    named = claimed(SCATTER, "rtx-pro-6000")
    assert named[0] == "TRI071" and "MOE002" not in named
    assert any("11862" in t for t in fix_texts(diagnose_text(SCATTER)))


def test_sglang_log_keeps_moe002():
    for line in (GATHER, SCATTER):
        assert claimed(SGLANG + line)[0] == "MOE002"
    assert any("sglang>=0.5.10" in t for t in fix_texts(diagnose_text(SGLANG + GATHER)))


def test_vllm_011_log_gets_vllms_fix():
    for version in ("0.11.0", "0.11.1rc4", "0.11.2"):
        named = claimed(vllm(version) + GATHER, "rtx-pro-6000-maxq")
        assert named[0] == "VLLM580" and "MOE002" not in named
    texts = fix_texts(diagnose_text(vllm("0.11.1rc4") + GATHER))
    assert any("vllm>=0.12.0" in t for t in texts) and any("VLLM_MXFP4_USE_MARLIN" in t for t in texts)
    assert not any("sglang" in t.lower() for t in texts)


def test_vllm580_release_boundaries():
    for version in ("0.10.2", "0.12.0"):  # before the first release read, and the release that stops
        diagnosis = diagnose_text(vllm(version) + GATHER)
        assert rules_named(diagnosis)[0] == "TRI070"
        assert "VLLM580" in [r.rule for r in diagnosis.ruled_out]


def test_vllm_scatter_line_is_not_vllm580():
    named = claimed(vllm("0.11.1") + SCATTER)
    assert named[0] == "TRI071" and "VLLM580" not in named and "MOE002" not in named


def test_tri070_triton_boundary():
    for version, ruled_out in (("3.5.1", False), ("3.6.0", True), ("3.7.0", True)):
        diagnosis = diagnose_text(b"[pip3] triton==%s\n" % version.encode() + GATHER)
        assert ("TRI070" in [r.rule for r in diagnosis.ruled_out]) == ruled_out, version
        assert ("TRI070" in rules_named(diagnosis)) != ruled_out, version


def test_capability_boundary():
    # sm_90a/sm_100a targets: ptxas accepts gather4 into cluster shared memory there (measured with 12.9.86);
    # a line naming them is no SM12x rule's, whatever profile is given (the line's target states the GPU)
    for target in (b"sm_90a", b"sm_100a"):
        for log in (GATHER, SCATTER, vllm("0.11.1") + GATHER, SGLANG + GATHER):
            named = claimed(log.replace(b"sm_120a", target), "rtx-5090")
            assert not {"TRI070", "TRI071", "VLLM580", "MOE002"} & set(named), (target, named)
    assert claimed(GATHER, "h100-sxm-x8")[0] == "TRI070"  # the line's sm_120a wins over the profile's GPU


def test_a_line_only_rules_upgrade_names_the_release_that_clears_it():
    """A what-if release keeps the log's signatures: VLLM370 (no version condition of its own) names its own
    0.32.0, not the next release, and VLLM580 the release that stops choosing triton_kernels on SM12x."""
    refusal = (b"ValueError: Mxfp4 MoE backend TRITON does not support the deployment configuration since kernel "
               b"does not support current device cuda.\n")
    texts = fix_texts(diagnose_text(vllm("0.21.0") + refusal, profile_base("rtx-5090")))
    assert "vllm>=0.32.0" in texts and "vllm>=0.22.0" not in texts
    texts = fix_texts(diagnose_text(vllm("0.11.1rc4") + GATHER))
    assert "vllm>=0.12.0" in texts and "vllm>=0.11.1" not in texts


# triton#9181 (GB10, PyTorch 2.11.0a0 with its own Triton): the plain `ptxas`, not `ptxas-blackwell`
SM121_PTXAS = b"ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'\n"


def test_tri002_names_the_triton_release_that_assembles_sm121a():
    texts = fix_texts(diagnose_text(SM121_PTXAS, profile_base("dgx-spark")))
    assert "triton>=3.6.0" in texts
    upgrade = next(t for t in texts if "Triton 3.6.0 release" in t)
    assert "ptxas-blackwell" in upgrade and "pytorch-triton" in upgrade


def test_tri002_triton_boundary_in_a_log():
    for version, explains in (("3.5.1", True), ("3.6.0", False)):
        diagnosis = diagnose_text(b"[pip3] triton==%s\n" % version.encode() + SM121_PTXAS, profile_base("dgx-spark"))
        assert ("TRI002" in rules_named(diagnosis)) == explains, version

