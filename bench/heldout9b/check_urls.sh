#!/bin/bash
# The held-out check of bench/heldout_check_urls.sh for this sample. Usage: bench/heldout9b/check_urls.sh [REF]
exec bash "$(dirname "$0")/../heldout_check_urls.sh" bench/heldout9b "${1:-main}"
