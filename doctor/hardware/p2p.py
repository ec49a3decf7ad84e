"""Peer-to-peer between GeForce cards, which NVIDIA's own kernel modules never allow: GeForce boards (the RTX 5090
included) answer P2P "not supported" (NCCL maintainers, nvidia/nccl-tests#287). The patched open modules
(tinygrad/open-gpu-kernel-modules, aikitoria/open-gpu-kernel-modules) force PCIe BAR1 P2P on them; the signs a
machine shows without root are NVML answering P2P OK between two GeForce cards, and the module's P2P registry
switches (`NVreg_RegistryDwords="ForceP2P=17;RMForceP2PType=1;...;RMForceStaticBar1=1"`, the configuration
aikitoria/open-gpu-kernel-modules#21 and #25 report). Newer aikitoria branches need no switches, so NVML's
answer is the sign that does not depend on how the module was configured."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from doctor.topology import Gpu, Link

FORCING_DWORDS = ("ForceP2P", "RMForceP2PType", "RMPcieP2PType", "PeerMappingOverride", "RMForceStaticBar1")


class _Gpu(Gpu, Protocol):
    @property
    def name(self) -> str: ...


def is_geforce(name: str) -> bool:
    return "geforce" in name.lower()


def forcing_dwords(dwords: Sequence[str]) -> tuple[str, ...]:
    """The registry entries among `dwords` that switch P2P on or change how peers are mapped."""
    return tuple(d for d in dwords if d.partition("=")[0].strip() in FORCING_DWORDS)


def forced_p2p_signs(gpus: Sequence[_Gpu], links: Sequence[Link], dwords: Sequence[str]) -> list[str]:
    """Why this machine's GeForce cards are taken to run with forced P2P (empty: no sign, or no GeForce pair)."""
    geforce = {g.index for g in gpus if is_geforce(g.name)}
    if len(geforce) < 2:
        return []
    between = [link for link in links if link.a in geforce and link.b in geforce and not link.kind.startswith("NV")]
    if any(link.p2p_read is False or link.p2p_write is False for link in between):
        return []  # NVML's own answer wins: a stock module given the registry switches still says no
    pairs = [f"{link.a}-{link.b}" for link in between if link.p2p_read and link.p2p_write]
    signs = []
    if pairs:
        signs.append(f"NVML reports PCIe P2P read and write OK between GeForce GPUs {', '.join(pairs)}")
    switches = forcing_dwords(dwords)
    if switches:
        signs.append(f"the nvidia module runs with NVreg_RegistryDwords {';'.join(switches)}")
    return signs
