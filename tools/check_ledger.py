"""Check the triage ledger (ledger/*.toml): every public SM12x serving report, its class and its status.

Run `python tools/check_ledger.py` (exit 1 on any problem, one line each) or `--summary` for counts per
engine, class and status. The ledger is project data: the doctor reads it only through the report index
`tools/report_index.py` writes (`doctor/data/reports.json`, for `diagnose`'s RPT001)."""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from dataclasses import dataclass
from datetime import date
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
LEDGER_DIR = ROOT / "ledger"
CASES_DIR = ROOT / "tests" / "cases"

CLASSES = {
    "arch-missing": "a wheel, binary or build carries no code for sm_120/sm_121",
    "smem-overflow": "a kernel asks for more than 101376 B of shared memory per block",
    "backend-unsupported": "an attention/GEMM/MoE backend or kernel path has no SM12x implementation",
    "driver": "NVIDIA driver release, its CUDA version, or a driver defect",
    "wsl2": "Windows Subsystem for Linux specifics",
    "unified-memory": "GB10 (DGX Spark) unified memory: NVML, pool size, page cache",
    "p2p": "PCIe peer-to-peer, custom all-reduce, IOMMU/ACS on multi-GPU rigs",
    "nccl": "NCCL release or collective failure",
    "container-image": "a Docker/NGC image pins engine, torch, CUDA or FlashInfer without SM12x support",
    "build-recipe": "a source build: arch lists, nvcc, cmake flags",
    "third-party-kernel": "a kernel library in the serving path (DeepGEMM, FlashMLA, LMCache, FLA, triton_kernels)",
    "model-feature": "a model feature (head size, activation, sinks, MLA, MTP, quantization format) on a backend",
    "memory": "memory planning: OOM, KV-cache size, utilisation",
    "numerics": "wrong output, NaN, garbage tokens",
    "perf": "slow or slower than expected",
    "flags": "a launch flag or setting is refused or has no effect",
    "install": "package resolution, wheels, pip/uv dependency pins",
    "runtime-crash": "illegal memory access, Xid, hang or segfault without an established cause",
    "cluster": "multi-node setup: Ray or MPI placement, node networking",
    "feature-request": "a request for SM12x support with no failure beyond 'not supported'",
    "unclassified": "the part of the report read does not show the cause",
}
ENGINES = {
    "vllm", "sglang", "tensorrt-llm", "llama.cpp", "flashinfer", "triton", "pytorch", "nccl", "cutlass",
    "deepgemm", "flashmla", "lmcache", "ollama", "lmdeploy", "ktransformers", "gpustack", "exllama",
    "xformers", "flash-attention", "bitsandbytes", "comfyui", "other",
}
STATUSES = {"encoded", "not-encoded", "not-actionable"}
REQUIRED = ("url", "date", "engine", "versions", "gpu", "class", "error", "fix", "status")
GITHUB = re.compile(r"^https://github\.com/[\w.-]+/[\w.-]+/(issues|pull|discussions)/\d+$")
URL = re.compile(r"^https://[a-z0-9.-]+\.[a-z]{2,}(/[^\s?#]*)?$")
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
MAX_QUOTED = 400  # one log line, not a pasted log
MIN_QUOTED = 20  # shorter says too little to match a log by


@dataclass(frozen=True)
class Problem:
    where: str
    what: str

    def __str__(self) -> str:
        return f"{self.where}: {self.what}"


def load_entries(ledger_dir: Path = LEDGER_DIR) -> list[tuple[str, dict]]:
    entries = []
    for path in sorted(ledger_dir.glob("*.toml")):
        with path.open("rb") as handle:
            data = tomllib.load(handle)
        for index, entry in enumerate(data.get("report", [])):
            entries.append((f"{path.name}#{index + 1}", entry))
    return entries


def known_rule_ids(root: Path = ROOT) -> set[str]:
    ids = set()
    for path in [*root.glob("rules/**/*.toml"), *root.glob("doctor/**/rules/*.toml")]:
        with path.open("rb") as handle:
            ids |= {rule["id"] for rule in tomllib.load(handle).get("rules", []) if "id" in rule}
    return ids


def known_cases(cases_dir: Path = CASES_DIR) -> dict[str, str]:
    """Every `[[case]]` of tests/cases/*.toml: id -> url."""
    cases = {}
    for path in sorted(cases_dir.glob("*.toml")):
        with path.open("rb") as handle:
            cases |= {case["id"]: case.get("url", "") for case in tomllib.load(handle).get("case", [])}
    return cases


def normal_url(url: str) -> str:
    # GitHub numbers issues and pull requests from one sequence and redirects /issues/N to /pull/N.
    return url.split("#", 1)[0].rstrip("/").lower().replace("/pull/", "/issues/")


def check_entry(where: str, entry: dict, rules: set[str], cases: dict[str, str]) -> list[Problem]:
    problems = [Problem(where, f"missing or empty field {key!r}") for key in REQUIRED if not entry.get(key)]
    if problems:
        return problems
    problems += check_values(where, entry)
    problems += check_status(where, entry, rules, cases)
    return problems


def check_values(where: str, entry: dict) -> list[Problem]:
    problems = []
    url = entry["url"]
    if not URL.match(url) or (url.startswith("https://github.com/") and not GITHUB.match(url)):
        problems.append(Problem(where, f"URL is not a public report address: {url}"))
    problems += check_date(where, entry["date"])
    engines = entry["engine"] if isinstance(entry["engine"], list) else [entry["engine"]]
    problems += [Problem(where, f"unknown engine {name!r}") for name in engines if name not in ENGINES]
    if entry["class"] not in CLASSES:
        problems.append(Problem(where, f"class {entry['class']!r} is not in the vocabulary"))
    if entry["status"] not in STATUSES:
        problems.append(Problem(where, f"status {entry['status']!r} is not one of {sorted(STATUSES)}"))
    problems += check_quoted(where, entry.get("quoted", []))
    if "cause" in entry and not (isinstance(entry["cause"], str) and entry["cause"].strip()):
        problems.append(Problem(where, "cause must be a non-empty sentence (leave it out when unknown)"))
    return problems


def check_quoted(where: str, quoted: object) -> list[Problem]:
    """`quoted`: log lines copied verbatim from the report, each one line a log would show."""
    if not isinstance(quoted, list) or not all(isinstance(line, str) for line in quoted):
        return [Problem(where, "quoted must be a list of strings")]
    return [Problem(where, f"quoted line {index + 1} {why}") for index, line in enumerate(quoted)
            for why in _quoted_line_problems(line)]


def _quoted_line_problems(line: str) -> list[str]:
    problems = []
    if "\n" in line:
        problems.append("holds a line break: give each log line its own string")
    if not MIN_QUOTED <= len(line.strip()) <= MAX_QUOTED:
        problems.append(f"is {len(line.strip())} characters; {MIN_QUOTED}-{MAX_QUOTED} are allowed")
    return problems


def check_date(where: str, value: str) -> list[Problem]:
    if value == "unknown":
        return []
    if not DATE.match(value):
        return [Problem(where, f"date {value!r} is not YYYY-MM-DD or 'unknown'")]
    try:
        day = date.fromisoformat(value)
    except ValueError:
        return [Problem(where, f"date {value!r} does not exist")]
    if not date(2024, 6, 1) <= day <= date.today():
        return [Problem(where, f"date {value} is outside the SM12x era (2024-06 to today)")]
    return []


def check_status(where: str, entry: dict, rules: set[str], cases: dict[str, str]) -> list[Problem]:
    problems = []
    named = set(entry.get("rules", [])) | set(entry.get("related", []))
    problems += [Problem(where, f"rule {rule} is not in rules/*.toml") for rule in sorted(named - rules)]
    if entry.get("status") == "encoded":
        if not entry.get("rules"):
            problems.append(Problem(where, "encoded without rule IDs"))
        case = entry.get("case", "")
        if case not in cases:
            problems.append(Problem(where, f"encoded, but case {case!r} is not in tests/cases/*.toml"))
        elif normal_url(cases[case]) != normal_url(entry["url"]):
            problems.append(Problem(where, f"case {case} is about {cases[case]}, not this report"))
    else:
        if not entry.get("reason"):
            problems.append(Problem(where, f"status {entry.get('status')} needs a reason"))
        if entry.get("case"):
            problems.append(Problem(where, "a case is named but the status is not 'encoded'"))
    return problems


def check_ledger(entries: list[tuple[str, dict]], rules: set[str], cases: dict[str, str]) -> list[Problem]:
    problems: list[Problem] = []
    first_seen: dict[str, str] = {}
    for where, entry in entries:
        problems += check_entry(where, entry, rules, cases)
        url = normal_url(entry.get("url", ""))
        if url in first_seen:
            problems.append(Problem(where, f"duplicate URL (first at {first_seen[url]})"))
        first_seen.setdefault(url, where)
    return problems


def engines_of(entry: dict) -> list[str]:
    return entry["engine"] if isinstance(entry["engine"], list) else [entry["engine"]]


def summary(entries: list[tuple[str, dict]]) -> str:
    reports = [entry for _, entry in entries]
    lines = [f"reports: {len(reports)}"]
    for title, counter in (
        ("engine", Counter(name for entry in reports for name in engines_of(entry)[:1])),
        ("class", Counter(entry["class"] for entry in reports)),
        ("status", Counter(entry["status"] for entry in reports)),
        ("gpu", Counter(entry["gpu"] for entry in reports)),
    ):
        lines.append(f"per {title}:")
        lines += [f"  {name:<22} {count}" for name, count in counter.most_common()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--summary", action="store_true", help="print counts per engine, class and status")
    args = parser.parse_args(argv)
    try:
        entries = load_entries()
    except (OSError, tomllib.TOMLDecodeError) as error:
        print(f"ledger unreadable: {error}", file=sys.stderr)
        return 2
    problems = check_ledger(entries, known_rule_ids(), known_cases())
    for problem in problems:
        print(problem, file=sys.stderr)
    if args.summary:
        try:
            print(summary(entries))
        except BrokenPipeError:  # `| head` closed the pipe: the counts were not wanted further
            sys.stderr.close()
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
