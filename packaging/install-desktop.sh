#!/usr/bin/env bash
# Install the bundle built by packaging/build.sh under ~/.local with a menu entry:
#   ~/.local/lib/litlens/         the bundle (dist/LitLens)
#   ~/.local/bin/litlens          a link to its `litlens`
#   ~/.local/share/applications/litlens.desktop and the icon in ~/.local/share/icons
# Usage: packaging/install-desktop.sh [BUNDLE_DIR]  (default dist/LitLens); PREFIX overrides ~/.local.
set -euo pipefail
cd "$(dirname "$0")/.."
BUNDLE="${1:-dist/LitLens}"
PREFIX="${PREFIX:-$HOME/.local}"
if [ ! -x "$BUNDLE/litlens" ]; then
    echo "install-desktop.sh: $BUNDLE/litlens not found; build it first with packaging/build.sh" >&2
    exit 2
fi
mkdir -p "$PREFIX/lib" "$PREFIX/bin" "$PREFIX/share/applications" "$PREFIX/share/icons/hicolor/128x128/apps"
rm -rf "$PREFIX/lib/litlens"
cp -a "$BUNDLE" "$PREFIX/lib/litlens"
ln -sf "$PREFIX/lib/litlens/litlens" "$PREFIX/bin/litlens"
cp resources/litlens.png "$PREFIX/share/icons/hicolor/128x128/apps/litlens.png"
sed "s|^Exec=litlens |Exec=$PREFIX/bin/litlens |" packaging/litlens.desktop > "$PREFIX/share/applications/litlens.desktop"
if command -v update-desktop-database >/dev/null; then update-desktop-database -q "$PREFIX/share/applications" || true; fi
echo "installed LitLens in $PREFIX/lib/litlens; run it from the menu or as $PREFIX/bin/litlens"
