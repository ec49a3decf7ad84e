"""Known releases per package, oldest first, for "the lowest release that clears this finding"
(doctor/pipeline/upgrades.py).

Engines keep their own list in their folder (`Engine.releases`, every release where
`Engine.releases_complete`) and are found through the registry; the lists here are the libraries' releases
named in the research (not every patch release, so an answer for them reads "lowest known release").
"""

from __future__ import annotations

FLASHINFER = ("0.3.1", "0.4.0", "0.5.0", "0.5.3", "0.6.0", "0.6.4", "0.6.5", "0.6.6", "0.6.7", "0.6.8", "0.6.9",
              "0.6.11", "0.6.12", "0.6.14", "0.6.16", "0.6.18", "0.7.0", "0.7.2.post1")
FLASHINFER_CUBIN = ("0.6.11", "0.6.12", "0.6.13")
TRITON = ("3.3.0", "3.3.1", "3.4.0", "3.5.0", "3.5.1", "3.6.0", "3.7.0", "3.7.1", "3.8.0", "3.9.0")
TORCH = ("2.7.0", "2.8.0", "2.9.1", "2.10.0", "2.11.0", "2.14.0", "2.15.0")
# the SGL kernel-wheel releases audited in doctor/data/wheel_archs.json (tools/wheel_archs.py)
SGL_KERNEL = ("0.3.5", "0.3.9", "0.3.14", "0.3.16", "0.3.21", "0.4.4", "0.4.10")
NCCL = ("2.25.1", "2.26.2", "2.26.5", "2.27.3", "2.27.7", "2.28.3", "2.29.2", "2.30.4", "2.31.2", "2.32.3")
CUTLASS_DSL = ("4.2.0", "4.4.2", "4.5.0", "4.5.1", "4.5.2", "4.6.0", "4.7.0", "4.8.1")

LIBRARY_RELEASES: dict[str, tuple[str, ...]] = {
    "flashinfer-python": FLASHINFER, "flashinfer-cubin": FLASHINFER_CUBIN, "triton": TRITON, "torch": TORCH,
    "nvidia-cutlass-dsl": CUTLASS_DSL, "nccl": NCCL, "sgl-kernel": SGL_KERNEL,
}
