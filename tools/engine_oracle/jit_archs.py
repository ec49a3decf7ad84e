"""Which GPU architectures a release's JIT-compiled kernel libraries have sources for: DeepGEMM compiles its
kernels at run time from the headers the wheel ships (`deep_gemm/include/deep_gemm/impls/smNN_*.cuh`), so an
architecture with no `smNN_` implementation has no DeepGEMM kernel at all, whatever vLLM's
`support_deep_gemm()` says. Recorded in each derived table under `jit_archs`.

    python -m tools.engine_oracle.jit_archs vllm 0.24.0 [--env VENV]   (adds it to an existing table)"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

IMPL = re.compile(r"^(sm\d+)_")
LIBRARIES = {"deep_gemm": "deep_gemm/include/deep_gemm/impls"}


def scan(site_packages: Path) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for library, tail in LIBRARIES.items():
        for folder in sorted(site_packages.glob(f"**/{tail}")):
            archs = sorted({m.group(1) for p in folder.glob("*.cuh") if (m := IMPL.match(p.name))},
                           key=lambda a: int(a[2:]))
            found[library] = {"source": str(folder.relative_to(site_packages)), "archs": archs}
            break
    return found


def main() -> None:
    from tools.engine_oracle.__main__ import OUT, dumps
    from tools.engine_oracle.environment import ensure_env
    parser = argparse.ArgumentParser(prog="python -m tools.engine_oracle.jit_archs")
    parser.add_argument("engine")
    parser.add_argument("release")
    parser.add_argument("--env", type=Path)
    args = parser.parse_args()
    env = ensure_env(args.engine, args.release, existing=args.env)
    target = OUT / args.engine / f"{args.release}.json"
    table = json.loads(target.read_text(encoding="utf-8"))
    table["jit_archs"] = scan(env.site_packages)
    target.write_text(dumps(table), encoding="utf-8")
    print(target, table["jit_archs"])


if __name__ == "__main__":
    main()
