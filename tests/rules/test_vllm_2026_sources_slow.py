"""The vLLM facts rules/vllm_2026.toml rests on, re-read from the releases on PyPI (slow: downloads).

- VLLM070: which vLLM wheels bundle a DeepGEMM with SM120 sources, and that 0.27.x still sends SM12x to it;
- VLLM071: the FlashInfer MoE backend default and gates of the 0.11/0.12 releases (their sdists).
docs/rules/AUDIT.md cites these; when a release changes one of them the scope must move with it.
Run with `pytest -m slow tests/rules/test_vllm_2026_sources_slow.py` and SM120_DOCTOR_TEST_CACHE set.
"""

from __future__ import annotations

import re
import tarfile
import urllib.parse
import urllib.request
import zipfile

import pytest

from tests.wheels import cache_root, download_wheel

pytestmark = [pytest.mark.slow, pytest.mark.wheel]

DEEP_GEMM_IMPLS = re.compile(r"vllm/third_party/deep_gemm/include/deep_gemm/impls/(sm\d+)_")


def wheel_member(version: str, member: str) -> str:
    with zipfile.ZipFile(download_wheel("vllm", version)) as wheel:
        return wheel.read(member).decode("utf-8")


def sdist_member(version: str, suffix: str) -> str:
    """One file of vLLM's sdist (its URL from PyPI's simple index), downloaded once into the cache."""
    dest = cache_root() / "downloads" / f"vllm-{version}-sdist"
    if not sorted(dest.glob("*.tar.gz")):
        index_url = "https://pypi.org/simple/vllm/"
        try:
            with urllib.request.urlopen(index_url, timeout=60) as answer:
                index = answer.read().decode()
            name = f"vllm-{version}.tar.gz"
            href = next(h.split("#")[0] for h in re.findall(r'href="([^"]+)"', index)
                        if h.split("#")[0].endswith("/" + name))
            dest.mkdir(parents=True, exist_ok=True)
            partial = dest / (name + ".part")
            urllib.request.urlretrieve(urllib.parse.urljoin(index_url, href), partial)
            partial.rename(dest / name)
        except (OSError, StopIteration) as exc:
            pytest.skip(f"cannot download the vllm {version} sdist from PyPI: {exc}")
    with tarfile.open(sorted(dest.glob("*.tar.gz"))[0]) as archive:
        member = next(m for m in archive.getmembers() if m.name.endswith(suffix))
        return archive.extractfile(member).read().decode()  # type: ignore[union-attr]


@pytest.mark.parametrize(("version", "has_sm120"), [("0.26.0", True), ("0.27.0", False), ("0.27.1", False),
                                                     ("0.28.0", True)])
def test_bundled_deep_gemm_sm120_sources(version, has_sm120):
    with zipfile.ZipFile(download_wheel("vllm", version)) as wheel:
        archs = {m.group(1) for name in wheel.namelist() if (m := DEEP_GEMM_IMPLS.match(name))}
    assert {"sm90", "sm100"} <= archs
    assert ("sm120" in archs) is has_sm120


@pytest.mark.parametrize("version", ["0.27.0", "0.27.1"])
def test_vllm_027_sends_sm12x_block_fp8_linears_to_deep_gemm(version):
    cuda = wheel_member(version, "vllm/platforms/cuda.py")
    support = cuda[cuda.index("def support_deep_gemm"):][:400]
    assert "is_device_capability_family(120)" in support
    kernel = wheel_member(version, "vllm/model_executor/kernels/linear/scaled_mm/deep_gemm.py")
    assert "should_auto_disable_deep_gemm(model_type)" in kernel
    utils = wheel_member(version, "vllm/utils/deep_gemm.py")
    assert '"qwen3_5_text",' in utils and '"qwen3_5_moe_text",' in utils
    assert '"VLLM_USE_DEEP_GEMM": lambda: bool(int(os.getenv("VLLM_USE_DEEP_GEMM", "1")))' in wheel_member(
        version, "vllm/envs.py")


@pytest.mark.parametrize(("version", "default"), [("0.11.0", "throughput"), ("0.11.1", "latency"),
                                                  ("0.11.2", "latency"), ("0.12.0", "latency")])
def test_flashinfer_moe_backend_default(version, default):
    envs = sdist_member(version, "/vllm/envs.py")
    entry = envs[envs.index('"VLLM_FLASHINFER_MOE_BACKEND":'):][:200]
    assert re.search(rf'"VLLM_FLASHINFER_MOE_BACKEND",\s*"{default}"', entry)


@pytest.mark.parametrize(("version", "sm12x_admitted", "latency_falls_back_off_sm100"),
                         [("0.11.0", False, False), ("0.11.1", True, False), ("0.11.2", True, False),
                          ("0.12.0", True, True)])
def test_flashinfer_fp4_moe_gates(version, sm12x_admitted, latency_falls_back_off_sm100):
    fp4 = sdist_member(version, "/vllm/model_executor/layers/quantization/utils/flashinfer_fp4_moe.py")
    gate = fp4[fp4.index("def is_flashinfer_fp4_cutlass_moe_available"):][:400]
    assert ("has_device_capability(100)" in gate) is sm12x_admitted
    utils = sdist_member(version, "/vllm/model_executor/layers/quantization/utils/flashinfer_utils.py")
    backend = utils[utils.index("def get_flashinfer_moe_backend"):][:1200]
    assert ("using CUTLASS backend instead" in backend) is latency_falls_back_off_sm100
