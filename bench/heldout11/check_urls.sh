#!/bin/bash
# The held-out check of bench/heldout_check_urls.sh for this sample. Usage: bench/heldout11/check_urls.sh [REF]
exec bash "$(dirname "$0")/../heldout_check_urls.sh" bench/heldout11 "${1:-main}"
