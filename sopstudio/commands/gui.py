"""`sopstudio gui [FILE] [--screenshot OUT.png] [--simulate ...]`: the application.

Qt is imported only when this command runs, so the rest of the CLI stays Qt-free.
"""

from __future__ import annotations

import os
import sys

from ..core.errors import SopStudioError
from ..engine.scenarios import SCENARIO_TYPES
from ..engine.session import JOURNEY_LIST_LIMIT  # the pane lists at most this many journeys
from ._common import UsageError, load_or_exit

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
    parser.add_argument("--batch", action="store_true",
                        help="with --screenshot: run the covering batch and render the window "
                             "beside the batch dialog")
    parser.add_argument("--journey", type=int, metavar="N",
                        help="journey number to simulate, as the pane lists them (default 0)")
    parser.add_argument("--scenario", choices=SCENARIO_TYPES, metavar="TYPE",
                        help="correct (default) | missing-parameter | failing-function")
    parser.add_argument("--steps", type=int, metavar="K", help="simulate K events only (K >= 1)")
    parser.add_argument("--theme", choices=("system", "light", "dark"),
                        help="colours for this run (default: the one chosen in View ▸ Theme)")


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


def _check_simulation(args, sop) -> None:
    """--journey within the pane's list and --steps >= 1, said in one line before any window."""
    if args.steps is not None and args.steps < 1:
        raise UsageError(f"--steps must be 1 or more (got {args.steps})")
    journey = args.journey or 0
    if journey < 0:
        raise UsageError(f"--journey must be 0 or more (got {journey})")
    from ..core.journeys import JourneyGraph
    count = min(JourneyGraph(sop).count(), JOURNEY_LIST_LIMIT) if sop.start else 0
    if count == 0:
        raise UsageError(f"{args.file} has no journey to simulate")
    if journey >= count:
        raise UsageError(f"--journey {journey} is out of range: {args.file} has journeys "
                         f"0 to {count - 1}")


def run(args) -> int:
    for flag in ("simulate", "batch"):
        if getattr(args, flag) and not (args.file and args.screenshot):
            raise GuiUsageError(f"--{flag} needs FILE and --screenshot OUT.png")
    if args.simulate and args.batch:
        raise UsageError("--simulate and --batch make different screenshots: choose one")
    sop = load_or_exit(args.file, strict=False) if args.file else None  # exit 2, no window
    if args.simulate:
        _check_simulation(args, sop)
    _choose_platform(bool(args.screenshot))
    if args.theme:
        os.environ["SOPSTUDIO_THEME"] = args.theme  # read by qt/theme.py, not saved
    from ..qt.app import run as run_app
    simulate = None
    if args.simulate:
        simulate = {"journey": args.journey, "scenario": args.scenario, "steps": args.steps}
    elif args.batch:
        simulate = {"batch": True}
    return run_app(args.file, args.screenshot, simulate)
