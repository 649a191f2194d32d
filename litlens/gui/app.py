"""Start the reader window: ``litlens gui [FILE_OR_PROJECT] [--screenshot OUT.png] [--size WxH] [--panel NAME]``.

The helpers above ``run`` are plain Python (the CLI imports them before any Qt module), so a
machine without a display gets a one-line message instead of Qt's abort.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from litlens.gui.preview import application

PANELS = ("window", "reader", "inspector", "characters", "charts", "speakers", "evidence", "quotations", "audit")
DISPLAY_VARIABLES = ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")


def window_size(text: str) -> tuple[int, int]:
    """``"1366x768"`` -> (1366, 768), for ``--size``."""
    import argparse
    import re

    match = re.fullmatch(r"\s*(\d{2,5})\s*[xX×]\s*(\d{2,5})\s*", text)
    if not match:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size; write width x height in pixels, e.g. 1366x768")
    return int(match.group(1)), int(match.group(2))


# Libraries Qt's X11 platform plugin loads, and the Debian/Ubuntu package that has each.
QT_LIBRARY_PACKAGES = {
    "libxcb-cursor.so.0": "libxcb-cursor0", "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-keysyms.so.1": "libxcb-keysyms1", "libxcb-image.so.0": "libxcb-image0",
    "libxcb-render-util.so.0": "libxcb-render-util0", "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-randr.so.0": "libxcb-randr0", "libxcb-xkb.so.1": "libxcb-xkb1", "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0", "libxcb-shm.so.0": "libxcb-shm0", "libxcb-util.so.1": "libxcb-util1",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0", "libxkbcommon.so.0": "libxkbcommon0",
    "libX11-xcb.so.1": "libx11-xcb1", "libEGL.so.1": "libegl1", "libGL.so.1": "libgl1",
    "libOpenGL.so.0": "libopengl0", "libfontconfig.so.1": "libfontconfig1", "libdbus-1.so.3": "libdbus-1-3",
}


def not_found_in_ldd(output: str) -> list[str]:
    """The libraries ``ldd`` reports as "not found", each once, in order."""
    out: list[str] = []
    for line in output.splitlines():
        if "=> not found" in line:
            name = line.split("=>")[0].strip()
            if name not in out:
                out.append(name)
    return out


def missing_qt_libraries() -> list[str]:
    """Shared libraries Qt's X11 plugin needs and cannot find (Linux, via ldd); [] when all are
    there or when it cannot be told (no ldd, no plugin). Qt itself would only say "could not load
    the Qt platform plugin xcb" and abort, naming the wrong library."""
    import importlib.util
    import shutil
    import subprocess

    spec = importlib.util.find_spec("PySide6")
    ldd = shutil.which("ldd")
    if spec is None or not spec.submodule_search_locations or ldd is None:
        return []
    plugin = Path(spec.submodule_search_locations[0]) / "Qt" / "plugins" / "platforms" / "libqxcb.so"
    if not plugin.is_file():
        return []
    try:
        result = subprocess.run([ldd, str(plugin)], capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.SubprocessError):
        return []
    return not_found_in_ldd(result.stdout)


def display_problem(*, screenshot: bool = False, env: dict | None = None, platform: str | None = None) -> str | None:
    """Why the window cannot open here, or None. Only a Linux/BSD session with none of DISPLAY,
    WAYLAND_DISPLAY or QT_QPA_PLATFORM set is refused (Qt would abort on it); a screenshot
    needs no display (it renders offscreen)."""
    env = os.environ if env is None else env
    platform = sys.platform if platform is None else platform
    if screenshot or platform.startswith(("win", "darwin", "cygwin")):
        return None
    if any(env.get(name) for name in DISPLAY_VARIABLES):
        if env.get("QT_QPA_PLATFORM", "xcb").split(":")[0] != "xcb" or not env.get("DISPLAY"):
            return None
        missing = missing_qt_libraries()
        if not missing:
            return None
        packages = sorted({QT_LIBRARY_PACKAGES.get(name, name) for name in missing})
        return (f"Qt's X11 platform needs libraries this system lacks ({', '.join(missing)}). On Debian or Ubuntu: "
                f"sudo apt-get install {' '.join(packages)} (README, Requirements); without them, "
                "QT_QPA_PLATFORM=offscreen litlens gui --screenshot OUT.png still renders the window to a file")
    return ("no display to open the reader window on (DISPLAY, WAYLAND_DISPLAY and QT_QPA_PLATFORM are unset). "
            "On a server, `litlens sample` ingests and summarises the sample without a window, "
            "`litlens gui --screenshot OUT.png` saves a picture of the window, and QT_QPA_PLATFORM=offscreen "
            "runs the window with no screen")


def _open(window, target: Path | None) -> None:
    from litlens.gui.main_window import PROJECT_SUFFIXES, project_for
    from litlens.resources import sample_novel, sample_project

    if target is None:  # the bundled sample: ingested and attributed once, reopened at once afterwards
        from litlens.services.sample import prepare_sample

        window._pending = sample_project()
        window.runner.start(f"Reading {sample_novel().name} and attributing its speakers",
                            lambda progress, cancelled: prepare_sample(progress=progress, cancelled=cancelled)[0])
    elif target.suffix.lower() in PROJECT_SUFFIXES:
        window.open_project(target)
    else:
        window.ingest(target, project_for(target))


def _pick_example_quote(window) -> None:
    """For screenshots: select the first explicit quotation on screen so the inspector shows one;
    when none is on screen (a title page), show the book's first explicit quotation."""
    state = window.state
    view = window.reader.view
    rows = [r for r in view.highlighted if r.quotation.type == "explicit"] or view.highlighted
    if rows:
        state.select(rows[0])
    elif state.session is not None:
        first = next((r for r in state.session.quotes if r.quotation.type == "explicit"), None)
        if first is not None:
            state.show_quote(first)


def run(target: str | None = None, *, screenshot: str | None = None, panel: str = "window",
        size: tuple[int, int] | None = None) -> int:
    """Open the window on ``target`` (a novel or a project; the sample when None), at ``size``
    (width, height) when given: a screenshot of the whole window is then exactly that size."""
    if screenshot and "QT_QPA_PLATFORM" not in os.environ:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    if panel not in PANELS:
        raise ValueError(f"--panel must be one of {', '.join(PANELS)}")
    app = application()
    from PySide6.QtCore import QTimer

    from litlens.errors import LitLensError
    from litlens.gui.main_window import MainWindow

    window = MainWindow()
    window.show_dialogs = screenshot is None
    if size is not None:
        low = window.minimumSize()
        if size[0] < low.width() or size[1] < low.height():
            window.close()
            raise LitLensError(f"--size {size[0]}x{size[1]} is smaller than the window can be "
                               f"({low.width()}x{low.height()}); give at least that")
        window.fit_layout(size[0])
        window.resize(*size)
    else:
        window.fit_layout()
    window.show()
    outcome = {"code": 0}
    if screenshot:
        def save() -> None:
            app.processEvents()
            _pick_example_quote(window)
            app.processEvents()
            if panel in window.docks:  # a tabbed dock is drawn only when it is the visible tab
                window.docks[panel].raise_()
                app.processEvents()  # a panel that loads when its tab is first chosen does so now,
                app.processEvents()  # and its layout follows what it loaded
            # with --size the picture is the whole window at that size, the panel at the front;
            # without it, the panel alone
            whole = panel == "window" or size is not None
            widget = window if whole else ({"reader": window.reader}.get(panel) or window.docks[panel].widget())
            image = widget.grab().toImage()
            if whole and size is not None and (image.width(), image.height()) != size:
                from PySide6.QtCore import Qt

                # a high-density screen grabs device pixels: the file is still W×H as asked
                image = image.scaled(size[0], size[1], Qt.AspectRatioMode.IgnoreAspectRatio,
                                     Qt.TransformationMode.SmoothTransformation)
            if not image.save(screenshot):
                outcome["code"] = 1
                print(f"litlens: error: cannot write the screenshot to {screenshot}", file=sys.stderr)
            app.quit()

        def failed(message: str) -> None:
            print(f"litlens: error: {message.splitlines()[0]}", file=sys.stderr)
            outcome["code"] = 2
            app.quit()

        window.book_opened.connect(lambda: QTimer.singleShot(200, save))
        window.error_shown.connect(failed)
    QTimer.singleShot(0, lambda: _open(window, Path(target) if target else None))
    app.exec()
    return outcome["code"]
