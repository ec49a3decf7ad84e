"""The probe one node runs when the doctor gathers a cluster through Ray: this node's facts as a dict.

`SM120_DOCTOR_NODE_FACTS=FILE` in a node's environment makes the node answer with that facts file instead of
probing (the probe hook: what-if nodes, and tests that give each node of a local Ray cluster its own facts)."""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Any

NODE_FACTS_ENV = "SM120_DOCTOR_NODE_FACTS"


def probe_node() -> dict[str, Any]:
    from doctor.pipeline.gather import live_facts
    from doctor.validation.facts import load_facts

    environ = dict(os.environ)
    hook = environ.get(NODE_FACTS_ENV)
    facts = load_facts(Path(hook)) if hook else live_facts(environ)
    return {"facts": facts.to_dict(), "hostname": socket.gethostname()}
