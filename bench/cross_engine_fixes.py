"""A diagnosis that hands one engine's fix to another engine's log: every log the project holds (the public-log
corpus tests/diagnose/logs/, each ledger entry's `error` text with its `engine` field, each signature's own cited
report) is diagnosed as its bench/test does, and the first explanation's fixes are read for the serving engine
they name (a fix's `engine`, a package an engine ships, a summary that says "Upgrade SGLang"). A fix naming an
engine the log's report did not run is `cross`; on a report that ran no serving engine at all (a bare ptxas line,
a Triton or FlashInfer traceback) it is `neutral`: an engine's fix given as if the log were that engine's.

`python bench/cross_engine_fixes.py` prints the counts and each row; `--static` lists the signatures whose own
cited report ran another engine than every engine their rule's fixes name (no diagnosis run)."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tools.check_ledger import load_entries, normal_url  # noqa: E402

SERVING = ("vllm", "sglang", "tensorrt-llm", "llama.cpp", "ollama", "lmdeploy")
# programs that run another serving engine: a fix for the engine inside is theirs too
RUNS = {"ollama": {"llama.cpp"}, "lmstudio": {"llama.cpp"}, "ktransformers": {"sglang"}, "gpustack": set()}
PACKAGES = {"vllm": "vllm", "sglang": "sglang", "sgl-kernel": "sglang", "sglang-kernel": "sglang",
            "tensorrt-llm": "tensorrt-llm", "tensorrt_llm": "tensorrt-llm", "llama.cpp": "llama.cpp",
            "ollama": "ollama", "lmdeploy": "lmdeploy"}
SUMMARY = re.compile(r"\b(?:upgrade|downgrade|update|install|use|pin|move to|run)\s+(?P<name>vLLM|SGLang|"
                     r"TensorRT-LLM|llama\.cpp|Ollama|LMDeploy)\b", re.IGNORECASE)
SHOWN = {"vllm": ("vllm",), "sglang": ("sglang", "sgl_kernel", "sgl-kernel"), "tensorrt-llm": ("tensorrt_llm",
          "tensorrt-llm", "trtllm"), "llama.cpp": ("llama.cpp", "ggml", "llama-server", "llama_model"),
          "ollama": ("ollama",), "lmdeploy": ("lmdeploy", "turbomind")}
REPOS = {"vllm-project/vllm": "vllm", "sgl-project/sglang": "sglang", "nvidia/tensorrt-llm": "tensorrt-llm",
         "ggml-org/llama.cpp": "llama.cpp", "ggerganov/llama.cpp": "llama.cpp", "ollama/ollama": "ollama",
         "internlm/lmdeploy": "lmdeploy", "kvcache-ai/ktransformers": "ktransformers",
         "lmstudio-ai/lmstudio-bug-tracker": "lmstudio", "gpustack/gpustack": "gpustack"}
PREFIXES = {"vllm": "vllm", "sglang": "sglang", "trtllm": "tensorrt-llm", "llamacpp": "llama.cpp",
            "llama.cpp": "llama.cpp", "ollama": "ollama", "lmdeploy": "lmdeploy", "lmstudio": "lmstudio",
            "ktransformers": "ktransformers"}


@dataclass(frozen=True)
class Row:
    source: str  # corpus | ledger
    name: str
    engines: frozenset[str]  # the serving engines the report ran (empty: none)
    rule: str
    fixes: tuple[frozenset[str], ...]  # per fix of the first explanation: the serving engines it names
    line: str
    shown: frozenset[str] = frozenset()  # the serving engines the log's own text names

    @property
    def named(self) -> frozenset[str]:
        return frozenset().union(*self.fixes)

    @property
    def kind(self) -> str:
        """`cross`: a fix names only engines the report did not run (nor its text shows); `neutral`: a report
        that ran no serving engine, whose text names none, gets fixes of one engine only (as if certain)."""
        allowed = set(self.engines) | set(self.shown) | {e for name in self.engines for e in RUNS.get(name, ())}
        if self.engines and any(fix and not fix & allowed for fix in self.fixes):
            return "cross"
        if not self.engines and not self.shown and len(self.named) == 1:
            return "neutral"
        return "ok"


def fix_engines(fixes: Iterable[object]) -> frozenset[str]:
    """The serving engines a list of fixes (doctor.findings.Fix) names."""
    return frozenset().union(*(one_fix_engines(fix) for fix in fixes))


def one_fix_engines(fix: object) -> frozenset[str]:
    """The serving engines one fix names: its `engine`, a package an engine ships, a summary that says
    "Upgrade SGLang" (the summary only where the fix names neither)."""
    details = getattr(fix, "details", {}) or {}
    named: set[str] = set()
    if details.get("engine") in SERVING:
        named.add(details["engine"])
    package = re.split(r"[<>=!~\[ ]", str(details.get("package") or ""), maxsplit=1)[0].lower()
    if package in PACKAGES:
        named.add(PACKAGES[package])
    if not named:
        named = {PACKAGES[m.group("name").lower()] for m in SUMMARY.finditer(getattr(fix, "summary", ""))}
    return frozenset(named)


def text_engines(text: str) -> frozenset[str]:
    """The serving engines a log's own text names (a path, a banner, a prefix)."""
    lowered = text.lower()
    return frozenset(engine for engine, words in SHOWN.items() if any(w in lowered for w in words))


def repo_engine(url: str) -> str | None:
    match = re.match(r"https://github\.com/([^/]+/[^/]+)/", url)
    return REPOS.get(match.group(1).lower()) if match else None


def corpus_engines(file: str, url: str) -> frozenset[str]:
    prefix = file.split("-", 1)[0]
    engine = repo_engine(url) or PREFIXES.get(prefix)
    return frozenset({engine} if engine else set())


def corpus_rows() -> list[Row]:
    from tests.diagnose.corpus import LOGS, diagnose_case, load_corpus

    rows = []
    for case in load_corpus():
        if case.clean:
            continue
        diagnosis = diagnose_case(case)
        if not diagnosis.explanations:
            continue
        top = diagnosis.explanations[0]
        text = (LOGS / case.file).read_text(encoding="utf-8", errors="replace")
        rows.append(Row("corpus", case.file, corpus_engines(case.file, case.url), top.rule,
                        tuple(one_fix_engines(f) for f in top.fixes), top.hit.text.strip()[:140],
                        text_engines(text)))
    return rows


def ledger_engines(engine: str | list[str]) -> frozenset[str]:
    names = [engine] if isinstance(engine, str) else list(engine)
    return frozenset(n for n in names if n in SERVING or n in RUNS)


def ledger_rows() -> list[Row]:
    from bench.diagnose_ledger import Entry, diagnose_entry_full

    rows = []
    for _, raw in load_entries():
        if not raw.get("error"):
            continue
        entry = Entry(raw["url"], str(raw["engine"]), raw.get("gpu", ""), raw.get("versions", ""), raw["error"], ())
        diagnosis = diagnose_entry_full(entry)
        if not diagnosis.explanations:
            continue
        top = diagnosis.explanations[0]
        rows.append(Row("ledger", raw["url"], ledger_engines(raw["engine"]), top.rule,
                        tuple(one_fix_engines(f) for f in top.fixes), top.hit.text.strip()[:140],
                        text_engines(raw["error"])))
    return rows


def static_rows() -> list[tuple[str, str, str, frozenset[str]]]:
    """(rule, signature url, the report's engine, the engines the rule's fixes name) where they differ."""
    from doctor.diagnose.signatures import rule_signatures
    from doctor.pipeline.rules import fix_from_spec, load_rules

    rules = {rule.id: rule for rule in load_rules()}
    ledger = _ledger_engine_by_url()
    found = []
    for rule_id, raws in rule_signatures().items():
        rule = rules.get(rule_id)
        if rule is None:
            continue
        named = fix_engines(fix_from_spec(spec, {}) for spec in rule.fixes)
        for raw in raws:
            report = ledger.get(normal_url(raw["url"])) or frozenset(filter(None, [repo_engine(raw["url"])]))
            allowed = set(report) | {e for name in report for e in RUNS.get(name, ())}
            if report and named and not named & allowed and not _scoped_to(raw.get("context", ""), named):
                found.append((rule_id, raw["url"], ",".join(sorted(report)), named))
    return found


def _scoped_to(context: str, engines: frozenset[str]) -> bool:
    """A signature whose `context` asks for a line (or a stated package) naming one of these engines."""
    return any(name.split(".")[0].lower() in context.lower() for name in engines)


def _ledger_engine_by_url() -> dict[str, frozenset[str]]:
    table: dict[str, frozenset[str]] = {}
    for _, raw in load_entries():
        table.setdefault(normal_url(raw["url"]), ledger_engines(raw["engine"]))
    return table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--static", action="store_true", help="only the signatures' own cited reports")
    parser.add_argument("--corpus-only", action="store_true", help="only tests/diagnose/logs")
    args = parser.parse_args()
    if args.static:
        for rule_id, url, report, named in static_rows():
            print(f"static  {rule_id:8} report ran {report:14} fixes name {','.join(sorted(named)):12} {url}")
        return 0
    rows = corpus_rows() + ([] if args.corpus_only else ledger_rows())
    for source in ("corpus", "ledger"):
        chosen = [r for r in rows if r.source == source]
        print(f"{source:7} explained {len(chosen):4}  cross {sum(r.kind == 'cross' for r in chosen):3}  "
              f"neutral {sum(r.kind == 'neutral' for r in chosen):3}")
    for row in rows:
        if row.kind != "ok":
            print(f"{row.kind:7} {row.rule:8} log ran {','.join(sorted(row.engines)) or '-':14} fixes name "
                  f"{','.join(sorted(row.named)):12} {row.name}  {row.line!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
