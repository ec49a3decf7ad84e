"""The Facts tree: what is true of the machine and the model, nothing inferred.

One frozen dataclass tree, serialised to JSON with a `schema_version`. Facts come from a live probe,
a built-in hardware profile or a snapshot file; everything downstream is a pure function of them.
Reading one (`doctor.validation.facts.facts_from_dict`, `load_facts`) checks types and physical ranges on the way in,
so a hostile or stale file gives one clear error.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field
from typing import Any

from doctor.topology import LinkIndex

SCHEMA_VERSION = "1"


@dataclass(frozen=True)
class Host:
    """The host's OS, CPU, memory, NUMA and IOMMU mode."""

    os: str | None = None
    kernel: str | None = None
    python: str | None = None
    cpu_model: str | None = None
    cpu_count: int | None = None
    memory_bytes: int | None = None
    memory_available_bytes: int | None = None  # /proc/meminfo MemAvailable at probe time (unified memory: the pool)
    numa_nodes: int | None = None
    iommu_mode: str | None = None  # translated | passthrough | off (probe/host.py: iommu_mode)
    iommu_source: str | None = None
    wsl: bool | None = None  # Windows Subsystem for Linux 2 (probe/host.py: is_wsl)
    nvidia_module: str | None = None  # open | proprietary: /proc/driver/nvidia/version
    nvidia_module_build: str | None = None  # NVIDIA's build host (dvs-builder) or a local source build
    # the nvidia module's NVreg_RegistryDwords entries ("ForceP2P=17", ...): /proc/driver/nvidia/params
    nvidia_registry_dwords: tuple[str, ...] = ()
    # bridges above the GPUs with ACS P2P redirect on (probe/pcie_acs.py); None: config space not readable (not root)
    acs_redirect: tuple[str, ...] | None = None
    ld_so_preload: str | None = None  # /etc/ld.so.preload: libraries preloaded into every process (HAMi's libvgpu.so)
    dev_shm_bytes: int | None = None  # /dev/shm size= limit (/proc/mounts); None: none stated (host default)
    # NCCL_* settings in /etc/nccl.conf, which NCCL applies where the environment sets nothing (probe/host.py)
    nccl_conf: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Driver:
    """The NVIDIA driver as NVML reports it (or why it could not be read)."""

    present: bool = False
    driver_version: str | None = None
    cuda_driver_version: str | None = None
    nvml_version: str | None = None
    error: str | None = None
    # CUDA orders devices fastest-first unless CUDA_DEVICE_ORDER=PCI_BUS_ID; NVML always by bus id.
    cuda_device_order: str = "FASTEST_FIRST"


@dataclass(frozen=True)
class Pcie:
    """A GPU's PCIe link: generation and width, current and maximum."""

    gen_current: int | None = None
    gen_max: int | None = None
    width_current: int | None = None
    width_max: int | None = None


@dataclass(frozen=True)
class Gpu:
    """One GPU: identity, compute capability, memory and the shared memory a block may opt into."""

    index: int
    name: str
    compute_capability: str
    cuda_index: int | None = None
    uuid: str | None = None
    sm_count: int | None = None
    memory_total_bytes: int | None = None
    smem_per_block_optin: int | None = None
    smem_source: str = "table"
    pci_bus_id: str | None = None
    pcie: Pcie | None = None
    numa_node: int | None = None
    unified_memory: bool = False
    unsupported: tuple[str, ...] = ()
    display_active: bool | None = None  # NVML: a display is initialised on this GPU (it drives a desktop)
    bar1_total_bytes: int | None = None  # NVML BAR1 aperture: PCIe BAR1 P2P maps the framebuffer through it

    @property
    def capability(self) -> tuple[int, int]:
        major, _, minor = self.compute_capability.partition(".")
        return int(major), int(minor or 0)


@dataclass(frozen=True)
class Link:
    """One GPU pair. `kind` follows `nvidia-smi topo -m`: PIX PXB PHB NODE SYS NV<n>."""

    a: int
    b: int
    kind: str
    p2p_read: bool | None = None
    p2p_write: bool | None = None
    p2p_atomics: bool | None = None
    p2p_nvlink: bool | None = None


@dataclass(frozen=True)
class Library:
    """An installed (or what-if) package or toolkit: its version, where it is, and probed details."""

    name: str
    version: str
    location: str | None = None
    what_if: bool = False
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Attention:
    """A model's attention shape: heads, head sizes, MLA ranks, sliding window."""

    kind: str  # mla | gqa | mha
    num_heads: int
    num_kv_heads: int
    head_dim: int  # q/k head dim as the kernels see it on the MHA path
    v_head_dim: int
    kv_lora_rank: int | None = None
    q_lora_rank: int | None = None
    qk_rope_head_dim: int | None = None
    qk_nope_head_dim: int | None = None
    sliding_window: int | None = None
    sliding_window_layers: int = 0
    sinks: bool = False
    linear_attention_layers: int = 0  # linear-attention / Mamba / GDN layers: recurrent state, no KV cache
    global_head_dim: int | None = None  # full-attention layers' head size where it differs (Gemma 4: 512)
    sparse: bool = False  # DeepSeek sparse attention (an indexer picks `index_topk` keys): DeepSeek-V3.2, GLM-5


@dataclass(frozen=True)
class Moe:
    """A model's mixture of experts: routed and shared experts, top-k, expert width."""

    routed_experts: int
    top_k: int
    intermediate_size: int
    shared_experts: int = 0
    first_dense_layers: int = 0
    # The MLP activation the config names and the field naming it (Nemotron-H: mlp_hidden_act relu2; Gemma 4:
    # hidden_activation gelu_pytorch_tanh); engines map it to their experts' activation per release.
    hidden_act: str | None = None
    hidden_act_field: str | None = None
    swiglu_limited: bool = False  # a non-zero per-layer `swiglu_limits` entry (Step-3.5: clamped SwiGLU experts)
    latent_size: int | None = None  # latent MoE (`moe_latent_size`, Nemotron-3-Super): experts on a smaller width


@dataclass(frozen=True)
class ModuleQuant:
    """How one kind of module is stored where it differs from the checkpoint's main scheme (mixed checkpoints:
    ModelOpt MIXED_PRECISION, compressed-tensors config groups, GPTQ `dynamic`, auto-round `extra_config`).
    `module` is a kind of doctor.probe.quant_common.MODULE_KINDS, or `kind@layer` for one decoder layer; scheme "none"
    means kept in the model dtype."""

    module: str
    scheme: str
    bits: int | None = None
    group_size: int | None = None
    block_shape: tuple[int, ...] | None = None


@dataclass(frozen=True)
class Quantization:
    """How a checkpoint is quantized: scheme, bits, groups or blocks, and which modules."""

    scheme: str  # bf16 | fp16 | int4-w4a16 | fp8-channel | fp8-tensor | fp8-block | nvfp4 | mxfp4 | awq | gptq
    method: str | None = None
    bits: int | None = None
    group_size: int | None = None
    block_shape: tuple[int, ...] | None = None
    activation: str | None = None
    quantized: tuple[str, ...] = ()
    ignored: tuple[str, ...] = ()
    kv_cache_dtype: str | None = None
    source: str | None = None
    expert_scheme: str | None = None  # the routed experts' scheme where it differs (DeepSeek-V4: mxfp4)
    modules: tuple[ModuleQuant, ...] = ()  # per-kind (and per-layer) storage where it differs from `scheme`
    algo: str | None = None  # ModelOpt's `quant_algo` as the checkpoint states it, upper-cased (NVFP4, MIXED_PRECISION)
    layer_algos: tuple[str, ...] = ()  # a MIXED_PRECISION checkpoint's distinct per-layer quant_algos, upper-cased

    def for_module(self, kind: str, layer: int | None = None) -> Quantization | None:
        """How modules of `kind` (in `layer`, when given) are stored; None: in the model dtype."""
        by_name = {m.module: m for m in self.modules}
        found = by_name.get(f"{kind}@{layer}") if layer is not None else None
        found = found or by_name.get(kind)
        if found is not None:
            if found.scheme == "none":
                return None
            return dataclasses.replace(self, scheme=found.scheme, bits=found.bits, group_size=found.group_size,
                                       block_shape=found.block_shape, expert_scheme=None, modules=())
        if kind not in self.quantized:
            return None
        return self.for_experts() if kind == "routed_experts" else self

    def _unquantized(self) -> Quantization:
        return dataclasses.replace(self, scheme="bf16", bits=None, group_size=None, block_shape=None,
                                   expert_scheme=None, modules=())

    def for_experts(self) -> Quantization:
        """How the routed experts are stored: the checkpoint's scheme unless `expert_scheme` (or a per-module
        entry) says otherwise."""
        per_layer = [m for m in self.modules if m.module.startswith("routed_experts@")]
        if per_layer:  # the layers' most common storage (MIXED_PRECISION exports list every layer)
            keys = [(m.scheme, m.bits, m.group_size, m.block_shape) for m in per_layer]
            common = max(set(keys), key=keys.count)
            return self.for_module("routed_experts", int(per_layer[keys.index(common)].module.partition("@")[2])) \
                or self._unquantized()
        if any(m.module == "routed_experts" for m in self.modules):
            return self.for_module("routed_experts") or self._unquantized()
        if not self.expert_scheme or self.expert_scheme == self.scheme:
            return self
        group = 32 if self.expert_scheme == "mxfp4" else None
        return dataclasses.replace(self, scheme=self.expert_scheme, bits=4 if group else None, group_size=group,
                                   block_shape=None, expert_scheme=None)


@dataclass(frozen=True)
class RecurrentState:
    """The per-request state of a hybrid model's linear-attention/Mamba layers, as the config sizes it (one
    layer, whole model, before TP): a causal-conv window of `conv_channels` x (`conv_kernel` - 1) and a
    `heads` x `head_dim` x `state_dim` recurrent (SSM) state. `kind`: gdn (Gated DeltaNet: Qwen3-Next, Qwen3.5)
    or mamba2 (Nemotron-H); `groups` is Mamba2's B/C groups (replicated when TP does not divide them);
    `ssm_dtype` the config's own SSM-state dtype (`mamba_ssm_dtype`, `mamba_ssm_cache_dtype`) where it names one;
    `layers` the layers that hold such a state (Nemotron-H's MoE and MLP blocks hold none)."""

    kind: str
    layers: int
    conv_channels: int
    conv_kernel: int
    heads: int
    head_dim: int
    state_dim: int
    groups: int = 1
    ssm_dtype: str | None = None


@dataclass(frozen=True)
class Vision:
    """A multimodal model's vision tower."""

    num_layers: int
    hidden_size: int
    num_heads: int
    head_dim: int


@dataclass(frozen=True)
class Model:
    """A model as its config describes it: shapes, dtype, attention, experts, quantization."""

    id: str
    source: str  # local | hf-cache | hub | bundled | derived | gguf
    source_path: str | None
    architecture: str
    model_type: str
    family: str
    hidden_size: int
    num_layers: int
    vocab_size: int
    dtype: str
    attention: Attention
    quantization: Quantization
    intermediate_size: int | None = None
    max_position_embeddings: int | None = None
    moe: Moe | None = None
    vision: Vision | None = None
    nextn_layers: int = 0
    tie_word_embeddings: bool = False
    reconstructed: bool = False
    unread_fields: tuple[str, ...] = ()  # config fields that may change sizes and that no reader models
    recurrent_state: RecurrentState | None = None  # hybrid models' linear-attention/Mamba layer state
    auto_map: tuple[str, ...] = ()  # config.json's `auto_map` keys: classes the checkpoint brings its own code for
    derivation: str | None = None  # source "derived": the bundled base and what the id's name added (an estimate)
    architecture_unverified: str | None = None  # why a bundled copy's `architectures` may not be the hub file's


@dataclass(frozen=True)
class Source:
    """Where the facts came from: a live probe, a built-in profile or a snapshot file."""

    kind: str  # live | profile | snapshot
    name: str | None = None
    notes: tuple[str, ...] = ()
    references: tuple[str, ...] = ()


@dataclass(frozen=True)
class Nic:
    """A network interface from /sys/class/net (doctor/probe/network.py)."""

    name: str
    operstate: str | None = None
    speed_mbps: int | None = None
    mtu: int | None = None
    device: str | None = None  # what /sys/class/net/NAME/device points at (a PCI bus id); None when virtual


@dataclass(frozen=True)
class RdmaPort:
    """One port of an RDMA device from /sys/class/infiniband: InfiniBand, or RoCE when link_layer is Ethernet."""

    device: str
    port: int
    link_layer: str | None = None
    state: str | None = None
    rate: str | None = None
    netdev: str | None = None


@dataclass(frozen=True)
class Network:
    """What multi-node NCCL/Gloo traffic would use on this node; `settings` holds NCCL_SOCKET_IFNAME, NCCL_IB_*,
    GLOO_SOCKET_IFNAME as set. `peermem` and `nvidia_open_module` decide GPUDirect RDMA readiness."""

    address: str | None = None
    nics: tuple[Nic, ...] = ()
    rdma: tuple[RdmaPort, ...] = ()
    peermem: bool | None = None
    nvidia_open_module: bool | None = None
    settings: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Facts:
    """Everything known of one machine and the model: the input of every analysis."""

    source: Source
    host: Host = field(default_factory=Host)
    driver: Driver = field(default_factory=Driver)
    gpus: tuple[Gpu, ...] = ()
    topology: tuple[Link, ...] = ()
    libraries: dict[str, Library] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    model: Model | None = None
    node: str | None = None  # the node's name in a multi-node deployment (snapshot --node, Ray)
    network: Network | None = None
    schema_version: str = SCHEMA_VERSION

    def library(self, name: str) -> Library | None:
        return self.libraries.get(name)

    @functools.cached_property
    def link_index(self) -> LinkIndex:
        return LinkIndex(self.gpus, self.topology)

    def link(self, a: int, b: int) -> Link | None:
        return self.link_index.link(a, b)

    def replace(self, **changes: Any) -> Facts:
        """A copy with `changes`; the link index travels with it while GPUs and topology stay the same
        (what-if analyses replace libraries many times over one topology)."""
        new = dataclasses.replace(self, **changes)
        if "link_index" in self.__dict__ and not {"gpus", "topology"} & set(changes):
            new.__dict__["link_index"] = self.__dict__["link_index"]
        return new

    def to_dict(self) -> dict[str, Any]:
        return to_jsonable(self)

    def to_json(self) -> str:
        from doctor.output import json_text

        return json_text(self.to_dict())


def to_jsonable(value: Any) -> Any:
    if value is None or type(value) in (str, int, float, bool):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {name: to_jsonable(getattr(value, name)) for name in _field_names(type(value))}
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    return value


@functools.cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))
