"""How the SGLang runner publishes the server args before building a model, per release API (inside/sglang_runner.py
imports torch, so its publishing functions are taken from its source and run against stand-in SGLang modules with
the names each release has: `runtime_context.SpawnRanks` (0.5.21 on), `set_global_server_args_for_scheduler`
(0.5.4/0.5.5-0.5.20), `schedule_batch.global_server_args_dict` filled by ModelRunner (0.5.2, 0.5.3))."""

from __future__ import annotations

import enum
import sys
import types
from types import SimpleNamespace

import pytest

from tests.tools.runner_source import runner_functions

WANTED = ("_publish_for_scheduler", "_fill_global_server_args_dict", "_optional_import")


def _runner_functions() -> dict:
    return runner_functions("sglang_runner.py", WANTED)


class AttentionArch(enum.IntEnum):
    MLA = enum.auto()
    MHA = enum.auto()


class SpeculativeAlgorithm(enum.IntEnum):
    NONE = enum.auto()
    EAGLE = enum.auto()

    @staticmethod
    def from_string(name):
        return SpeculativeAlgorithm.NONE if name is None else SpeculativeAlgorithm[name.upper()]


def _module(name: str, **attributes) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__dict__.update(attributes)
    return module


@pytest.fixture
def sglang_053(monkeypatch):
    """The modules of a 0.5.3-shaped SGLang: no publishing function, the global dict ModelRunner fills."""
    keys = ["attention_backend", "chunked_prefill_size"]
    batch = _module("sglang.srt.managers.schedule_batch", GLOBAL_SERVER_ARGS_KEYS=keys,
                    global_server_args_dict={k: None for k in keys})
    modules = {"sglang": _module("sglang"), "sglang.srt": _module("sglang.srt"),
               "sglang.srt.server_args": _module("sglang.srt.server_args"),
               "sglang.srt.runtime_context": None,
               "sglang.srt.configs": _module("sglang.srt.configs"),
               "sglang.srt.configs.model_config": _module("sglang.srt.configs.model_config",
                                                          AttentionArch=AttentionArch),
               "sglang.srt.managers": _module("sglang.srt.managers", schedule_batch=batch),
               "sglang.srt.managers.schedule_batch": batch,
               "sglang.srt.speculative": _module("sglang.srt.speculative"),
               "sglang.srt.speculative.spec_info": _module("sglang.srt.speculative.spec_info",
                                                           SpeculativeAlgorithm=SpeculativeAlgorithm)}
    modules["sglang"].srt = modules["sglang.srt"]
    modules["sglang.srt"].server_args = modules["sglang.srt.server_args"]
    for name, module in modules.items():
        monkeypatch.setitem(sys.modules, name, module)
    return batch


def test_a_release_without_a_publishing_function_gets_the_dict_its_model_runner_fills(sglang_053):
    args = SimpleNamespace(attention_backend="flashinfer", chunked_prefill_size=8192, speculative_algorithm=None)
    config = SimpleNamespace(attention_arch=AttentionArch.MLA)
    published = _runner_functions()["_publish_for_scheduler"](args, config)
    assert published == "global_server_args_dict.update"
    assert sglang_053.global_server_args_dict == {"attention_backend": "flashinfer", "chunked_prefill_size": 8192,
                                                  "use_mla_backend": True,
                                                  "speculative_algorithm": SpeculativeAlgorithm.NONE}


def test_the_shim_is_used_where_the_release_has_it(sglang_053):
    seen = []
    sys.modules["sglang.srt.server_args"].set_global_server_args_for_scheduler = seen.append
    args = SimpleNamespace(attention_backend="triton", chunked_prefill_size=1, speculative_algorithm=None)
    published = _runner_functions()["_publish_for_scheduler"](args, SimpleNamespace(attention_arch=AttentionArch.MHA))
    assert published == "set_global_server_args_for_scheduler" and seen == [args]
    assert sglang_053.global_server_args_dict["attention_backend"] is None  # not touched
