"""Launch vLLM's TRITON_MLA decode stage 1 for real and read the shared memory of the kernel that ran.

    python bench/device/vllm_mla_decode_launch.py TRITON_DECODE_ATTENTION_PY OUT.json

The file is vLLM's own vllm/v1/attention/ops/triton_decode_attention.py (taken from the wheel, never committed);
it is executed with two stand-in modules for its vLLM imports (the platform is CUDA; `tl` and `triton` are
Triton's), and its launcher `_decode_grouped_att_m_fwd` is called as vLLM's MLA backend calls it: DeepSeek/Kimi
latent heads (Lk 576, Lv 512), 16 query heads, page size 16, with an fp8 and with a bf16 KV cache. The compiled
kernel's `metadata.shared` is compared with the doctor's closed form for this GPU (revision 3)."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import torch
import triton
import triton.language as tl

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))


def load(path: str) -> types.ModuleType:
    platforms = types.ModuleType("vllm.platforms")
    platforms.current_platform = types.SimpleNamespace(is_rocm=lambda: False)
    utils = types.ModuleType("vllm.triton_utils")
    utils.tl, utils.triton = tl, triton
    sys.modules.update({"vllm": types.ModuleType("vllm"), "vllm.platforms": platforms, "vllm.triton_utils": utils})
    module = types.ModuleType("vllm_triton_decode_attention")
    module.__file__ = path
    exec(compile(Path(path).read_text(), path, "exec"), module.__dict__)
    return module


def shared_of(fn) -> list[int]:
    sizes = []
    for caches in fn.device_caches.values():
        for kernel in caches[0].values():
            sizes.append(int(kernel.metadata.shared))
    return sizes


def launch(module: types.ModuleType, kv_dtype: torch.dtype) -> int:
    batch, heads, lk, lv, page, pages_per_seq, splits = 2, 16, 576, 512, 16, 8, 8
    dev = torch.device("cuda")
    q = torch.randn(batch, heads, lk, device=dev, dtype=torch.bfloat16)
    kv = torch.randn(batch * pages_per_seq, page, 1, lk, device=dev).to(kv_dtype)
    req_to_tokens = torch.arange(batch * pages_per_seq, device=dev, dtype=torch.int32).view(batch, pages_per_seq)
    seq_lens = torch.full((batch,), page * pages_per_seq, device=dev, dtype=torch.int32)
    att_out = torch.empty(batch, heads, splits, lv + 1, device=dev, dtype=torch.float32)
    scale = torch.ones(1, device=dev, dtype=torch.float32)
    fn = module._fwd_grouped_kernel_stage1
    fn.device_caches.clear()
    module._decode_grouped_att_m_fwd(q, kv, kv[..., :lv], att_out, req_to_tokens, seq_lens, splits, lk ** -0.5,
                                     page, 0.0, scale, scale, is_mla=True)
    torch.cuda.synchronize()
    [shared] = shared_of(fn)
    return shared


def main() -> int:
    from doctor.kernels.decode_smem import decode_attention_smem

    module = load(sys.argv[1])
    major, minor = torch.cuda.get_device_capability()
    rows = []
    for name, dtype in (("fp8", torch.float8_e4m3fn), ("bf16", torch.bfloat16)):
        launched = launch(module, dtype)
        doctor = decode_attention_smem((major, minor), 576, 512, 32, 16, 4, 2, kv_dtype=name,
                                       triton=triton.__version__.split("+")[0], revision=3)
        rows.append({"kv_dtype": name, "launched_shared": launched, "doctor": doctor})
    result = {"gpu": torch.cuda.get_device_name(0), "capability": [major, minor], "torch": torch.__version__,
              "triton": triton.__version__, "rows": rows}
    Path(sys.argv[2]).write_text(json.dumps(result, indent=1))
    print(json.dumps(result))
    return 0 if all(r["launched_shared"] == r["doctor"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
