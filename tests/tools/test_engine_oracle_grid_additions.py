"""The grid's drafter and tensor-parallel queries (tools/engine_oracle/grid.py new_shapes) and how the oracle runs
them: a drafter query asks vLLM's own speculative config for method mtp; a TP query runs in a world of its own
size, one process per rank, rank 0's records kept."""

from __future__ import annotations

import json
from pathlib import Path

from tools.engine_oracle import __main__ as oracle
from tools.engine_oracle import grid, tables

TABLE_0_33 = Path(__file__).resolve().parents[2] / "doctor" / "data" / "derived" / "vllm" / "0.33.0.json"


def test_drafter_queries_ask_method_mtp_of_configs_that_ship_an_mtp_layer():
    drafters = [q for q in grid.queries() if q.drafter]
    assert {q.shape for q in drafters} == {"mla-moe-mtp", "gqa-h128-moe-fp8-mtp", "gqa-h256-linear-moe-mtp",
                                           "gqa-h128-mamba-latent-moe"}
    for query in drafters:
        spec = json.loads(query.flags[query.flags.index("--speculative-config") + 1])
        assert spec == {"method": "mtp", "num_speculative_tokens": 1}
        assert query.id.endswith("+mtp") and tables.classify(query.config, query.drafter)["drafter"] == "mtp"
        # the MTP layer the drafter is built from: nextn layers, or Qwen3-Next's module (no config field)
        assert query.config.get("num_nextn_predict_layers", 0) >= 1 or query.config["model_type"] == "qwen3_next"
    assert not any(q.drafter for q in grid.queries(control=True))


def test_tp_queries_carry_their_size_and_no_others_do():
    for query in grid.queries():
        flagged = "--tensor-parallel-size" in query.flags
        assert flagged == (query.tp > 1), query.id
        if flagged:
            assert query.flags[query.flags.index("--tensor-parallel-size") + 1] == str(query.tp)


def test_each_tp_size_runs_in_a_world_of_its_own(monkeypatch):
    calls = []

    def fake_run(env, cap, jobs, variables, timeout_s=3600, tp=1):
        calls.append((tp, [job["id"] for job in jobs]))
        return [{"setup": {"tp": tp}}] + [{"id": job["id"]} for job in jobs]

    monkeypatch.setattr(oracle, "run_capability", fake_run)
    jobs = [{"id": "a"}, {"id": "b"}, {"id": "c"}]
    records = oracle._per_tp(None, "12.0", jobs, {"a": 1, "b": 2, "c": 1}, {})
    assert calls == [(1, ["a", "c"]), (2, ["b"])]
    assert records == [{"setup": {"tp": 1}}, {"id": "a"}, {"id": "c"}, {"id": "b"}]


def test_the_0_33_table_holds_the_drafters_and_rank_0_of_tp2():
    entries = json.loads(TABLE_0_33.read_text())["entries"]
    drafters = {e["grid"]: e for e in entries if e["capability"] == "12.0" and e["shape"].get("drafter")}
    assert drafters["mla-moe-mtp:native+mtp"]["drafter"]["architecture"] == "DeepSeekMTPModel"
    assert drafters["gqa-h128-moe-fp8-mtp:native+mtp"]["drafter"]["architecture"] == "Glm4MoeMTPModel"
    tp2 = [e for e in entries if e.get("tp") == 2]
    assert tp2 and all(e["engine_config"]["tensor_parallel_size"] == 2 for e in tp2)
    assert all(not e.get("tp") for e in entries if e["engine_config"].get("tensor_parallel_size", 1) == 1)
