"""`sm120-doctor diagnose LOG`: read an engine log, traceback or collect_env dump (stream.py), take the deployment
it states (formats/, one parser per log format), fill the rest from this machine or a profile (deployment.py),
run the check pipeline on it and rank the findings that explain the logged error (signatures.py, explain.py)."""
