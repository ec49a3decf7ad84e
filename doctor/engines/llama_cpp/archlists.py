"""What a llama.cpp build was compiled for when no library can be read: the `CUDA : ARCHS = ...` list of its own
log (`system_info`), and the official release assets (`llama-b9835-bin-win-cuda-12.4-x64.zip`), whose CUDA
build passes no arch list and so gets ggml-cuda's default for the asset's toolkit."""

from __future__ import annotations

import re
from dataclasses import dataclass

# The release workflow (.github/workflows/release.yml @ 002efcd4, jobs windows-cuda and ubuntu-cuda) configures
# ggml-cuda with -DGGML_NATIVE=OFF and no CMAKE_CUDA_ARCHITECTURES, so each CUDA asset carries the default list of
# ggml/src/ggml-cuda/CMakeLists.txt (@ 00a2d609): below CUDA 13 50/61/70-virtual; always 75/80-virtual and
# 86-real; from 11.8 89-real and 90-virtual; from 12.8 120a-real; from 12.9 121a-real.
_DEFAULT_LIST = (
    ((0, 0), (13, 0), ("compute_50", "compute_61", "compute_70")),
    ((0, 0), None, ("compute_75", "compute_80", "sm_86")),
    ((11, 8), None, ("sm_89", "compute_90")),
    ((12, 8), None, ("sm_120a",)),
    ((12, 9), None, ("sm_121a",)),
)
_ASSET = re.compile(r"(?:cudart-)?(?:llama-)?b(?P<build>\d{3,6})(?:-bin)?-(?P<os>win|ubuntu)-cuda-"
                    r"(?P<cuda>\d{2}\.\d)(?:-(?P<arch>x64|arm64))?(?:\.zip|\.tar\.gz)?", re.IGNORECASE)
# __CUDA_ARCH_LIST__ (what `CUDA : ARCHS` prints) holds one __CUDA_ARCH__ value per compiled arch, virtual or real:
# 890 is sm_89/compute_89, 1200 is sm_120 or sm_120a (ggml-cuda rewrites a plain 12X entry to 12Xa).
FIRST_SM12X = 1200


@dataclass(frozen=True)
class ReleaseAsset:
    """One official llama.cpp CUDA release asset, as its file name states it."""

    build: str
    os: str
    toolkit: str
    cpu: str

    @property
    def name(self) -> str:
        extension = "zip" if self.os == "win" else "tar.gz"
        return f"llama-b{self.build}-bin-{self.os}-cuda-{self.toolkit}-{self.cpu}.{extension}"

    @property
    def library(self) -> str:
        return f"{'ggml-cuda.dll' if self.os == 'win' else 'libggml-cuda.so'} ({self.name})"


def parse_asset(text: str) -> ReleaseAsset | None:
    """`llama-b9835-bin-win-cuda-12.4-x64.zip`, `b9835-win-cuda-12.4` → the asset; anything else → None."""
    match = _ASSET.fullmatch(text.strip())
    if match is None:
        return None
    return ReleaseAsset(match["build"], match["os"].lower(), match["cuda"], (match["arch"] or "x64").lower())


def default_archs(toolkit: str) -> list[str]:
    """The SASS (`sm_`) and PTX (`compute_`) targets ggml-cuda's default arch list gives a build by this CUDA."""
    version = _version(toolkit)
    return [arch for since, before, archs in _DEFAULT_LIST
            if version >= since and (before is None or version < before) for arch in archs]


def asset_details(asset: ReleaseAsset) -> dict[str, object]:
    """Library details the rules read for a release asset: as if the probe had read its ggml-cuda."""
    return {"release_asset": asset.name, "cuda_library": asset.library, "toolkit": asset.toolkit,
            "cuda_archs": default_archs(asset.toolkit),
            "source": f"the release asset's name (CUDA {asset.toolkit}: ggml-cuda's default arch list)"}


def logged_arch_verdict(logged: list[str], capability: tuple[int, int]) -> str | None:
    """What a build's logged `CUDA : ARCHS` list says for a 12.x GPU: "own" (an entry for its exact capability),
    "gb10-only-1200" (12.1 with 1200 and no 1210), "below-12x" (no 12.x entry at all), "other"; None when there is
    no list or the GPU is not 12.x."""
    values = sorted(int(v) for v in logged if str(v).isdigit())
    if not values or capability[0] != 12:
        return None
    own = capability[0] * 100 + capability[1] * 10
    if own in values:
        return "own"
    if max(values) < FIRST_SM12X:
        return "below-12x"
    if capability == (12, 1) and FIRST_SM12X in values:
        return "gb10-only-1200"
    return "other"


def _version(toolkit: str) -> tuple[int, int]:
    major, minor, *_ = [*(int(p) for p in re.findall(r"\d+", toolkit)[:2]), 0, 0]
    return major, minor
