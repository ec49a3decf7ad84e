"""The vLLM releases the doctor knows, oldest first.

FACT_RELEASES are the wheels whose flags, environment variables and kernel tables were read (doctor/data/vllm/,
tools/vllm_facts); RELEASES is every final release on PyPI from the oldest of those on, the patch releases
between them included (each is in doctor/data/engine_pins.json with the packages its wheel pins, and in the
derived model-support and parser tables). A patch release is judged by the newest FACT_RELEASES entry at or
below it (knowledge.known_release) plus its own pins, as `--engine vllm==0.27.1` is."""

FACT_RELEASES = ("0.9.2", "0.10.0", "0.11.0", "0.12.0", "0.13.0", "0.14.0", "0.15.0", "0.15.1", "0.16.0", "0.17.0",
                 "0.18.0", "0.19.0", "0.20.0", "0.21.0", "0.22.0", "0.23.0", "0.24.0", "0.25.0", "0.26.0", "0.27.0",
                 "0.28.0", "0.29.0", "0.30.0", "0.31.0", "0.32.0", "0.33.0")  # = doctor/data/vllm/index.json

RELEASES = ("0.9.2", "0.10.0", "0.10.1", "0.10.1.1", "0.10.2", "0.11.0", "0.11.1", "0.11.2", "0.12.0", "0.13.0",
            "0.14.0", "0.14.1", "0.15.0", "0.15.1", "0.16.0", "0.17.0", "0.17.1", "0.18.0", "0.18.1", "0.19.0",
            "0.19.1", "0.20.0", "0.20.1", "0.20.2", "0.21.0", "0.22.0", "0.22.1", "0.23.0", "0.24.0", "0.25.0",
            "0.25.1", "0.26.0", "0.27.0", "0.27.1", "0.28.0", "0.29.0", "0.30.0", "0.31.0", "0.32.0",
            "0.33.0")  # = the final releases of doctor/data/engine_pins.json from FACT_RELEASES[0] on
