"""Cases of the dependency-drift findings (DSP050-DSP054): where a vLLM release's derived table stops on this
model's architecture because of the transformers version, or because the release does not know the architecture
(doctor/data/derived/stops.json, `python -m tools.engine_oracle.stops`). Each positive has negatives just outside
it: the stated transformers on the other side of the probed boundary (5.14.1 / 5.15.0, 5.4.0 / 5.5.0), the
release before and after, a model of another architecture, and 9.0/10.0 (configuration stage: the GPU does not
change it, so those fire alike and only the registry/dependency row decides)."""

from __future__ import annotations

from tests.rules.builders import a, build
from tests.rules.log_line_cases import logged

GEMMA4, GEMMA4_31B, LLAMA = "google/gemma-4-26B-A4B", "nvidia/Gemma-4-31B-IT-NVFP4", "meta-llama/Llama-3.1-8B-Instruct"
PRO, SPARK, H100, B200 = "rtx-pro-6000", "dgx-spark", "h100-sxm-x8", "b200-x8"


def vl(version, transformers=None, model=GEMMA4, profile=PRO):
    engines = (f"vllm=={version}",) + ((f"transformers=={transformers}",) if transformers else ())
    return lambda: build(profile, model, engines)


KNOW_DEP_CASES = [
    # DSP050: the stated transformers fails (probes on both sides of it fail the same way)
    a("DSP050", True, "0.27.1 + transformers 5.24.0: per-layer head_dim", vl("0.27.1", "5.24.0")),
    a("DSP050", True, "0.27.1 + 5.15.0, the first failing release", vl("0.27.1", "5.15.0")),
    a("DSP050", True, "0.27.1 + 5.18.0 between probed failures", vl("0.27.1", "5.18.0")),
    a("DSP050", True, "the same on GB10", vl("0.27.1", "5.15.0", profile=SPARK)),
    a("DSP050", True, "Gemma 4 31B NVFP4 (dense, global head size 512)", vl("0.27.1", "5.15.0", GEMMA4_31B)),
    a("DSP050", True, "0.24.0 + 5.24.0", vl("0.24.0", "5.24.0")),
    a("DSP050", False, "0.27.1 + 5.14.1, the last passing release", vl("0.27.1", "5.14.1")),
    a("DSP050", False, "0.28.0 + 5.24.0: builds (table)", vl("0.28.0", "5.24.0")),
    a("DSP050", False, "0.27.1 + 5.24.0, Llama: no stop", vl("0.27.1", "5.24.0", LLAMA)),
    a("DSP050", False, "0.27.1 + 5.25.0: above the newest probe (DSP051 says so)", vl("0.27.1", "5.25.0")),
    a("DSP050", True, "0.23.0 + 4.57.6: gemma4 unknown to transformers", vl("0.23.0", "4.57.6")),
    a("DSP050", False, "0.23.0 + 5.5.3: the model type loads", vl("0.23.0", "5.5.3")),
    # DSP051: transformers not stated (or outside the probes), an admitted passing version exists
    a("DSP051", True, "0.27.1, transformers not stated", vl("0.27.1")),
    a("DSP051", True, "0.27.1 + 5.25.0, beyond the probes", vl("0.27.1", "5.25.0")),
    a("DSP051", True, "0.20.0, transformers not stated (resolves 4.57.6)", vl("0.20.0")),
    a("DSP051", False, "0.27.1 + 5.24.0 stated: DSP050", vl("0.27.1", "5.24.0")),
    a("DSP051", False, "0.28.0: builds", vl("0.28.0")),
    a("DSP051", False, "0.19.0: no admitted version passes (DSP052)", vl("0.19.0")),
    a("DSP051", False, "0.27.1, Llama", vl("0.27.1", model=LLAMA)),
    # DSP052: the release knows Gemma 4, its requirement (<5) excludes every passing transformers
    a("DSP052", True, "0.19.0, transformers not stated", vl("0.19.0")),
    a("DSP052", False, "0.19.0 + 4.57.6 stated: DSP050", vl("0.19.0", "4.57.6")),
    a("DSP050", True, "0.19.0 + 4.57.6 stated", vl("0.19.0", "4.57.6")),
    a("DSP052", True, "0.19.0 on GB10", vl("0.19.0", profile=SPARK)),
    a("DSP052", False, "0.19.0 + 5.8.1 forced: the model type loads", vl("0.19.0", "5.8.1")),
    a("DSP052", False, "0.20.0 admits 5.5.1+", vl("0.20.0")),
    a("DSP052", False, "0.18.0 does not know Gemma 4 at all (DSP053)", vl("0.18.0")),
    # DSP053: the registry lacks the architecture and no admitted transformers loads it
    a("DSP053", True, "0.18.0, Gemma 4", vl("0.18.0")),
    a("DSP053", True, "0.12.0, Gemma 4", vl("0.12.0")),
    a("DSP053", True, "0.18.0 on GB10", vl("0.18.0", profile=SPARK)),
    a("DSP053", False, "0.19.0 knows Gemma 4", vl("0.19.0")),
    a("DSP053", True, "0.9.2 + 4.57.6 stated: no gemma4 there either", vl("0.9.2", "4.57.6")),
    a("DSP053", False, "0.9.2 + 5.8.1 stated: the config loads (DSP054)", vl("0.9.2", "5.8.1")),
    a("DSP053", False, "0.11.0 admits transformers 5 (DSP054)", vl("0.11.0")),
    a("DSP053", False, "0.18.0, Llama", vl("0.18.0", model=LLAMA)),
    # DSP054: the registry lacks the architecture, the release admits a transformers that loads the config
    a("DSP054", True, "0.11.0, Gemma 4 (requires transformers>=4.55.2)", vl("0.11.0")),
    a("DSP054", True, "0.10.2 + 5.8.1", vl("0.10.2", "5.8.1")),
    a("DSP054", False, "0.12.0: transformers<5 (DSP053)", vl("0.12.0")),
    a("DSP054", False, "0.11.0, Llama", vl("0.11.0", model=LLAMA)),
    a("DSP054", False, "0.33.0, Gemma 4", vl("0.33.0")),
    # DSP055/DSP056: vLLM 0.9.x registers `aimv2` at import; transformers names it from 4.54.0
    a("DSP055", True, "0.9.2 + transformers 4.54.0", vl("0.9.2", "4.54.0", LLAMA)),
    a("DSP055", True, "0.9.2 + 4.57.6, any model", vl("0.9.2", "4.57.6", LLAMA)),
    a("DSP055", True, "0.9.1 + 4.54.1 (its own wheel read)", vl("0.9.1", "4.54.1", LLAMA)),
    a("DSP055", True, "on 9.0 as well: import time", vl("0.9.2", "4.54.0", LLAMA, H100)),
    a("DSP055", False, "0.9.2 + 4.53.3, the last release without aimv2", vl("0.9.2", "4.53.3", LLAMA)),
    a("DSP055", False, "0.10.0 + 4.57.6: no longer registers aimv2", vl("0.10.0", "4.57.6", LLAMA)),
    a("DSP055", False, "0.9.2, transformers not stated (DSP056)", vl("0.9.2", model=LLAMA)),
    a("DSP056", True, "0.9.2, transformers not stated", vl("0.9.2", model=LLAMA)),
    a("DSP056", False, "0.9.2 + 4.53.3", vl("0.9.2", "4.53.3", LLAMA)),
    a("DSP056", False, "0.10.0, transformers not stated", vl("0.10.0", model=LLAMA)),
    # DSP057: the unknown-model-type line alone (a log-line rule: only `diagnose` shows its signature)
    logged("DSP057", True, "its line on GB10", "dgx-spark"),
    logged("DSP057", True, "its line on an H100: not GPU-specific", "h100-sxm-x8"),
    logged("DSP057", False, "check: no log", "dgx-spark", shown=()),
    logged("DSP057", False, "another rule's line (Gemma 4's own, DSP050)", "dgx-spark", shown=("DSP050",)),
]
