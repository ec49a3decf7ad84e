"""What each Triton release compiles for SM12x, read by compiling a kernel with the real wheel (tools/triton_facts)."""
