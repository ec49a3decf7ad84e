#!/bin/bash
# Which URLs of a held-out sample (SAMPLE/urls.txt: "ID URL" per line) already appear in a ref of the repository.
# "IN" = in the folders a draw skips (ledger, cases, known-good corpus, diagnose corpus, the other held-out samples);
# "ELSEWHERE" = anywhere else in the tree (rules, docs, fixtures, bench results: the report was studied, so it is no
# longer held out); "new" = nowhere. URLs are normalised: /pull/ = /issues/, lower case, no fragment, no trailing
# slash. Usage, from the repository root: bench/heldout_check_urls.sh SAMPLE [REF]   (REF defaults to main)
set -u
sample=${1%/}
ref=${2:-main}
known=$(mktemp)
others=$(git ls-tree -d --name-only "$ref" -- bench/ | grep -E '^bench/heldout[0-9]*$' | grep -vxF "$sample")
git ls-tree -r --name-only "$ref" -- ledger tests/cases tests/knowngood tests/diagnose $others bench/RESULTS-heldout.md |
  grep -vE '\.(safetensors|bin|gguf)$' |
  while read -r f; do git show "$ref:$f"; done |
  grep -oiE 'https?://[^[:space:]"<>)|]+' |
  sed -E 's/#.*//; s#/pull/#/issues/#; s#[]/.,;'"'"']+$##' | tr 'A-Z' 'a-z' | sort -u > "$known"
while read -r id url; do
  n=$(echo "$url" | sed -E 's/#.*//; s#/pull/#/issues/#; s#/+$##' | tr 'A-Z' 'a-z')
  if grep -qxF "$n" "$known"; then echo "IN        $id $url"; continue; fi
  path=$(echo "$n" | sed -E 's#^https://github.com/##; s#/issues/#/(pull|issues)/#')
  where=$(git grep -liE "${path}([^0-9]|\$)" "$ref" -- . ":!$sample" ':!bench/RESULTS-heldout.md' 2>/dev/null |
    sed "s#^$ref:##" | head -4 | tr '\n' ' ')
  if [ -n "$where" ]; then echo "ELSEWHERE $id $url ($where)"; else echo "new       $id $url"; fi
done < "$sample/urls.txt"
echo "($(wc -l < "$known") URLs in $ref's skipped folders)"
rm -f "$known"
