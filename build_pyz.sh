#!/usr/bin/env bash
# Build cruxe.pyz: one file holding cruxe and its dependencies (compiled wheels included).
# Reproducible: shiv --reproducible fixes timestamps, SOURCE_DATE_EPOCH fixes the rest.
# Usage: bash build_pyz.sh [OUTPUT]   (default: ./cruxe.pyz; needs `pip install shiv`)
set -euo pipefail
cd "$(dirname "$0")"
out=${1:-cruxe.pyz}
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1767225600}
python3 -m shiv --reproducible --compressed -p '/usr/bin/env python3' -c cruxe -o "$out" . >/dev/null
python3 - "$out" <<'PY'
import os, sys
size = os.path.getsize(sys.argv[1])
print(f"{sys.argv[1]}: {size / 1e6:.1f} MB")
if size > 10_000_000:
    sys.exit("cruxe.pyz is over the 10 MB budget")
PY
