"""vLLM's platform for the emulated device, loaded through vLLM's own `vllm.platform_plugins` entry point
(the runner puts a dist-info naming `activate` on sys.path). It is CUDA's platform without NVML: every
question about the device is answered from ORACLE_DEVICE, and each attention selection is recorded with the
candidates vLLM rejected and its own reasons."""

from __future__ import annotations

from typing import Any

import emulated_device

ATTENTION_CALLS: list[dict[str, Any]] = []


def activate() -> str:
    return "vllm_platform.EmulatedCuda"


def _base() -> type:
    from vllm.platforms import cuda
    return getattr(cuda, "NonNvmlCudaPlatform", None) or cuda.CudaPlatform


def _reasons(invalid: dict) -> dict[str, list[str]]:
    named: dict[str, list[str]] = {}
    for backend, entry in invalid.items():
        reasons = entry[1] if isinstance(entry, tuple) else entry
        named[getattr(backend, "name", str(backend))] = [str(r) for r in reasons]
    return named


def _candidate_name(candidate: Any) -> str:
    """A valid candidate's AttentionBackendEnum name: a (member, priority) tuple before 0.24; from 0.24 a
    _BackendCandidate whose `backend` is the backend class, named by the member whose class path it is (the
    name users pass to --attention-backend; str(cls) would reach fix texts as "<class '...'>")."""
    backend = candidate[0] if isinstance(candidate, tuple) else candidate.backend
    name = getattr(backend, "name", None)
    if isinstance(name, str):
        return name
    from vllm.platforms import cuda
    path = f"{backend.__module__}.{backend.__qualname__}"
    member = next((m for m in cuda.AttentionBackendEnum if m.value == path), None)
    return member.name if member is not None else backend.get_name()


def _selector_config(args: tuple, kwargs: dict) -> dict[str, Any]:
    config = kwargs.get("attn_selector_config")
    if config is None:
        config = next((a for a in args if hasattr(a, "_asdict")), None)
    if config is None:
        return {k: str(v) for k, v in kwargs.items() if k != "selected_backend"}
    return {k: str(v) for k, v in config._asdict().items()}


def every_backend_verdict(capability: Any, config: Any) -> dict[str, list[str]]:
    """What vLLM answers for each attention backend it knows if the user forced it here: the same
    `validate_configuration` call `get_attn_backend_cls` makes for a selected backend (empty: accepted)."""
    from vllm.platforms import cuda
    verdicts: dict[str, list[str]] = {}
    # 0.24 and later wrap the lookup in a helper; earlier releases ask the enum member itself
    backend_class_of = getattr(cuda, "_get_attn_backend_class", None) or (lambda member: member.get_class())
    for backend in cuda.AttentionBackendEnum:
        try:
            backend_class = backend_class_of(backend)
            reasons = backend_class.validate_configuration(device_capability=capability, **config._asdict())
        except Exception as error:
            reasons = [f"{type(error).__name__}: {str(error)[:300]}"]
        verdicts[backend.name] = [str(r) for r in reasons]
    return verdicts


class EmulatedCuda(_base()):  # type: ignore[misc]
    dist_backend = "gloo"

    @classmethod
    def get_device_capability(cls, device_id: int = 0) -> Any:
        from vllm.platforms.interface import DeviceCapability
        return DeviceCapability(*emulated_device.CAPABILITY)

    @classmethod
    def get_device_name(cls, device_id: int = 0) -> str:
        return emulated_device.DEVICE["name"]

    @classmethod
    def get_device_total_memory(cls, device_id: int = 0) -> int:
        return emulated_device.DEVICE["memory_bytes"]

    @classmethod
    def is_integrated_gpu(cls, device_id: int = 0) -> bool:
        return emulated_device.DEVICE.get("integrated", False)

    @classmethod
    def num_compute_units(cls, device_id: int = 0) -> int:
        return emulated_device.DEVICE["sms"]

    @classmethod
    def is_fully_connected(cls, device_ids: list[int]) -> bool:
        return False

    @classmethod
    def get_valid_backends(cls, *args: Any, **kwargs: Any) -> Any:
        valid, invalid = super().get_valid_backends(*args, **kwargs)
        ATTENTION_CALLS.append({"kind": "candidates", "valid": [_candidate_name(c) for c in valid],
                                "rejected": _reasons(invalid)})
        return valid, invalid

    @classmethod
    def get_attn_backend_cls(cls, *args: Any, **kwargs: Any) -> Any:
        call: dict[str, Any] = {"kind": "selection", "config": _selector_config(args, kwargs)}
        selected = kwargs.get("selected_backend", args[0] if args else None)
        call["forced"] = getattr(selected, "name", None) if selected is not None else None
        try:
            path = super().get_attn_backend_cls(*args, **kwargs)
        except Exception as error:
            call["error"] = f"{type(error).__name__}: {error}"
            ATTENTION_CALLS.append(call)
            raise
        call["class_path"] = str(path)
        config = kwargs.get("attn_selector_config") or next((a for a in args if hasattr(a, "_asdict")), None)
        if config is not None:
            call["every_backend"] = every_backend_verdict(cls.get_device_capability(), config)
        ATTENTION_CALLS.append(call)
        return path
