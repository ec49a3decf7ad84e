#!/bin/bash
# The held-out sample 13's population check (bench/heldout_population_urls.sh). Usage: bench/heldout13/check_urls.sh [REF]
exec bash "$(dirname "$0")/../heldout_population_urls.sh" bench/heldout13 "${1:-main}"
