"""The doctor's memory plan against public engine logs: GB10 (DGX Spark) and TensorRT-LLM.

    PYTHONPATH=. python bench/memory_logs.py            # print both tables
    PYTHONPATH=. python bench/memory_logs.py --write    # refresh the tables in bench/RESULTS-memory-*.md
    PYTHONPATH=. python bench/memory_logs.py --check    # exit 1 when those tables are stale

Rows are data (fixtures/gb10/*.json, fixtures/tensorrt_llm/memory_logs.json: URL, release, model, flags, the
log's own lines); every predicted figure comes from the doctor's planner (doctor.plan.planner.plan_layout with the
engine's MemoryModel). tests/engines/test_memory_tables.py bounds each row (weights 3 %, KV 10 %) and fails when
the tables in the RESULTS files are not what this script prints.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from functools import cache
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from packaging.version import Version  # noqa: E402

from doctor.engines.tensorrt_llm.memory import TensorRTLLMMemory, estimation_tokens  # noqa: E402
from doctor.engines.vllm.memory import VLLMMemory, logged_kv_cache_size  # noqa: E402
from doctor.hardware import load_profile  # noqa: E402
from doctor.plan import kv as kvmod  # noqa: E402
from doctor.plan.layouts import Layout  # noqa: E402
from doctor.plan.memory import LayoutShape  # noqa: E402
from doctor.plan.planner import Plan, PlanRequest, plan_layout  # noqa: E402
from doctor.probe.model import load_model  # noqa: E402
from doctor.unified_memory import GB10_POOL_BYTES  # noqa: E402

GiB = 1 << 30
WEIGHTS_BOUND = 0.03
KV_BOUND = 0.10
FIXTURES = REPO / "fixtures"
RESULTS = {"gb10": REPO / "bench" / "RESULTS-memory-gb10.md", "trtllm": REPO / "bench" / "RESULTS-memory-trtllm.md"}
# vLLM planning stand-in for the pairs: the difference of two budgets does not depend on the model (see pair_delta)
PAIR_STAND_IN_MODEL = "openai/gpt-oss-120b"


def load(relative: str) -> dict[str, Any]:
    return json.loads((FIXTURES / relative).read_text(encoding="utf-8"))


def error(predicted: float, reported: float) -> float:
    return (predicted - reported) / abs(reported)


# --- GB10: the pool and vLLM's share of it ---------------------------------------------------------------------

def pool_logs() -> list[dict[str, Any]]:
    return load("gb10/pool_logs.json")["logs"]


def vllm_pairs() -> list[dict[str, Any]]:
    return load("gb10/vllm_kv_pairs.json")["pairs"]


def vllm_budget_on_spark(release: str, utilization: float) -> int:
    """The doctor's vLLM KV budget on one GB10 at `utilization`. Every rank of these TP2 deployments is a Spark of
    its own, so each plans against one pool; the share is what moves between a pair's runs."""
    spark = load_profile("dgx-spark")
    model = load_model(PAIR_STAND_IN_MODEL, {}, offline=True)
    memory = VLLMMemory(Version(release), (12, 1), spark.gpus[0].name, utilization=utilization)
    return plan_layout(spark, model, Layout(1, 1, 1), PlanRequest(memory=memory)).kv_budget_bytes


def pair_delta(pair: dict[str, Any]) -> tuple[float, float]:
    """(predicted, logged) KV difference in GiB between the pair's two runs. Weights, activation peak, non-torch
    use and the CUDA-graph estimate are the same in both runs, so only utilization x the pool moves: the
    stand-in model cancels out (tests/engines/test_memory_tables.py checks that it does)."""
    low, high = pair["runs"]
    predicted = vllm_budget_on_spark(pair["vllm"], high["gpu_memory_utilization"]) - \
        vllm_budget_on_spark(pair["vllm"], low["gpu_memory_utilization"])
    return predicted / GiB, high["kv_cache_gib"] - low["kv_cache_gib"]


def vllm_absolute_rows() -> list[dict[str, Any]]:
    return load("gb10/vllm_absolute.json")["rows"]


def absolute_memory(row: dict[str, Any]) -> VLLMMemory:
    spark = load_profile("dgx-spark")
    return VLLMMemory(Version(row["vllm"]), (12, 1), spark.gpus[0].name,
                      utilization=row["gpu_memory_utilization"], enforce_eager=row["enforce_eager"])


@cache
def absolute_predicted(row_id: str) -> dict[str, float]:
    """The doctor's weights, KV budget and token count for one logged GB10 deployment, and the tokens its count
    gives for the log's own budget (which separates the token arithmetic from the budget's)."""
    row = next(row for row in vllm_absolute_rows() if row["id"] == row_id)
    spark, model, memory = load_profile("dgx-spark"), load_model(str(REPO / row["config"]), {}, offline=True), \
        absolute_memory(row)
    plan = plan_layout(spark, model, Layout(1, 1, 1), PlanRequest(memory=memory,
                                                                  kv_cache_dtype=row["kv_cache_dtype"]))
    settings = memory.settings(plan.gpu_memory_bytes, LayoutShape(1, 1, 1), model, False)
    shape = kvmod.kv_shape(model, 1, 0, model.num_layers, kvmod.resolve_kv_dtype(model, row["kv_cache_dtype"]),
                           memory.kv_cell_bytes)
    logged_budget = int(row["reported"]["kv_cache_gib"] * GiB)
    return {"weights_gib": plan.weights_per_gpu_bytes / GiB, "kv_cache_gib": plan.kv_budget_bytes / GiB,
            "kv_tokens": plan.kv_capacity_tokens,
            "tokens_at_logged_budget": logged_kv_cache_size(memory.release, memory.kv_tokens(logged_budget, shape,
                                                                                             settings), shape),
            "residual_gib": (settings["activation_bytes"] + settings["non_torch_bytes"]) / GiB}


def profile_residual(utilization: float, weights_gib: float, kv_cache_gib: float) -> float:
    """What a GB10 log leaves for activation + non-torch memory: share x pool - weights - KV."""
    return utilization * GB10_POOL_BYTES / GiB - weights_gib - kv_cache_gib


def logged_residual(row: dict[str, Any], weights_gib: float) -> float:
    return profile_residual(row["gpu_memory_utilization"], weights_gib, row["reported"]["kv_cache_gib"])


def gb10_absolute_table() -> str:
    rows = ["| log | vLLM (planned as) | model, flags | weights GiB pred / log | KV GiB pred / log | "
            "GPU KV cache size at the log's KV budget, pred / log | activation + non-torch GiB pred / log |",
            "|---|---|---|---|---|---|---|"]
    for row in vllm_absolute_rows():
        p, r = absolute_predicted(row["id"]), row["reported"]
        weights = cell(p["weights_gib"], r["weights_gib"], 2) if "weights_gib" in r else \
            f"{p['weights_gib']:.2f} / not logged"
        tokens = cell(p["tokens_at_logged_budget"], r["kv_tokens"], 0) if "kv_tokens" in r else "- / not logged"
        residual = logged_residual(row, r.get("weights_gib", p["weights_gib"]))
        kv = cell(p["kv_cache_gib"], r["kv_cache_gib"], 2) + (" xfail" if "kv_not_bounded" in row else "")
        rows.append(f"| [{row['id']}]({row['url']}) | {row['vllm']} | {row['model']}; "
                    f"{row['flags']} | {weights} | {kv} | {tokens} | {p['residual_gib']:.2f} / {residual:.2f} |")
    return "\n".join(rows)


def one_host_runs() -> list[dict[str, Any]]:
    return load("gb10/vllm_one_host_runs.json")["runs"]


def gb10_one_host_table() -> str:
    """Five 0.13.0 startups on one Spark: what each profile charged to activation + non-torch memory, beside
    what differed in the run (a download inside it, a fresh compile or a cached one)."""
    rows = ["| log | started | model, flags | util | weights / KV GiB logged | activation + non-torch GiB | "
            "download in the run | weights read | torch.compile |", "|---|---|---|---|---|---|---|---|---|"]
    for run in one_host_runs():
        download = f"{run['download_s']:.0f} s" if run["download_s"] else "none"
        residual = profile_residual(run["gpu_memory_utilization"], run["weights_gib"], run["kv_cache_gib"])
        rows.append(f"| [{run['id']}]({run['url']}) | {run['started']} | {run['model']}; {run['flags']} | "
                    f"{run['gpu_memory_utilization']} | {run['weights_gib']} / {run['kv_cache_gib']} | "
                    f"**{residual:.2f}** | {download} | "
                    f"{run['read_s']} s | {run['compile']} ({run['compile_s']} s) |")
    return "\n".join(rows)


COMPILE_RSS = REPO / "bench" / "device" / "compile-host-rss-h200.jsonl"


def compile_rss_table() -> str:
    """bench/device/compile_host_rss.py's lines: host RSS an in-process Inductor compile keeps, fresh and cached."""
    rows = ["| layers | compile | compile + first call (s) | RSS kept (GiB) | RSS peak above the baseline (GiB) |",
            "|---|---|---|---|---|"]
    seen: set[int] = set()
    for line in COMPILE_RSS.read_text(encoding="utf-8").splitlines():
        run = json.loads(line)
        state = "cached" if run["layers"] in seen else "fresh"  # the script runs fresh, then again on its caches
        seen.add(run["layers"])
        rows.append(f"| {run['layers']} | {state} | {run['compile_and_first_call_s']} | {run['rss_kept_gib']:.3f} | "
                    f"{run['rss_peak_gib'] - run['rss_before_gib']:.3f} |")
    return "\n".join(rows)


def gb10_pool_table() -> str:
    rows = ["| log | logged pool (GiB) | doctor (GiB) | error | vLLM request logged | doctor (util x pool) | error |",
            "|---|---|---|---|---|---|---|"]
    pool = GB10_POOL_BYTES / GiB
    for log in pool_logs():
        request = ("- | - | -" if "requested_gib" not in log else
                   f"{log['requested_gib']:.2f} GiB (util {log['gpu_memory_utilization']}) | "
                   f"{log['gpu_memory_utilization'] * pool:.2f} GiB | "
                   f"{error(log['gpu_memory_utilization'] * pool, log['requested_gib']):+.2%}")
        rows.append(f"| [{log['id']}]({log['url']}) | {log['pool_gib']:.2f} | {pool:.2f} | "
                    f"{error(pool, log['pool_gib']):+.2%} | {request} |")
    return "\n".join(rows)


def gb10_pair_table() -> str:
    rows = ["| log | vLLM | deployment | util | KV logged (GiB) | KV difference logged | doctor | error |",
            "|---|---|---|---|---|---|---|---|"]
    for pair in vllm_pairs():
        predicted, logged = pair_delta(pair)
        low, high = pair["runs"]
        rows.append(f"| [{pair['id']}]({pair['url']}) | {pair['vllm_logged'] or 'not stated'} | {pair['model']}, "
                    f"{pair['gpu']} | {low['gpu_memory_utilization']} -> {high['gpu_memory_utilization']} | "
                    f"{low['kv_cache_gib']} -> {high['kv_cache_gib']} | {logged:.2f} | {predicted:.2f} | "
                    f"**{error(predicted, logged):+.1%}**{' xfail' if 'not_bounded' in pair else ''} |")
    return "\n".join(rows)


# --- TensorRT-LLM ------------------------------------------------------------------------------------------------

def trtllm_fixture() -> dict[str, Any]:
    return load("tensorrt_llm/memory_logs.json")


def trtllm_logs() -> list[dict[str, Any]]:
    return trtllm_fixture()["logs"]


def estimation_logs() -> list[dict[str, Any]]:
    fixture = trtllm_fixture()
    return fixture["logs"] + fixture["estimation_logs"]


def component_logs() -> list[dict[str, Any]]:
    return trtllm_fixture()["component_logs"]


def layout(entry: dict[str, Any]) -> Layout:
    return Layout(entry["tp"], 1, entry.get("ep", 1))


def estimation_pool(entry: dict[str, Any]) -> tuple[int, int]:
    """(tokens, bytes) of the profiling run's KV pool, predicted from the deployment and the config."""
    tokens = estimation_tokens(entry["max_num_tokens"], entry["max_seq_len"], entry["tokens_per_block"],
                               not entry["disable_overlap_scheduler"])
    plan = plan_layout(load_profile(entry.get("profile", "dgx-spark")), load_model(entry["model"], {}, offline=True),
                       layout(entry), PlanRequest(memory=TensorRTLLMMemory(entry["tensorrt_llm"], None, 1)))
    return tokens, tokens * plan.kv_bytes_per_token


def trtllm_memory(entry: dict[str, Any], measured: bool) -> TensorRTLLMMemory:
    """`measured`: the log's use outside torch at profiling, less the estimation run's KV pool that
    `_cal_max_tokens` adds back (predicted); otherwise the doctor's assumption for a machine it has not probed."""
    outside = None
    if measured:
        outside = int(entry["measured_inputs"]["outside_torch_gib"] * GiB) - estimation_pool(entry)[1]
    return TensorRTLLMMemory(entry["tensorrt_llm"], entry["free_gpu_memory_fraction"], entry["max_batch_size"],
                             entry["tokens_per_block"], entry["max_num_tokens"], entry["max_tokens"],
                             outside_torch_bytes=outside)


def trtllm_plan(entry: dict[str, Any], measured: bool = True) -> Plan:
    facts = load_profile(entry["profile"])
    if measured:
        gpu = dataclasses.replace(facts.gpus[0],
                                  memory_total_bytes=int(entry["measured_inputs"]["device_total_gib"] * GiB))
        facts = facts.replace(gpus=(gpu,))
    model = load_model(entry["model"], {}, offline=True)
    return plan_layout(facts, model, layout(entry), PlanRequest(memory=trtllm_memory(entry, measured)))


@cache
def trtllm_predicted(entry_id: str, measured: bool = True) -> dict[str, float]:
    entry = next(entry for entry in trtllm_logs() if entry["id"] == entry_id)
    plan = trtllm_plan(entry, measured)
    model = load_model(entry["model"], {}, offline=True)
    settings = trtllm_memory(entry, measured).settings(plan.gpu_memory_bytes, LayoutShape(entry["tp"], 1, 1),
                                                       model, False)
    return {"weights_gib": plan.weights_per_gpu_bytes / GiB, "kv_cache_gib": plan.kv_budget_bytes / GiB,
            "kv_tokens": plan.kv_capacity_tokens, "kv_size_per_token": plan.kv_bytes_per_token,
            "activation_gib": settings["activation_bytes"] / GiB}


def component_weights(entry: dict[str, Any]) -> float:
    plan = plan_layout(load_profile(entry["profile"]), load_model(entry["model"], {}, offline=True), layout(entry),
                       PlanRequest(memory=TensorRTLLMMemory(entry["tensorrt_llm"].split("/")[0], None, 1)))
    return plan.weights_per_gpu_bytes / GiB


def cell(value: float, reported: float, digits: int) -> str:
    return f"{value:.{digits}f} / {reported} (**{error(value, reported):+.1%}**)"


def trtllm_full_table() -> str:
    rows = ["| log | TRT-LLM | GPU | model, flags | weights GiB pred / log | activation GiB | KV bytes/token | "
            "KV GiB pred / log | KV tokens pred / log |", "|---|---|---|---|---|---|---|---|---|"]
    for entry in trtllm_logs():
        p, r = trtllm_predicted(entry["id"]), entry["reported"]
        rows.append(f"| [{entry['id']}]({entry['url']}) | {entry['tensorrt_llm']} | {entry['gpu']} | {entry['model']}, "
                    f"TP{entry['tp']}, free_gpu_memory_fraction {entry['free_gpu_memory_fraction']}, max_batch_size "
                    f"{entry['max_batch_size']}, max_num_tokens {entry['max_num_tokens']} | "
                    f"{cell(p['weights_gib'], r['weights_gib'], 2)} | "
                    f"{cell(p['activation_gib'], r['activation_gib'], 2)} | "
                    f"{p['kv_size_per_token']} / {r['kv_size_per_token']} | "
                    f"{cell(p['kv_cache_gib'], r['kv_cache_gib'], 2)} | {cell(p['kv_tokens'], r['kv_tokens'], 0)} |")
    return "\n".join(rows)


def trtllm_estimation_table() -> str:
    rows = ["| log | TRT-LLM | GPU, layout | model | max_num_tokens | tokens pred / log | GiB pred / log |",
            "|---|---|---|---|---|---|---|"]
    for entry in estimation_logs():
        tokens, pool = estimation_pool(entry)
        logged_tokens = entry["reported"].get("estimation_tokens", "-")
        rows.append(f"| [{entry['id']}]({entry['url']}) | {entry['tensorrt_llm']} | {entry['gpu']} | {entry['model']} "
                    f"| {entry['max_num_tokens']} | {tokens} / {logged_tokens} | "
                    f"{cell(pool / GiB, entry['reported']['estimation_kv_gib'], 3)} |")
    return "\n".join(rows)


def trtllm_component_table() -> str:
    rows = ["| log | TRT-LLM | GPU, layout | model | weights GiB pred / log (free-memory difference) |",
            "|---|---|---|---|---|"]
    for entry in component_logs():
        rows.append(f"| [{entry['id']}]({entry['url']}) | {entry['tensorrt_llm']} | {entry['gpu']} | {entry['model']} "
                    f"| {cell(component_weights(entry), entry['reported']['weights_gib'], 2)} |")
    return "\n".join(rows)


TABLES = {
    "gb10": {"pool": gb10_pool_table, "vllm-pairs": gb10_pair_table, "vllm-absolute": gb10_absolute_table,
             "one-host": gb10_one_host_table, "compile-rss": compile_rss_table},
    "trtllm": {"full": trtllm_full_table, "estimation": trtllm_estimation_table, "components": trtllm_component_table},
}


# --- the RESULTS files: each table sits between <!-- table:NAME --> and <!-- /table:NAME --> ----------------------

def with_tables(text: str, tables: dict[str, str]) -> str:
    for name, table in tables.items():
        start, end = f"<!-- table:{name} -->", f"<!-- /table:{name} -->"
        head, found, rest = text.partition(start)
        if not found or end not in rest:
            raise SystemExit(f"{start} ... {end} markers are missing")
        text = f"{head}{start}\n{table}\n{end}{rest.partition(end)[2]}"
    return text


def rendered() -> dict[str, dict[str, str]]:
    return {doc: {name: render() for name, render in tables.items()} for doc, tables in TABLES.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="refresh the tables in bench/RESULTS-memory-*.md")
    mode.add_argument("--check", action="store_true", help="exit 1 when those tables are stale")
    args = parser.parse_args()
    stale = []
    for doc, tables in rendered().items():
        if not (args.write or args.check):
            print("\n\n".join(tables.values()) + "\n")
            continue
        current = RESULTS[doc].read_text(encoding="utf-8")
        updated = with_tables(current, tables)
        if updated == current:
            continue
        if args.write:
            RESULTS[doc].write_text(updated, encoding="utf-8")
        else:
            stale.append(RESULTS[doc].name)
    if stale:
        print(f"stale tables in {', '.join(stale)}: run PYTHONPATH=. python bench/memory_logs.py --write")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
