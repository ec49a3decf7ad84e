"""The TensorRT-LLM releases named in the research, oldest first (not every patch release)."""

RELEASES = ("0.17.0", "0.20.0", "1.0.0", "1.1.0", "1.2.0", "1.2.1")
