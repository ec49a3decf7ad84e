"""TensorRT-LLM: launch composition and rules so far (see engine.py)."""
