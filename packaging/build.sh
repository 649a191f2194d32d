#!/usr/bin/env bash
# Build the one-folder bundle dist/LitLens/ (run `dist/LitLens/litlens --version`, `... gui`).
# Usage: packaging/build.sh [PYTHON]   (default: .venv/bin/python, which must have LitLens installed)
# It installs PyInstaller into that environment if missing, builds from packaging/litlens.spec
# and prints the bundle's size and the build time.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${1:-.venv/bin/python}"
if ! "$PY" -c "import PyInstaller" 2>/dev/null; then
    "$PY" -m pip install -q "pyinstaller>=6.10"
fi
"$PY" -c "import torch, sys; sys.exit(0 if torch.version.cuda is None else 'install the CPU build of torch first: a CUDA torch makes a bundle of several GB')"
[ -f resources/litlens.png ] || "$PY" packaging/make_icon.py
start=$(date +%s)
"$PY" -m PyInstaller --noconfirm --clean --log-level WARN \
    --distpath dist --workpath build/pyinstaller packaging/litlens.spec
end=$(date +%s)
echo "built dist/LitLens in $((end - start)) s; size $(du -sh dist/LitLens | cut -f1)"
dist/LitLens/litlens --version
