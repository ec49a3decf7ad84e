"""sm120-doctor: preflight checks for LLM serving on SM120/SM121 Blackwell GPUs."""

__version__ = "0.1.0"
