"""The probes: one module per source of facts (NVML, installed distributions, fatbins, nvcc and llama.cpp
builds, host, environment, network, the model's config). Each takes what it reads as arguments; gathering
them into one Facts tree, with every engine's distributions, is doctor/pipeline/gather.py."""
