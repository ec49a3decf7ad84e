#!/bin/bash
# The held-out sample 12's population check (bench/heldout_population_urls.sh). Usage: bench/heldout12/check_urls.sh [REF]
exec bash "$(dirname "$0")/../heldout_population_urls.sh" bench/heldout12 "${1:-main}"
