"""`diagnose` on whole issue bodies (tests/diagnose/bodies/): what each body's environment dump states that the
doctor reads (engine, its release, GPU and capability, driver, torch/triton/FlashInfer/transformers/sgl-kernel,
host), and the first finding. `python bench/diagnose_bodies.py` prints one row a body and the totals; run it
from another checkout (`cd OTHER && python /path/to/bench/diagnose_bodies.py --bodies DIR`) to compare."""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

ROOT = Path.cwd()
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

FACTS = ("engine", "engine version", "gpu", "capability", "driver", "torch", "triton", "flashinfer-python",
         "transformers", "sgl-kernel", "host")


def recovered(diagnosis) -> dict[str, str]:
    """The facts the reconstructed deployment takes from the body (not from the base)."""
    facts = diagnosis.reading.facts
    deployment = diagnosis.deployment
    out: dict[str, str] = {}
    engine = deployment.engine
    if engine:
        out["engine"] = engine
        library = deployment.facts.libraries.get(engine)
        if engine in facts.versions:
            out["engine version"] = str(facts.versions[engine].value)
        elif library is not None and library.details.get("release_stated") is not False:
            out["engine version"] = library.version
    gpus = deployment.facts.gpus
    if gpus:
        out["gpu"] = f"{len(gpus)}x {gpus[0].name}"
        out["capability"] = gpus[0].compute_capability
    if deployment.facts.driver.driver_version:
        out["driver"] = deployment.facts.driver.driver_version
    for name in ("torch", "triton", "flashinfer-python", "transformers", "sgl-kernel"):
        if name in facts.versions:
            out[name] = str(facts.versions[name].value)
    host = [v for v in (facts.host_os and facts.host_os.value, facts.wsl and "WSL2",
                        getattr(facts, "host_arch", None) and facts.host_arch.value) if v]
    if host:
        out["host"] = "/".join(str(h) for h in host)
    return out


def main() -> int:
    from doctor.diagnose.diagnosis import diagnose
    from doctor.pipeline.facts import Facts, Source

    parser = argparse.ArgumentParser()
    parser.add_argument("--bodies", default=str(Path(__file__).resolve().parents[1] / "tests/diagnose/bodies"))
    args = parser.parse_args()
    total = 0
    for path in sorted(Path(args.bodies).glob("*.md")):
        data = path.read_bytes()
        diagnosis = diagnose(io.BufferedReader(io.BytesIO(data)), path.name, Facts(source=Source(kind="none",
                             name="nothing")), "nothing", {}, judge_on_log_only=True)
        first = diagnosis.explanations[0].rule if diagnosis.explanations else "-"
        facts = recovered(diagnosis)
        total += len(facts)
        others = sorted({f.id for f in diagnosis.report.findings if f.severity in ("error", "warning")})
        print(f"{path.stem}\t{first}\t{len(facts)}\t" + "; ".join(f"{k}={v}" for k, v in facts.items())
              + f"\t{' '.join(others[:6])}")
    print(f"facts recovered: {total}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
