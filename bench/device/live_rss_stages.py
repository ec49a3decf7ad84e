"""Where a live `check` spends its memory on a GPU host: peak RSS (MiB) after each probe step.

    PYTHONPATH=. HF_HUB_OFFLINE=1 python3 bench/device/live_rss_stages.py
"""

from __future__ import annotations

import json
import os
import resource


def rss() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def main() -> None:
    out = {"python": rss()}
    import doctor.pipeline.check  # noqa: F401

    out["doctor imports"] = rss()
    from doctor.probe.nvml import probe_nvml

    env = dict(os.environ)
    probe_nvml(env)
    out["nvml probe"] = rss()
    from doctor.probe.libraries import probe_libraries

    libraries = probe_libraries(env)
    out["library versions (dist-info)"] = rss()
    from doctor.binaries import torch_arch_list

    torch = libraries.get("torch")
    if torch is not None and torch.location:
        from pathlib import Path

        torch_arch_list([Path(torch.location)])
    out["torch arch list (fatbins of torch/lib)"] = rss()
    from doctor.probe.binaries import with_binary_facts

    with_binary_facts(libraries)
    out["engine extensions (fatbins)"] = rss()
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
