"""Against the real wheels (three: the 0.15.0/0.15.1 boundary and the newest): the committed data is what
the extractor reads from them, each flag it lists is defined in the wheel's own source, and the launch
commands the doctor composes use only flags the wheel defines."""

from __future__ import annotations

import re
import zipfile
from functools import cache

import pytest

from doctor.engines.vllm import knowledge
from tests.engines.vllm.launch_check import MODELS, USER_FLAGS, launch_for
from tests.wheels import download_wheel
from tools.vllm_facts import extract

pytestmark = [pytest.mark.slow, pytest.mark.wheel]
BOUNDARY = ("0.15.0", "0.15.1", "0.33.0")


@cache
def extracted(version: str) -> dict:
    return extract(download_wheel("vllm", version), audit_binaries=False)


@cache
def sources(version: str) -> dict[str, str]:
    with zipfile.ZipFile(download_wheel("vllm", version)) as archive:
        return {n: archive.read(n).decode("utf-8") for n in archive.namelist()
                if n.endswith(".py") and n.startswith(("vllm/engine/", "vllm/entrypoints/", "vllm/config"))}


def defined_in_wheel(version: str, flag: str, entry: dict) -> bool:
    """Independent of the extractor: a string literal of the flag in the file the data names, or, for a flag
    generated from a config dataclass field, that field annotated in the wheel's config sources."""
    text = sources(version)
    if f'"{flag}"' in text.get(entry["file"], "") or f"'{flag}'" in text.get(entry["file"], ""):
        return True
    if "field" in entry:
        field = entry["field"].split(".")[1]
        pattern = re.compile(rf"^\s+{re.escape(field)}\s*:", re.M)
        return any(pattern.search(t) for t in text.values())
    return False


@pytest.mark.parametrize("version", BOUNDARY)
def test_committed_data_is_what_the_wheel_says(version):
    committed = dict(knowledge.facts(version))
    committed.pop("binaries")
    assert extracted(version) == committed


@pytest.mark.parametrize("version", BOUNDARY)
def test_every_flag_is_defined_in_the_wheel_source(version):
    facts = knowledge.facts(version)
    missing = [f for f, entry in facts["flags"].items() if not defined_in_wheel(version, f, entry)]
    assert missing == []


@pytest.mark.parametrize("version", BOUNDARY)
@pytest.mark.parametrize("model", MODELS)
def test_composed_commands_use_only_the_wheels_own_flags(version, model):
    facts = knowledge.facts(version)
    spellings = {s: name for name, e in facts["flags"].items()
                 for s in [name, *e["aliases"], *(["--no-" + name[2:]] if e.get("boolean_optional") else [])]}
    launch = launch_for(model, "rtx-pro-6000-x8", version, USER_FLAGS[model])
    for token in launch["argv"][3:]:
        if token.startswith("-"):
            name = spellings.get(token)
            assert name is not None, (token, launch["argv"])
            assert defined_in_wheel(version, name, facts["flags"][name]), token
