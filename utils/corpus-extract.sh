#!/bin/sh
# Extract the source files of a fetched public repository for
# utils/bench-corpus.py: a fetch keeps a bare snapshot whose largest files
# (data, documents) may be absent, so `git archive` fails on it. Only the
# C, C++ and CUDA sources and headers are written, and DEST/.kv-corpus
# records the repository and commit, which the report names.
#   utils/corpus-extract.sh GIT_DIR OWNER/NAME DEST
set -eu
if [ $# -ne 3 ]; then
  echo "usage: $0 GIT_DIR OWNER/NAME DEST" >&2
  exit 3
fi
git_dir=$1 name=$2 dest=$3
commit=$(git --git-dir="$git_dir" rev-parse HEAD)
mkdir -p "$dest"
git --git-dir="$git_dir" ls-tree -r HEAD |
  awk '$2 == "blob" && $4 ~ /\.(cu|cuh|h|hpp|c|cc|cpp|inl)$/ {print $3 " " $4}' |
  while read -r obj path; do
    mkdir -p "$dest/$(dirname "$path")"
    git --git-dir="$git_dir" cat-file blob "$obj" >"$dest/$path" 2>/dev/null ||
      rm -f "$dest/$path"
  done
echo "$name $commit" >"$dest/.kv-corpus"
