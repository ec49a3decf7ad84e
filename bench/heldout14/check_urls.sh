#!/bin/bash
# The held-out sample 14's population check (bench/heldout_population_urls.sh). Usage: bench/heldout14/check_urls.sh [REF]
exec bash "$(dirname "$0")/../heldout_population_urls.sh" bench/heldout14 "${1:-main}"
