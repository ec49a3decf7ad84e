"""The signatures of rules/enc4_lines.toml on the lines the fourth held-out sample's reports quote: torch's
row-wise FP8 refusal (FlashML-org/FreeToken#277), claimed only on an SM12x GPU, and vLLM's Qwen3.5 loader skipping
the Gated DeltaNet input projections (Avarok-Cybersecurity/dgx-vllm#5), claimed for those tensors only."""

from __future__ import annotations

from tests.diagnose.corpus import diagnose_on, diagnose_text, rules_named

ROWWISE = "RuntimeError: Rowwise scaling is not currently supported on your device\n"
SKIPPED = ("(EngineCore_DP0 pid=101) WARNING [qwen3_5.py:500] Parameter layers.0.linear_attn.in_proj_ba.weight not "
           "found in params_dict, skip loading\n")


def test_the_rowwise_refusal_is_krn050s_on_every_sm12x_part():
    for profile in ("rtx-pro-4000", "rtx-5090", "dgx-spark"):
        assert rules_named(diagnose_on(ROWWISE, profile))[:1] == ["KRN050"], profile


def test_the_rowwise_refusal_is_not_claimed_on_hopper_or_datacenter_blackwell():
    """On 9.0 or 10.0 the line means a Windows or ROCm build, not a missing SM12x kernel."""
    assert "KRN050" not in rules_named(diagnose_on(ROWWISE, "h100-sxm-x8"))
    assert "KRN050" not in rules_named(diagnose_on(ROWWISE, "b200-x8"))


def test_the_rowwise_refusal_without_a_gpu_is_not_claimed():
    assert "KRN050" not in rules_named(diagnose_text(ROWWISE))


def test_a_skipped_gdn_projection_is_ckpt060s_on_any_gpu():
    assert rules_named(diagnose_text(SKIPPED))[:1] == ["CKPT060"]
    assert rules_named(diagnose_on(SKIPPED, "h100-sxm-x8"))[:1] == ["CKPT060"]
    prefixed = SKIPPED.replace("layers.0", "model.language_model.layers.12").replace("in_proj_ba", "in_proj_qkvz")
    assert rules_named(diagnose_text(prefixed))[:1] == ["CKPT060"]


def test_other_skipped_parameters_are_not_claimed():
    """A skipped bias, scale or attention weight is another loader mismatch, not the GDN projections."""
    for name in ("layers.3.self_attn.qkv_proj.bias", "layers.0.mlp.experts.w13_weight_scale",
                 "layers.0.linear_attn.conv1d.weight", "layers.0.linear_attn.in_proj_ba.input_scale"):
        line = f"WARNING [qwen3_5.py:500] Parameter {name} not found in params_dict, skip loading\n"
        assert "CKPT060" not in rules_named(diagnose_text(line)), name
