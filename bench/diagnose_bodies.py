"""`diagnose` on whole issue bodies (tests/diagnose/bodies/): what each body's environment dump states that the
doctor reads (engine, its release, GPU and capability, driver, torch/triton/FlashInfer/transformers/sgl-kernel,
host), and the first finding. `python bench/diagnose_bodies.py` prints one row a body and the totals; run it
from another checkout (`cd OTHER && python /path/to/bench/diagnose_bodies.py --bodies DIR`) to compare.
`--forms N`: every N-th log of tests/diagnose/index.toml pasted into each engine's issue form in each shape
(tests/diagnose/issue_forms.py), and how many keep the first finding the log alone gets."""

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


HERE = Path(__file__).resolve().parents[1]


def _forms(step: int) -> int:
    """Pasted logs that keep their first finding, of all pasted (this checkout's doctor, this file's forms)."""
    import importlib.util

    from doctor.diagnose.diagnosis import diagnose
    from doctor.pipeline.facts import Facts, Source

    spec = importlib.util.spec_from_file_location("issue_forms", HERE / "tests/diagnose/issue_forms.py")
    forms = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(forms)  # type: ignore[union-attr]
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    cases = tomllib.loads((HERE / "tests/diagnose/index.toml").read_text(encoding="utf-8"))["log"][::step]

    def first(data: bytes) -> str | None:
        base = Facts(source=Source(kind="none", name="nothing"))
        found = diagnose(io.BufferedReader(io.BytesIO(data)), "log", base, "nothing", {})
        return found.explanations[0].rule if found.explanations else None

    kept = total = 0
    for case in cases:
        if case.get("hardware"):
            continue
        log = (HERE / "tests/diagnose/logs" / case["file"]).read_bytes()
        alone = first(log)
        for form in forms.forms():
            for shape in ("fenced", "quoted", "crlf"):
                body = forms.render(form, log.decode("utf-8", "replace"), quoted=shape == "quoted",
                                    crlf=shape == "crlf").encode()
                wrapped = first(body)
                total += 1
                kept += wrapped == alone
                if wrapped != alone:
                    print(f"{case['file']}\t{form}\t{shape}\t{alone} -> {wrapped}")
    print(f"first finding kept: {kept} of {total}")
    return 0


def main() -> int:
    from doctor.diagnose.diagnosis import diagnose
    from doctor.pipeline.facts import Facts, Source

    parser = argparse.ArgumentParser()
    parser.add_argument("--bodies", default=str(HERE / "tests/diagnose/bodies"))
    parser.add_argument("--forms", type=int, default=0, help="every N-th corpus log pasted into the issue forms")
    args = parser.parse_args()
    if args.forms:
        return _forms(args.forms)
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
