"""The cuDNN a vLLM run loads: the installed (or stated) nvidia-cudnn package when there is one, else the one
the run's torch pins. torch's PyPI wheel pins an exact `nvidia-cudnn-cuNN==X` (torch-nccl.json, read from its
METADATA by tools/vllm_facts/nccl.py); a torch the user states replaces the release's own pin, and a torch
built for another CUDA major than the PyPI wheel (`+cu128` against a cu13 pin) is not answered."""

from __future__ import annotations

import re
from typing import Any

from packaging.version import InvalidVersion, Version

from doctor.engines.spi import EngineRun
from doctor.engines.vllm import knowledge

_LOCAL_CUDA = re.compile(r"\+cu(\d+?)(\d)$")  # torch's +cu130 / +cu128 local build tag


def view(run: EngineRun) -> dict[str, Any] | None:
    """{version, source, torch}: where the version comes from, for the message; None when nothing says."""
    cudnn = run.facts.library("cudnn")
    # an installed cuDNN counts only beside an installed vLLM (a what-if vLLM brings its own torch and cuDNN)
    if cudnn is not None and (cudnn.what_if or not run.library.what_if):
        origin = "stated" if cudnn.what_if else "installed"
        return {"version": cudnn.version, "source": f"nvidia-cudnn {cudnn.version} ({origin})", "torch": None}
    torch, origin = _torch(run)
    if torch is None:
        return None
    pin = _pin(torch)
    if pin is None:
        return None
    return {"version": pin["version"], "torch": torch,
            "source": f"{origin} torch=={torch}, which pins {pin['package']}=={pin['version']}"}


def _torch(run: EngineRun) -> tuple[str | None, str]:
    """The torch this run loads: installed or stated, else the one the vLLM release pins."""
    torch = run.facts.library("torch")
    if torch is not None and (torch.what_if or not run.library.what_if):
        implied = torch.details.get("implied_by")
        return torch.version, f"{implied} pins" if implied else "stated" if torch.what_if else "installed"
    pinned = (knowledge.facts_for(run.version).get("nccl") or {}).get("torch") or {}
    release = knowledge.known_release(run.version)
    return pinned.get("version"), f"vLLM {release} pins"


def _pin(torch: str) -> dict[str, str] | None:
    """The cuDNN pin of this torch's PyPI wheel, when the torch is that build (same CUDA major)."""
    try:
        public = Version(torch).public
    except InvalidVersion:
        return None
    entry = knowledge.torch_pins().get(public) or {}
    pin = entry.get("cudnn")
    if not pin:
        return None
    local = _LOCAL_CUDA.search(torch)
    if local and f"cu{local.group(1)}" != pin["package"].rsplit("-", 1)[-1]:
        return None
    return pin
