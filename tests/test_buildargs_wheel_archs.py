"""Arch lists of source builds and what the version string / audited wheel data say about a package."""

from __future__ import annotations

from doctor.buildargs import build_view, parse_arch_list
from doctor.wheel_archs import audited_wheels, version_facts


def test_torch_style_list_with_ptx_and_suffixes():
    archs, unknown, native = parse_arch_list("TORCH_CUDA_ARCH_LIST", "8.0;9.0+PTX 12.0a bogus", (12, 0))
    assert [a.token for a in archs] == ["sm_80", "sm_90", "compute_90", "sm_120a"]
    assert unknown == ["bogus"] and not native


def test_cmake_style_real_virtual_and_native():
    archs, _, native = parse_arch_list("CMAKE_CUDA_ARCHITECTURES", "86-real;120a-virtual;native", (12, 1))
    assert [a.token for a in archs] == ["sm_86", "compute_120a", "sm_121"] and native


def test_nvcc_style_makefile_arch():
    archs, unknown, _ = parse_arch_list("CUDA_ARCH", "sm_120 compute_90 sm_121a 120", (12, 0))
    assert [a.token for a in archs] == ["sm_120", "compute_120", "compute_90", "sm_121a", "compute_121a"]
    assert unknown == ["120"]
    plain = build_view({"CUDA_ARCH": "sm_120"}, (12, 0))["lists"][0]
    assert plain["plain_sm12x"] and plain["suggested"] == "sm_120a"
    assert not build_view({"CUDA_ARCH": "sm_120a"}, (12, 0))["lists"][0]["plain_sm12x"]


def test_view_says_whether_a_list_runs_and_what_to_add():
    view = build_view({"CMAKE_CUDA_ARCHITECTURES": "80-real;120a-real", "UNRELATED": "x"}, (12, 1))
    (entry,) = view["lists"]
    assert entry["runs_here"] is False  # sm_120a is exact-arch: not on GB10; no PTX to JIT
    assert entry["suggested"] == "80-real;120a-real;121a-real"
    assert build_view({"CMAKE_CUDA_ARCHITECTURES": "80;120a-real"}, (12, 1))["lists"][0]["runs_here"]  # 80 = +PTX
    plain = build_view({"TORCH_CUDA_ARCH_LIST": "9.0;12.0"}, (12, 0))["lists"][0]
    assert plain["plain_sm12x"] and plain["runs_here"] and plain["suggested"] == "9.0;12.0a"
    # a list that already holds the target keeps it once (a 12.1a-only build gave "12.1a;12.1a")
    assert build_view({"TORCH_CUDA_ARCH_LIST": "12.1a"}, (12, 1))["lists"][0]["suggested"] == "12.1a"


def test_local_version_names_the_build():
    assert version_facts("torch", "2.9.1+cpu", (12, 1))["cuda_build"] is False
    assert version_facts("torch", "2.7.0+cu126", (12, 0))["cuda_version"] == "12.6"


def test_audited_wheels_fill_what_a_what_if_leaves_unknown():
    assert audited_wheels(), "doctor/data/wheel_archs.json is missing"
    pypi_270 = version_facts("torch", "2.7.0", (12, 0))
    assert pypi_270["cuda_version"] == "12.6" and "sm_120" not in pypi_270["arch_list"]
    assert version_facts("torch", "2.9.1", (12, 1))["cuda_build"] is False  # PyPI aarch64 wheel is CPU-only
    assert version_facts("sgl-kernel", "0.3.21", (12, 1))["wheel_runs_here"] is False  # sm_120a only


def test_a_build_known_to_differ_is_not_replaced_by_the_pypi_wheel():
    assert "arch_list" not in version_facts("torch", "2.7.0", (12, 0), {"cuda_version": "12.8"})


def test_vllm_rule_boundary_is_the_audited_wheels():
    """VLLM001's range (<0.9.2) is where the released `vllm/_C` carries no sm_120 code, wheel by wheel."""
    from packaging.version import Version

    from doctor.pipeline.rules import load_rules

    (condition,) = [c for c in next(r for r in load_rules() if r.id == "VLLM001").when
                    if c.get("fact") == "lib.vllm.version"]
    boundary = Version(condition["version"].removeprefix("<"))
    vllm = [w for w in audited_wheels() if w["package"] == "vllm" and w["platform"] == "x86_64"]  # 12.0's wheels
    assert len(vllm) >= 20
    for wheel in vllm:
        facts = version_facts("vllm", wheel["version"], (12, 0))
        assert facts["arch_source"].startswith(wheel["wheel"])
        has_sm120 = "sm_120" in facts["arch_list"]
        assert has_sm120 == (Version(wheel["version"]) >= boundary), wheel["version"]


def test_a_platform_independent_wheel_serves_every_platform():
    on_spark = version_facts("flashinfer-cubin", "0.6.11", (12, 1))  # GB10 hosts are aarch64
    assert on_spark["arch_source"].startswith("flashinfer_cubin-0.6.11-py3-none-any.whl")
    assert on_spark["wheel_runs_here"] is False and "sm_100a" in on_spark["arch_list"]
    assert "arch_source" not in version_facts("sgl-kernel", "0.3.14", (12, 1))  # audited for x86_64 only
