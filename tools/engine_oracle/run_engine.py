"""Start the runner inside the engine's environment for one emulated capability: the platform plug-in
registered through a generated dist-info (vLLM's `vllm.platform_plugins` entry point), the stub libcuda first
on the loader path, the pinned environment variables, and nothing of the doctor on sys.path."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from tools.engine_oracle.device import DEVICES
from tools.engine_oracle.environment import EngineEnv
from tools.engine_oracle.stand_ins import stand_ins_for

INSIDE = Path(__file__).resolve().parent / "inside"
PLUGIN_ENTRY_POINTS = "[vllm.platform_plugins]\nsm120_oracle = vllm_platform:activate\n"
# The driver version the emulated machine reports (nvidia-smi): SGLang gates some choices on it.
PINNED_DRIVER = "580.95.05"


def free_port() -> int:
    """A port for the process's one-rank gloo world: capabilities run side by side."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def plugin_dir(work: Path) -> Path:
    dist_info = work / "plugins" / "sm120_oracle_platform-0.0.dist-info"
    dist_info.mkdir(parents=True, exist_ok=True)
    (dist_info / "METADATA").write_text("Metadata-Version: 2.1\nName: sm120-oracle-platform\nVersion: 0.0\n")
    (dist_info / "entry_points.txt").write_text(PLUGIN_ENTRY_POINTS)
    return work / "plugins"


def pinned_environment(env: EngineEnv, capability: str, overrides: dict[str, str]) -> dict[str, str]:
    """No inherited VLLM_* or CUDA_VISIBLE_DEVICES: only what the oracle pins is seen by the engine."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("VLLM_", "CUDA_", "PYTHON", "SGLANG_"))}
    base.update({
        "ORACLE_DEVICE": json.dumps(DEVICES[capability]),
        "LD_LIBRARY_PATH": str(env.stub_dir),
        "VLLM_CONFIGURE_LOGGING": "0",
        "VLLM_NO_USAGE_STATS": "1",
        "DO_NOT_TRACK": "1",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
    })
    base.update(overrides)
    return base


def sglang_tools(env: EngineEnv, work: Path, path: str) -> dict[str, str]:
    """SGLang asks `nvidia-smi` (memory, capability, driver) and Triton links its launcher against
    `libcuda.so`: a fake nvidia-smi answering for the emulated device first on PATH, and the stub driver under
    both names where Triton looks (TRITON_LIBCUDA_PATH)."""
    tools = work / "bin"
    tools.mkdir(exist_ok=True)
    smi = tools / "nvidia-smi"
    smi.write_text(f'#!/bin/sh\nexec "{env.python}" "{INSIDE / "fake_nvidia_smi.py"}" "$@"\n')
    smi.chmod(0o755)
    unversioned = env.stub_dir / "libcuda.so"
    if not unversioned.exists():
        unversioned.symlink_to("libcuda.so.1")
    return {"PATH": f"{tools}{os.pathsep}{path}", "TRITON_LIBCUDA_PATH": str(env.stub_dir),
            "ORACLE_DRIVER": PINNED_DRIVER}


def run_capability(env: EngineEnv, capability: str, queries: list[dict[str, Any]], variables: dict[str, str],
                   timeout_s: int = 3600, tp: int = 1) -> list[dict[str, Any]]:
    """Every query on one emulated capability, in one process (or, for `tp` > 1, one process per rank of a gloo
    world, rank 0's records kept); each line of the runner's output is a query's record (the first is the
    set-up). A crash ends the list with a record saying so."""
    with tempfile.TemporaryDirectory(prefix="oracle-") as tmp:
        work = Path(tmp)
        job = work / "job.json"
        job.write_text(json.dumps({"queries": queries}))
        environment = pinned_environment(env, capability, variables)
        environment["PYTHONPATH"] = os.pathsep.join([str(INSIDE), str(plugin_dir(work))])
        environment["ORACLE_PORT"] = str(free_port())
        environment["ORACLE_WATCH_IMPORTS"] = ",".join(m for _, m, _ in stand_ins_for(env.engine, env.release).values())
        if env.engine == "sglang":
            environment.update(sglang_tools(env, work, environment["PATH"]))
        outs = [work / f"out{rank}.jsonl" for rank in range(tp)]
        ranks = [subprocess.Popen([str(env.python), str(INSIDE / f"{env.engine}_runner.py"), str(job), str(out)],
                                  env={**environment, **({"ORACLE_TP": str(tp), "ORACLE_RANK": str(rank)}
                                                         if tp > 1 else {})},
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=work)
                 for rank, out in enumerate(outs)]
        try:
            stderr = [rank.communicate(timeout=timeout_s)[1] for rank in ranks]
        finally:  # a rank past the time limit (or waiting for one that died) is not left behind
            for rank in ranks:
                if rank.poll() is None:
                    rank.kill()
        records = [json.loads(line) for line in outs[0].read_text().splitlines()] if outs[0].exists() else []
        if ranks[0].returncode != 0:
            records.append({"crash": ranks[0].returncode, "stderr": stderr[0][-3000:]})
        return records
