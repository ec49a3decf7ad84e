#!/bin/bash
# Which sample URLs (bench/heldout3/urls.txt) already appear in main's ledger, cases, known-good corpus, diagnose
# corpus or first two held-out samples. URLs are normalised: /pull/ = /issues/, lower case, no fragment, no trailing slash.
# Usage, from the repository root: bench/heldout3/check_urls.sh [REF]   (REF defaults to main)
set -u
ref=${1:-main}
known=$(mktemp)
git ls-tree -r --name-only "$ref" -- ledger tests/cases tests/knowngood tests/diagnose bench/heldout bench/heldout2 bench/RESULTS-heldout.md |
  grep -vE '\.(safetensors|bin|gguf)$' |
  while read -r f; do git show "$ref:$f"; done |
  grep -oiE 'https?://[^[:space:]"<>)|]+' |
  sed -E 's/#.*//; s#/pull/#/issues/#; s#[]/.,;'"'"']+$##' | tr 'A-Z' 'a-z' | sort -u > "$known"
while read -r id url; do
  n=$(echo "$url" | sed -E 's/#.*//; s#/pull/#/issues/#; s#/+$##' | tr 'A-Z' 'a-z')
  if grep -qxF "$n" "$known"; then echo "IN   $id $url"; else echo "new  $id $url"; fi
done < bench/heldout3/urls.txt
echo "($(wc -l < "$known") URLs in $ref)"
rm -f "$known"
