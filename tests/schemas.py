"""Validating a document against the published schemas (doctor/formats/schema), their cross-references
(report → facts, lint → report, ...) resolved among themselves, never over the network."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
from referencing import Registry, Resource

SCHEMA_DIR = Path(__file__).resolve().parents[1] / "doctor" / "formats" / "schema"


def load(name: str, folder: Path = SCHEMA_DIR) -> dict[str, Any]:
    return json.loads((folder / f"{name}.schema.json").read_text(encoding="utf-8"))


def validator(name: str, folder: Path = SCHEMA_DIR) -> jsonschema.Draft202012Validator:
    schemas = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.schema.json"))]
    registry = Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in schemas)
    schema = load(name, folder)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema, registry=registry)


def validate(name: str, document: Any, folder: Path = SCHEMA_DIR) -> None:
    validator(name, folder).validate(document)


def is_valid(name: str, document: Any) -> bool:
    return validator(name).is_valid(document)
