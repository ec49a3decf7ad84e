"""doctor/engines/sglang/pins.py: the torch each SGLang kernel release was built for, from the release pins."""

from doctor.engines.sglang.pins import kernel_built_for, kernel_torch_view
from tests.rules.builders import build, lib


def test_kernel_builds_agree_with_the_kernel_wheels_own_readme():
    # the kernel wheels' README: "Requires torch == 2.9.1" (sgl-kernel 0.3.21), "== 2.11.0" (sglang-kernel 0.4.4)
    assert kernel_built_for("0.3.21") == "2.9.1"
    assert kernel_built_for("0.4.4+cu130") == "2.11.0"
    assert kernel_built_for("0.0.1") is None


def test_a_kernel_implied_by_an_sglang_what_if_is_not_installed():
    view = kernel_torch_view(build("dgx-spark", None, ("sglang==0.5.14",), libs=(lib("torch", "2.12.1"),)))
    assert view["kernel_source"] in (None, "implied by the release's pin")


def test_mismatch_is_by_minor_release():
    same = kernel_torch_view(build("dgx-spark", libs=(lib("sgl-kernel", "0.3.21"), lib("torch", "2.9.0+cu128"))))
    other = kernel_torch_view(build("dgx-spark", libs=(lib("sgl-kernel", "0.3.21"), lib("torch", "2.10.0"))))
    assert same["kernel_torch_mismatch"] is False and other["kernel_torch_mismatch"] is True
