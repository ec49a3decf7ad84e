"""Engine knowledge: one folder per serving engine behind doctor.engines.base.Engine, found through
doctor.engines.registry (built-ins and the `sm120_doctor.engines` entry-point group)."""
