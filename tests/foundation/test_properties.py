"""Property-based: no config or facts file, however mangled, produces anything but a Model/Facts or
one InputError."""

import contextlib
import copy
import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from doctor.errors import InputError
from doctor.hardware import load_profile
from doctor.probe.model_config import parse_model
from doctor.validation.facts import facts_from_dict

BUNDLED = Path(__file__).resolve().parents[2] / "doctor" / "data" / "models"
CONFIGS = [json.loads(p.read_text()) for p in sorted(BUNDLED.glob("*/config.json"))]
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(10**20), max_value=10**20) | st.floats(allow_nan=True)
    | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=12)


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*prefix, k))


def _set(doc, path, value):
    if not path:
        return value
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return doc


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(index=st.integers(0, len(CONFIGS) - 1), data=st.data(), value=JSON_VALUES)
def test_mutated_configs_never_crash(index, data, value):
    config = copy.deepcopy(CONFIGS[index])
    paths = list(_paths(config))
    path = data.draw(st.sampled_from(paths))
    config = _set(config, path, value)
    try:
        parse_model(config, None, model_id="fuzz", source="local", source_path=None)
    except InputError as exc:
        assert "\n" not in str(exc)


@settings(max_examples=200, deadline=None)
@given(data=st.data(), value=JSON_VALUES)
def test_mutated_facts_never_crash(data, value):
    facts = load_profile(data.draw(st.sampled_from(["rtx-pro-6000-x8", "dgx-spark", "rtx-5090-x2"]))).to_dict()
    path = data.draw(st.sampled_from(list(_paths(facts))))
    doc = _set(facts, path, value)
    try:
        facts_from_dict(doc)
    except InputError as exc:
        assert "\n" not in str(exc)


@settings(max_examples=150, deadline=None)
@given(value=JSON_VALUES)
def test_arbitrary_json_as_config(value):
    with contextlib.suppress(InputError):
        parse_model(value, None, model_id="fuzz", source="local", source_path=None)
