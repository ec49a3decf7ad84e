"""humming-kernels (the PyPI name of the humming kernels vLLM's --moe-backend humming imports) is a package
`--engine` takes, under the names the reports use, so a deployment that states it is checked (VLLM460)."""

from __future__ import annotations

import pytest

from doctor.engines.registry import parse_engine_spec
from doctor.errors import UsageError


@pytest.mark.parametrize("spec", ["humming==0.1.10", "humming-kernels==0.1.10", "humming_kernels==0.1.10"])
def test_humming_names_are_humming_kernels(spec):
    lib = parse_engine_spec(spec)
    assert (lib.name, lib.version, lib.what_if) == ("humming-kernels", "0.1.10", True)


def test_an_unknown_package_is_still_refused():
    with pytest.raises(UsageError):
        parse_engine_spec("hummingbird==0.1.10")
