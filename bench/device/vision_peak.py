"""Peak CUDA memory of a Qwen3.5/Qwen3-VL-style vision tower's forward on one image, measured on a real GPU with
transformers' implementation (random weights: memory does not depend on their values). Prints JSON lines."""
import json
import sys

import torch


def vision_class():
    for module, name in (("transformers.models.qwen3_5_moe.modeling_qwen3_5_moe", "Qwen3_5MoeVisionModel"),
                         ("transformers.models.qwen3_vl.modeling_qwen3_vl", "Qwen3VLVisionModel")):
        try:
            mod = __import__(module, fromlist=[name])
            return getattr(mod, name), getattr(mod, name).config_class
        except (ImportError, AttributeError):
            continue
    raise SystemExit("no Qwen3-VL vision model in this transformers")


def measure(cfg: dict, grid: tuple[int, int, int], attn: str) -> dict:
    cls, config_cls = vision_class()
    config = config_cls(**cfg)
    config._attn_implementation = attn
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    model = cls(config).to(device="cuda", dtype=torch.bfloat16).eval()
    weights = torch.cuda.memory_allocated()
    t, h, w = grid
    patches = t * h * w
    per_patch = cfg["in_channels"] * cfg["temporal_patch_size"] * cfg["patch_size"] ** 2
    pixels = torch.randn(patches, per_patch, device="cuda", dtype=torch.bfloat16)
    grid_thw = torch.tensor([[t, h, w]], device="cuda")
    base = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    with torch.inference_mode():
        out = model(pixels, grid_thw=grid_thw)
    torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated() - base
    hidden = out[0] if isinstance(out, tuple) else getattr(out, "pooler_output", None)
    if hidden is None:
        hidden = out.last_hidden_state
    result = {"grid": grid, "patches": patches, "attn": attn, "weights_bytes": weights,
              "peak_increase_bytes": peak, "output_shape": list(hidden.shape), "vision": cfg}
    del model, pixels, out
    torch.cuda.empty_cache()
    return result


def main() -> None:
    with open(sys.argv[1]) as file:
        cfg = json.load(file)
    print(json.dumps({"torch": torch.__version__, "gpu": torch.cuda.get_device_name()}))
    import transformers
    print(json.dumps({"transformers": transformers.__version__}))
    for attn in ("sdpa",):
        for side in [int(s) for s in (sys.argv[2] if len(sys.argv) > 2 else "32,64,128,192,256").split(",")]:
            print(json.dumps(measure(cfg, (1, side, side), attn)), flush=True)


if __name__ == "__main__":
    main()
