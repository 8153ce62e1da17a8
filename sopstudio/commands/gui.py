"""`sopstudio gui [FILE] [--screenshot OUT.png] [--simulate ...]`: the application.

Qt is imported only when this command runs, so the rest of the CLI stays Qt-free.
"""

from __future__ import annotations

import os
import sys

from ..core.errors import SopStudioError
from ._common import load_or_exit

NAME = "gui"
HELP = "open the SOP Studio application (optionally render a screenshot and exit)"


class GuiUsageError(SopStudioError):
    """Flags that do not go together."""


def add_arguments(parser) -> None:
    parser.add_argument("file", nargs="?", help="a .sop.json document to open")
    parser.add_argument("--screenshot", metavar="OUT.png",
                        help="render the main window to OUT.png and exit")
    parser.add_argument("--simulate", action="store_true",
                        help="with --screenshot: run a simulation in the pane first")
    parser.add_argument("--journey", type=int, metavar="N", help="journey number to simulate")
    parser.add_argument("--scenario", metavar="TYPE",
                        help="correct | missing-parameter | failing-function")
    parser.add_argument("--steps", type=int, metavar="K", help="simulate K events only")


def _choose_platform(screenshot: bool) -> None:
    """Without a display, a screenshot renders offscreen; a window cannot open at all, and Qt
    would abort the process, so say so in one line instead."""
    has_display = any(os.environ.get(v) for v in ("DISPLAY", "WAYLAND_DISPLAY"))
    if has_display or os.environ.get("QT_QPA_PLATFORM") or sys.platform in ("win32", "darwin"):
        return
    if screenshot:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        return
    raise GuiUsageError("no display found: run it in a desktop session, under "
                        "'xvfb-run -a sopstudio gui ...', or use --screenshot")


def run(args) -> int:
    if args.simulate and not (args.file and args.screenshot):
        raise GuiUsageError("--simulate needs FILE and --screenshot OUT.png")
    if args.file:
        load_or_exit(args.file, strict=False)  # unreadable file: exit 2 before any window
    _choose_platform(bool(args.screenshot))
    from ..qt.app import run as run_app
    simulate = None
    if args.simulate:
        simulate = {"journey": args.journey, "scenario": args.scenario, "steps": args.steps}
    return run_app(args.file, args.screenshot, simulate)
