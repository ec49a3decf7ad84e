"""The stages of `check`, in the order data flows through them:

facts.py (what the probe found) → analysis.py (one Analysis per engine run) → context.py (the dotted paths
rules read) → rules.py (rules/*.toml evaluated) → report.py (findings, launches) → upgrades.py (the lowest
release that clears an upgrade fix); check.py wires them together (`run_check`, the pure `check_facts`).
"""
