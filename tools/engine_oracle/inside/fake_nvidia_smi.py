"""`nvidia-smi` for the emulated device: SGLang asks it for the memory size (`get_nvgpu_memory_capacity`), the
compute capability (`get_device_sm_nvidia_smi`), the driver version and the GPU list. Answers the queries
from ORACLE_DEVICE and ORACLE_DRIVER; anything else exits 9 as a missing tool would fail."""

from __future__ import annotations

import json
import os
import sys

DEVICE = json.loads(os.environ["ORACLE_DEVICE"])
FIELDS = {
    "memory.total": str(DEVICE["memory_bytes"] // 2**20),
    "memory.used": "0",
    "memory.free": str(DEVICE["memory_bytes"] // 2**20),
    "compute_cap": "{}.{}".format(*DEVICE["capability"]),
    "driver_version": os.environ.get("ORACLE_DRIVER", "580.95.05"),
    "name": DEVICE["name"],
    "index": "0",
    "uuid": "GPU-00000000-0000-0000-0000-000000000000",
}


def main(argv: list[str]) -> int:
    query = next((a.split("=", 1)[1] for a in argv if a.startswith("--query-gpu=")), None)
    if query is not None:
        print(", ".join(FIELDS.get(field.strip(), "[N/A]") for field in query.split(",")))
        return 0
    if "--list-gpus" in argv or "-L" in argv:
        print(f"GPU 0: {DEVICE['name']} (UUID: {FIELDS['uuid']})")
        return 0
    return 9


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
