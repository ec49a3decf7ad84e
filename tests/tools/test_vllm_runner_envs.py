"""The vLLM runner forgets what a query assigned onto `vllm.envs` (inside/vllm_runner.py imports torch, so the two
functions are taken from its source and run against a module built as vLLM 0.12.0's envs.py is: lookups through
a module `__getattr__` over `environment_variables`, and platforms/cuda.py assigning `envs.VLLM_ATTENTION_BACKEND`)."""

from __future__ import annotations

import os
import sys
import types

import pytest

from tests.tools.runner_source import runner_functions

WANTED = ("_envs_attributes", "_forget_envs_assignments")


def _runner_functions() -> dict:
    return runner_functions("vllm_runner.py", WANTED)


def _envs_module() -> types.ModuleType:
    envs = types.ModuleType("vllm.envs")
    envs.environment_variables = {"VLLM_ATTENTION_BACKEND": lambda: os.environ.get("VLLM_ATTENTION_BACKEND"),
                                  "VLLM_USE_V1": lambda: os.environ.get("VLLM_USE_V1", "1")}

    def lookup(name: str):
        if name in envs.environment_variables:
            return envs.environment_variables[name]()
        raise AttributeError(name)

    envs.__getattr__ = lookup
    return envs


@pytest.fixture
def envs(monkeypatch):
    module = _envs_module()
    monkeypatch.setitem(sys.modules, "vllm.envs", module)
    monkeypatch.delenv("VLLM_ATTENTION_BACKEND", raising=False)
    return module


def test_an_assignment_made_during_a_query_is_forgotten(envs):
    runner = _runner_functions()
    before = runner["_envs_attributes"]()
    envs.VLLM_ATTENTION_BACKEND = "CUTLASS_MLA"  # what 0.12.0's check_and_update_config does on 10.0
    assert envs.VLLM_ATTENTION_BACKEND == "CUTLASS_MLA"
    runner["_forget_envs_assignments"](before)
    assert envs.VLLM_ATTENTION_BACKEND is None  # read from the environment again, as a fresh process would


def test_what_the_module_held_before_the_query_and_other_names_stay(envs):
    runner = _runner_functions()
    envs.VLLM_USE_V1 = "0"  # held before the query: not the query's to undo
    before = runner["_envs_attributes"]()
    envs.some_helper = "kept"
    runner["_forget_envs_assignments"](before)
    assert envs.VLLM_USE_V1 == "0" and envs.some_helper == "kept"


def test_without_vllm_envs_nothing_happens(monkeypatch):
    monkeypatch.delitem(sys.modules, "vllm.envs", raising=False)
    runner = _runner_functions()
    assert runner["_envs_attributes"]() == set()
    runner["_forget_envs_assignments"](set())
