#!/bin/sh
# Print the path of the first Python >= 3.12 that actually runs: python3.13, python3.12, python3,
# then any pyenv-installed 3.12+ interpreter (pyenv's bare shims may refuse to run). Exit 1 if none.
ok() { "$1" -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1; }
for c in python3.13 python3.12 python3; do
  if command -v "$c" >/dev/null 2>&1 && ok "$c"; then command -v "$c"; exit 0; fi
done
root=$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")
for c in "$root"/versions/3.13*/bin/python3 "$root"/versions/3.12*/bin/python3; do
  if [ -x "$c" ] && ok "$c"; then echo "$c"; exit 0; fi
done
echo "no Python >= 3.12 found (tried python3.13, python3.12, python3 and pyenv versions)" >&2
exit 1
