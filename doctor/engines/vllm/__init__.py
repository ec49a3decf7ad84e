"""vLLM: launch composition and rules so far; kernel plan and memory model to come (see engine.py)."""
