"""Host memory an in-process torch.compile (Inductor, one compile thread, as vLLM sets it) keeps after compiling a
decoder backbone, fresh and from Inductor's caches. On GB10, vLLM 0.12+ charges what the worker process keeps of
it to non-torch memory (bench/RESULTS-memory-gb10.md); on a discrete GPU it is plain host RSS, which is what this
measures. Random weights (memory does not depend on their values). Prints one JSON line.

    python3 bench/device/compile_host_rss.py LAYERS [TOKENS]     # TORCHINDUCTOR_CACHE_DIR decides fresh or cached
"""
import gc
import json
import os
import sys
import time

os.environ["TORCHINDUCTOR_COMPILE_THREADS"] = "1"

import torch
from transformers import Qwen2Config, Qwen2Model

torch._inductor.config.compile_threads = 1
GiB = 1 << 30


def status(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise KeyError(field)


def main() -> None:
    layers = int(sys.argv[1])
    tokens = int(sys.argv[2]) if len(sys.argv) > 2 else 2048
    # Qwen2.5-14B's shape (hidden 5120, 40 heads, 8 KV heads, intermediate 13824), `layers` deep
    config = Qwen2Config(hidden_size=5120, intermediate_size=13824, num_attention_heads=40, num_key_value_heads=8,
                         num_hidden_layers=layers, vocab_size=152064, max_position_embeddings=32768)
    config._attn_implementation = "sdpa"
    with torch.device("cuda"):
        model = Qwen2Model(config).to(torch.bfloat16).eval()
    ids = torch.randint(0, config.vocab_size, (1, tokens), device="cuda")
    with torch.inference_mode():
        model(input_ids=ids, use_cache=False)  # eager first: CUDA libraries and kernels loaded before the baseline
    torch.cuda.synchronize()
    gc.collect()
    before = status("VmRSS")
    compiled = torch.compile(model)
    start = time.time()
    with torch.inference_mode():
        compiled(input_ids=ids, use_cache=False)
    torch.cuda.synchronize()
    seconds = time.time() - start
    gc.collect()
    after = status("VmRSS")
    print(json.dumps({"layers": layers, "tokens": tokens, "torch": torch.__version__,
                      "cache_dir": os.environ.get("TORCHINDUCTOR_CACHE_DIR", ""),
                      "compile_and_first_call_s": round(seconds, 1), "rss_before_gib": round(before / GiB, 3),
                      "rss_after_gib": round(after / GiB, 3), "rss_kept_gib": round((after - before) / GiB, 3),
                      "rss_peak_gib": round(status("VmHWM") / GiB, 3)}))


if __name__ == "__main__":
    main()
