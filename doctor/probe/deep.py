"""`--deep`: ask torch itself (imports torch, so never on the default path): the compiled arch list,
and per device the SM count and the real opt-in shared memory per block."""

from __future__ import annotations

import dataclasses

from doctor.pipeline.facts import Facts, Gpu


def deepen(facts: Facts) -> Facts:
    try:
        import torch
    except ImportError:
        return facts
    libraries = dict(facts.libraries)
    if "torch" in libraries:
        details = dict(libraries["torch"].details)
        details["arch_list"] = list(torch.cuda.get_arch_list()) if torch.cuda.is_available() else None
        details["arch_list_source"] = "torch.cuda.get_arch_list()"
        libraries["torch"] = dataclasses.replace(libraries["torch"], details=details)
    gpus = list(facts.gpus)
    if torch.cuda.is_available():
        for cuda_index in range(torch.cuda.device_count()):
            props = torch.cuda.get_device_properties(cuda_index)
            gpus = [_merge(g, cuda_index, props) for g in gpus]
    return facts.replace(libraries=libraries, gpus=tuple(gpus))


def _merge(gpu: Gpu, cuda_index: int, props: object) -> Gpu:
    uuid = str(getattr(props, "uuid", "") or "")
    same = (uuid and gpu.uuid and gpu.uuid.endswith(uuid)) or (not uuid and gpu.cuda_index == cuda_index)
    if not same:
        return gpu
    smem = getattr(props, "shared_memory_per_block_optin", None)
    return dataclasses.replace(
        gpu, cuda_index=cuda_index, sm_count=getattr(props, "multi_processor_count", gpu.sm_count),
        smem_per_block_optin=int(smem) if smem else gpu.smem_per_block_optin,
        smem_source="torch" if smem else gpu.smem_source)
