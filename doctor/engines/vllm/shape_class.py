"""The model shape class the derived dispatch tables are keyed on: the engine-neutral toolkit's
(doctor/engines/derived_tables.py), named here for vLLM's derived view and the oracle."""

from __future__ import annotations

from doctor.engines.derived_tables import shape_class, shape_key

__all__ = ["shape_class", "shape_key"]
