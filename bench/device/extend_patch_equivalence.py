"""On a real GPU: SGLang 0.5.8's own `extend_attention_fwd`, launched unpatched and patched by
sm120-doctor (capability-12 tiles forced on), on MLA-shaped problems; outputs compared with each other
and with a PyTorch fp32 reference. Also reports each launched kernel's `metadata.shared`.

    python bench/device/extend_patch_equivalence.py SGLANG_SITE OUT.json

SGLANG_SITE holds the wheel's `sglang/` tree (only the two attention files are used); sglang itself is
not imported: a stub provides `sglang.srt.utils.is_cuda/is_hip`.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import tempfile
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from doctor.engines.sglang.patches import PATCHES
from doctor.fix.patches import patched_source

OPS = "sglang/srt/layers/attention/triton_ops"


def stub_package(site: Path, extend_text: str, name: str) -> object:
    root = Path(tempfile.mkdtemp(prefix=f"sglang-{name}-"))
    ops = root / OPS
    ops.mkdir(parents=True)
    for folder in [root / "sglang", root / "sglang/srt", root / "sglang/srt/layers",
                   root / "sglang/srt/layers/attention", ops]:
        (folder / "__init__.py").write_text("")
    (root / "sglang/srt/utils.py").write_text("def is_cuda():\n    return True\n\ndef is_hip():\n    return False\n")
    (ops / "prefill_attention.py").write_text((site / OPS / "prefill_attention.py").read_text())
    (ops / "extend_attention.py").write_text(extend_text)
    for key in [k for k in sys.modules if k == "sglang" or k.startswith("sglang.")]:
        del sys.modules[key]
    sys.path.insert(0, str(root))
    spec = importlib.util.spec_from_file_location(f"extend_{name}", ops / "extend_attention.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.path.remove(str(root))
    return module


def problem(lq: int, lv: int, heads: int, kv_heads: int, prefix: list[int], extend: list[int], seed: int):
    gen = torch.Generator(device="cuda").manual_seed(seed)
    dev, dt = "cuda", torch.bfloat16
    total_ext, total_prefix = sum(extend), sum(prefix)

    def rnd(*shape):
        return torch.randn(*shape, generator=gen, device=dev, dtype=torch.float32).to(dt)

    q = rnd(total_ext, heads, lq)
    k_ext, v_ext = rnd(total_ext, kv_heads, lq), rnd(total_ext, kv_heads, lv)
    k_buf, v_buf = rnd(total_prefix + 64, kv_heads, lq), rnd(total_prefix + 64, kv_heads, lv)
    perm = torch.randperm(total_prefix + 64, generator=gen, device=dev)[:total_prefix].to(torch.int32)
    qo = torch.tensor([0, *torch.cumsum(torch.tensor(extend), 0).tolist()], dtype=torch.int32, device=dev)
    kvp = torch.tensor([0, *torch.cumsum(torch.tensor(prefix), 0).tolist()], dtype=torch.int32, device=dev)
    return dict(q=q, k_ext=k_ext, v_ext=v_ext, k_buf=k_buf, v_buf=v_buf, kv_indices=perm, qo=qo, kvp=kvp,
                prefix=prefix, extend=extend, heads=heads, kv_heads=kv_heads, lq=lq, lv=lv)


def run_kernel(module, p) -> tuple[torch.Tensor, int, tuple]:
    out = torch.empty(p["q"].shape[0], p["heads"], p["lv"], device="cuda", dtype=torch.bfloat16)
    before = _compiled(module)
    module.extend_attention_fwd(p["q"], p["k_ext"], p["v_ext"], out, p["k_buf"], p["v_buf"], p["qo"], p["kvp"],
                                p["kv_indices"], None, True, None, max(p["extend"]))
    torch.cuda.synchronize()
    tiles = module._get_block_sizes_for_extend_attention(p["lq"], p["lv"])
    new = [kernel for key, kernel in _compiled(module).items() if key not in before]
    return out, (new[0].metadata.shared if new else -1), tiles


def _compiled(module) -> dict:
    """Every specialisation of `_fwd_kernel` compiled so far, by cache key."""
    kernels = {}
    for device, cache in module._fwd_kernel.device_caches.items():
        for key, kernel in cache[0].items():
            kernels[(device, key)] = kernel
    return kernels


def reference(p) -> torch.Tensor:
    outs = []
    group = p["heads"] // p["kv_heads"]
    scale = 1.0 / p["lq"] ** 0.5
    ext_start = 0
    for seq, (npre, next_) in enumerate(zip(p["prefix"], p["extend"], strict=True)):
        idx = p["kv_indices"][p["kvp"][seq]: p["kvp"][seq + 1]].long()
        k = torch.cat([p["k_buf"][idx], p["k_ext"][ext_start: ext_start + next_]]).float()
        v = torch.cat([p["v_buf"][idx], p["v_ext"][ext_start: ext_start + next_]]).float()
        q = p["q"][ext_start: ext_start + next_].float()
        k = k.repeat_interleave(group, dim=1)
        v = v.repeat_interleave(group, dim=1)
        scores = torch.einsum("qhd,khd->hqk", q, k) * scale
        causal = torch.ones(next_, npre + next_, dtype=torch.bool, device="cuda").tril(npre)
        scores = scores.masked_fill(~causal, float("-inf"))
        outs.append(torch.einsum("hqk,khd->qhd", scores.softmax(-1), v))
        ext_start += next_
    return torch.cat(outs)


def main() -> None:
    site, out_path = Path(sys.argv[1]), Path(sys.argv[2])
    original_text = (site / OPS / "extend_attention.py").read_text()
    patched_text = patched_source(PATCHES["sglang-extend-attention-sm12x"], original_text)
    unpatched = stub_package(site, original_text, "unpatched")
    patched = stub_package(site, patched_text, "patched")
    patched.CUDA_CAPABILITY = (12, 0)  # take the new branch on this Hopper GPU: SM12x tiles, run for real
    cases = [("mla-absorbed (prefix hit)", 576, 512, 8, 1, [300, 0, 1111], [200, 517, 64]),
             ("mla-fresh-prefill", 192, 128, 8, 8, [0, 0], [333, 700]),
             ("gqa head_dim 128", 128, 128, 32, 8, [128, 0], [256, 300])]
    results = []
    for name, lq, lv, heads, kv_heads, prefix, extend in cases:
        p = problem(lq, lv, heads, kv_heads, prefix, extend, seed=lq)
        ref = reference(p)
        out_a, smem_a, tiles_a = run_kernel(unpatched, p)
        out_b, smem_b, tiles_b = run_kernel(patched, p)
        row = {"case": name, "lq": lq, "lv": lv, "tiles_unpatched": tiles_a[3:], "tiles_patched": tiles_b[3:],
               "shared_unpatched": smem_a, "shared_patched": smem_b,
               "max_abs_patched_vs_unpatched": (out_a.float() - out_b.float()).abs().max().item(),
               "max_abs_unpatched_vs_ref": (out_a.float() - ref).abs().max().item(),
               "max_abs_patched_vs_ref": (out_b.float() - ref).abs().max().item(),
               "allclose_bf16": bool(torch.allclose(out_b.float(), ref, atol=2e-2, rtol=2e-2)
                                     and torch.allclose(out_a.float(), ref, atol=2e-2, rtol=2e-2))}
        print(json.dumps(row))
        results.append(row)
    out_path.write_text(json.dumps({"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
                                    "triton": __import__("triton").__version__, "results": results}, indent=2))


if __name__ == "__main__":
    main()
