#!/usr/bin/env bash
# make docs: the C reference manual, Doxygen over include/encore.h
# (support/docs/Doxyfile) and the API's rules on each function
# (scripts/doc-rules.py: build/docs/rules.dox), into build/docs/html (and
# build/docs/xml, what scripts/check-docs.py reads). Doxygen's warnings go to
# build/docs/warnings.log.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v doxygen >/dev/null || { echo "docs: doxygen is missing (apt-get install doxygen; scripts/deps.sh installs it)" >&2; exit 1; }
ENCORE_VERSION=$(sed -n 's/^#define ENCORE_VERSION_STRING "\(.*\)"/\1/p' Sources/CEncoreTypes/include/encore_types.h)
ENCORE_DOCS=build/docs
export ENCORE_VERSION ENCORE_DOCS
# Pages of an older header must not survive in the output.
rm -rf "$ENCORE_DOCS"
mkdir -p "$ENCORE_DOCS"
# The API's rules on each function's entry (Doxygen adds them to the header's own).
scripts/doc-rules.py "$ENCORE_DOCS/rules.dox" > /dev/null
doxygen support/docs/Doxyfile
echo "docs: $ENCORE_DOCS/html/index.html ($(find "$ENCORE_DOCS/html" -name '*.html' | wc -l) pages; warnings: $(wc -l < "$ENCORE_DOCS/warnings.log"))"
