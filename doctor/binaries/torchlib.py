"""torch_arch_list: what `torch.cuda.get_arch_list()` would say, without importing torch."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from doctor.binaries.archs import sort_tokens
from doctor.binaries.info import BinaryInfo
from doctor.binaries.reader import read_cuda_archs

MAIN_LIBRARY = "libtorch_cuda.so"


def torch_arch_list(site_dirs: list[Path] | None = None, union: bool = False) -> list[str] | None:
    """Compiled archs of the first torch found under `site_dirs`, like `['sm_80', ..., 'compute_120']`.

    By default this mirrors TORCH_CUDA_ARCH_LIST: the archs that at least half of the kernel modules of
    libtorch_cuda.so were built for. A few modules add extra targets of their own (torch 2.9 builds
    some FP8/attention kernels for sm_90a/sm_100a/sm_120a), which get_arch_list() does not list;
    `union=True` returns every arch in any CUDA library of torch/lib instead.
    None when no torch is found; [] for a CPU-only torch.
    """
    from doctor.binaries.scan import default_roots

    for site_dir in site_dirs if site_dirs is not None else default_roots():
        lib = Path(site_dir) / "torch" / "lib"
        if lib.is_dir():
            return _arch_list(lib, union)
    return None


def _arch_list(lib: Path, union: bool) -> list[str]:
    infos = [read_cuda_archs(p, kernel_names=False) for p in sorted(lib.glob("*.so*")) if p.is_file()]
    cuda = [i for i in infos if i.has_device_code]
    if union:
        return sort_tokens({t for i in cuda for t in (*i.sass, *i.ptx)})
    main = [i for i in cuda if Path(i.path).name == MAIN_LIBRARY] or cuda
    return _majority_archs(main)


def _majority_archs(infos: list[BinaryInfo]) -> list[str]:
    votes: Counter[str] = Counter()
    modules = 0
    for info in infos:
        modules += info.modules
        for tokens, count in info.module_archs:
            votes.update(dict.fromkeys(tokens, count))
    return sort_tokens(t for t, n in votes.items() if 2 * n >= modules)
