"""tools/vllm_backend_names.py reads AttentionBackendEnum's members from a release's registry.py and names the
class reprs of a table by them, refusing a repr no member names."""

from __future__ import annotations

import pytest

from tools.vllm_backend_names import class_reprs, enum_members, renamed

REGISTRY = '''
class AttentionBackendEnum(Enum, metaclass=_AttentionBackendEnumMeta):
    FLASH_ATTN = "vllm.v1.attention.backends.flash_attn.FlashAttentionBackend"
    FLASHINFER_MLA_SPARSE = (
        "vllm.v1.attention.backends.mla.flashinfer_mla_sparse."
        "FlashInferMLASparseTRTLLMBackend"
    )
    TORCH_SDPA = ""  # this tag is only used for ViT
'''


def test_members_by_class_path_with_adjacent_literals_joined_and_empty_values_left_out():
    assert enum_members(REGISTRY) == {
        "vllm.v1.attention.backends.flash_attn.FlashAttentionBackend": "FLASH_ATTN",
        "vllm.v1.attention.backends.mla.flashinfer_mla_sparse.FlashInferMLASparseTRTLLMBackend":
            "FLASHINFER_MLA_SPARSE"}


def test_reprs_are_named_and_names_kept():
    table = {"entries": [{"attention": {"valid": [
        "<class 'vllm.v1.attention.backends.flash_attn.FlashAttentionBackend'>", "TRITON_ATTN"]}}]}
    assert class_reprs(table)
    assert renamed(table, enum_members(REGISTRY))["entries"][0]["attention"]["valid"] == ["FLASH_ATTN", "TRITON_ATTN"]
    assert not class_reprs(table)


def test_a_repr_no_member_names_is_refused():
    table = {"entries": [{"attention": {"valid": ["<class 'vllm.somewhere.NewBackend'>"]}}]}
    with pytest.raises(SystemExit, match="no AttentionBackendEnum member"):
        renamed(table, enum_members(REGISTRY))
