"""llama.cpp: build checks and rules so far (see engine.py)."""
