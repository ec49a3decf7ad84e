"""The rule engine and the first rules, each with a positive and a negative case built from facts."""

import dataclasses
from pathlib import Path

import pytest

from doctor.hardware import load_profile
from doctor.launch import parse_launch
from doctor.pipeline.analysis import analyze
from doctor.pipeline.context import build_context
from doctor.pipeline.facts import Driver, Library, Source
from doctor.pipeline.gather import with_engines
from doctor.pipeline.rules import RuleError, evaluate, load_rules, render
from doctor.probe.model import load_model


def findings_for(facts, *launch_args):
    launch = parse_launch(list(launch_args))
    context = build_context(facts, analyze(facts, launch), launch)
    return {f.id: f for f in evaluate(load_rules(), context)}


def profile(name, model=None, engines=(), **libraries):
    facts = with_engines(load_profile(name), engines)
    if libraries:
        facts = facts.replace(libraries={**facts.libraries, **libraries})
    if model:
        facts = facts.replace(model=load_model(model, {}))
    return facts


def torch_lib(version, cuda, archs=None):
    details = {"cuda_version": cuda}
    if archs is not None:
        details["arch_list"] = archs
    return Library(name="torch", version=version, details=details)


def test_all_shipped_rules_load():
    rules = load_rules()
    assert len({r.id for r in rules}) == len(rules) >= 4
    assert all(r.all_references() for r in rules)


# --- SGL101 ---------------------------------------------------------------------------------------

def test_sgl101_positive_mla_on_058():
    found = findings_for(profile("rtx-pro-6000-x8", "moonshotai/Kimi-K2.5", ["sglang==0.5.8"]))
    assert found["SGL101"].evidence["item.bytes"] == 106496


def test_sgl101_positive_head_dim_256_forced_triton():
    facts = profile("rtx-5090", "meta-llama/Llama-3.1-8B-Instruct", ["sglang==0.5.8"])
    att = dataclasses.replace(facts.model.attention, head_dim=256, v_head_dim=256)
    facts = facts.replace(model=dataclasses.replace(facts.model, attention=att))
    assert findings_for(facts, "--attention-backend", "triton")["SGL101"].evidence["item.bytes"] == 114688


@pytest.mark.parametrize("version", ["0.5.9", "0.5.14", "0.5.23"])
def test_sgl101_negative_from_059(version):
    assert "SGL101" not in findings_for(profile("rtx-pro-6000-x8", "moonshotai/Kimi-K2.5", [f"sglang=={version}"]))


def test_sgl101_negative_on_hopper_and_for_gqa_default_backend():
    assert "SGL101" not in findings_for(profile("h100-sxm-x8", "moonshotai/Kimi-K2.5", ["sglang==0.5.8"]))
    # GQA on SM12x defaults to flashinfer: no Triton extend kernel at all
    assert "SGL101" not in findings_for(profile("rtx-5090", "meta-llama/Llama-3.1-8B-Instruct", ["sglang==0.5.8"]))


def test_sgl101_boundary_0_5_8_post1_still_overflows():
    assert "SGL101" in findings_for(profile("rtx-pro-6000-x8", "moonshotai/Kimi-K2.5", ["sglang==0.5.8.post1"]))


# --- TORCH001 -------------------------------------------------------------------------------------

def test_torch001_positive_cuda_126_build():
    found = findings_for(profile("rtx-5090", torch=torch_lib("2.7.0", "12.6")))
    assert "TORCH001" in found


def test_torch001_positive_arch_list_without_sm120():
    found = findings_for(profile("rtx-5090", torch=torch_lib("2.9.1", "12.8", ["sm_80", "sm_90"])))
    assert "TORCH001" in found


@pytest.mark.parametrize("archs", [["sm_80", "sm_90", "sm_100", "sm_120"], ["sm_90", "compute_120"], None])
def test_torch001_negative_cu128_builds(archs):
    assert "TORCH001" not in findings_for(profile("rtx-5090", torch=torch_lib("2.9.1", "12.8", archs)))


def test_torch001_negative_on_hopper():
    assert "TORCH001" not in findings_for(profile("h100-sxm-x8", torch=torch_lib("2.7.0", "12.6")))


# --- DRV001 ---------------------------------------------------------------------------------------

def with_driver(name, version):
    return load_profile(name).replace(driver=Driver(present=True, driver_version=version))


@pytest.mark.parametrize(("version", "fires"), [("565.57.01", True), ("569.99", True), ("570.26", False),
                                                 ("580.95.05", False)])
def test_drv001_boundary(version, fires):
    assert ("DRV001" in findings_for(with_driver("rtx-pro-6000-x8", version))) is fires


def test_drv001_negative_hopper_and_unknown_driver():
    assert "DRV001" not in findings_for(with_driver("h100-sxm-x8", "535.104.05"))
    assert "DRV001" not in findings_for(load_profile("rtx-5090"))  # profile: driver version unknown


# --- HW001 ----------------------------------------------------------------------------------------

def test_hw001_only_for_live_probe_without_driver():
    live = load_profile("rtx-5090").replace(source=Source(kind="live"), gpus=(), topology=(),
                                            driver=Driver(present=False, error="NVML Shared Library Not Found"))
    assert "HW001" in findings_for(live)
    assert "HW001" not in findings_for(load_profile("rtx-5090"))


# --- engine mechanics -----------------------------------------------------------------------------

def test_render_missing_values_and_lists():
    assert render("{a.b} {a.c} {x}", {"a": {"b": [1, 2]}}) == "1, 2 not known not known"
    assert render("{a.b}", {"a": {"b": []}}) == "none"


BAD_RULES = [
    ('[[rules]]\nid = "bad"\n', "missing"),
    ('[[rules]]\nid="SGL900"\narea="x"\ntitle="t"\nseverity="fatal"\nsummary="s"\nwhy="w"\nmessage="m"\n'
     'when=[]\nreferences=["r"]\n', "severity"),
    ('[[rules]]\nid="SGL900"\narea="x"\ntitle="t"\nseverity="error"\nsummary="s"\nwhy="w"\nmessage="m"\n'
     'when=[{fact="a", eqq=1}]\nreferences=["r"]\n', "exactly one"),
    ('[[rules]]\nid="SGL900"\narea="x"\ntitle="t"\nseverity="error"\nsummary="s"\nwhy="w"\nmessage="m"\n'
     'when=[{fact="a", version="<<1"}]\nreferences=["r"]\n', "version specifier"),
    ('[[rules]]\nid="SGL900"\narea="x"\ntitle="t"\nseverity="error"\nsummary="s"\nwhy="w"\nmessage="m"\n'
     'when=[]\nreferences=[]\n', "reference"),
    ('[[rules]]\nid="SGL900"\narea="x"\ntitle="t"\nseverity="error"\nsummary="s"\nwhy="w"\nmessage="m"\n'
     'when=[]\nreferences=["r"]\nfixs=[]\n', "unknown key"),
    ('[[rules]]\nid="SGL900"\narea="x"\ntitle="t"\nseverity="error"\nsummary="s"\nwhy="w"\nmessage="m"\n'
     'when=[]\nreferences=["r"]\n[[rules.fixes]]\nkind="flag"\nsafety="maybe"\nsummary="s"\n', "safety"),
    ("this is = not toml [", "rule file"),
    ('[[rules]]\nid="SGL900"\narea="x"\ntitle="t"\nseverity="error"\nsummary="s"\nwhy="w"\nmessage="m"\n'
     'when=[]\nreferences=["r"]\n[rules.engine_references]\nvllmm=["u"]\n', "not one of"),
    ('[[rules]]\nid="SGL900"\narea="x"\ntitle="t"\nseverity="error"\nsummary="s"\nwhy="w"\nmessage="m"\n'
     'when=[{any=[{all=[]}]}]\nreferences=["r"]\n', "'all' condition"),
    ('[[rules]]\nid="SGL900"\narea="x"\ntitle="t"\nseverity="error"\nsummary="s"\nwhy="w"\nmessage="m"\n'
     'when=[]\nreferences=[]\n[rules.engine_references]\nvllm=[]\n', "non-empty list"),
]


@pytest.mark.parametrize(("text", "expected"), BAD_RULES)
def test_rule_files_fail_loudly(tmp_path: Path, text, expected):
    (tmp_path / "bad.toml").write_text(text)
    with pytest.raises(RuleError, match=expected):
        load_rules(tmp_path)


def test_duplicate_ids_rejected(tmp_path: Path):
    rule = ('[[rules]]\nid="SGL900"\narea="x"\ntitle="t"\nseverity="error"\nsummary="s"\nwhy="w"\nmessage="m"\n'
            'when=[]\nreferences=["r"]\n')
    (tmp_path / "a.toml").write_text(rule)
    (tmp_path / "b.toml").write_text(rule)
    with pytest.raises(RuleError, match="twice"):
        load_rules(tmp_path)


def test_context_roots_are_exactly_what_build_context_builds():
    from doctor.pipeline.context import context_roots

    facts = profile("rtx-5090", "meta-llama/Llama-3.1-8B-Instruct", ["sglang==0.5.8"])
    launch = parse_launch([])
    assert tuple(build_context(facts, analyze(facts, launch), launch)) == context_roots()


def test_all_inside_any_is_an_and(tmp_path: Path):
    """`{ any = [{ all = [a, b] }, c] }` holds for a and b together, or for c."""
    (tmp_path / "r.toml").write_text(
        '[[rules]]\nid="SGL900"\narea="x"\ntitle="t"\nseverity="error"\nsummary="s"\nwhy="w"\nmessage="m"\n'
        'when=[{any=[{all=[{fact="env.A", eq="1"}, {fact="env.B", eq="1"}]}, {fact="env.C", eq="1"}]}]\n'
        'references=["r"]\n')
    rules = load_rules(tmp_path)
    fired = {name: bool(evaluate(rules, {"env": env})) for name, env in
             {"a and b": {"A": "1", "B": "1"}, "a alone": {"A": "1"}, "c": {"C": "1"}, "none": {}}.items()}
    assert fired == {"a and b": True, "a alone": False, "c": True, "none": False}
