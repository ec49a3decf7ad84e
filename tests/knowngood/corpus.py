"""A known-good entry: a public report of a deployment that served requests on SM120/SM121 (url, date, title,
the quote that shows it worked), the deployment as the report states it (tests/deployments.py, shared with the
regression set) and, while another branch fixes the doctor's mistake on it, `pending`: the rule or bug.

The table is tests/knowngood/corpus.toml; every entry runs the same pure pipeline as `check` (check_facts)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from doctor.pipeline.report import Report
from tests.deployments import DEPLOYMENT_KEYS, Deployment, load_table, run_deployment

HERE = Path(__file__).resolve().parent
TABLE = HERE / "corpus.toml"
MODELS = HERE / "models"
ENTRY_KEYS = DEPLOYMENT_KEYS | {"id", "url", "date", "title", "quote", "pending"}


@dataclass(frozen=True, kw_only=True)
class Entry(Deployment):
    id: str
    url: str
    date: str
    title: str
    quote: str
    pending: str = ""


def load_entries(path: Path = TABLE) -> list[Entry]:
    return load_table(path, "entry", Entry, ENTRY_KEYS)


def run_entry(entry: Entry) -> Report:
    return run_deployment(entry, MODELS)


def engine_of(entry: Entry) -> str:
    """The serving engine the entry names (`vllm==0.11.0` → `vllm`)."""
    names = [spec.split("==")[0] for spec in entry.engines] + list(entry.libraries)
    serving = [n for n in names if n in {"vllm", "sglang", "tensorrt-llm", "llama.cpp", "ollama"}]
    assert len(serving) == 1, f"{entry.id}: names {serving}, not one serving engine"
    return serving[0]
