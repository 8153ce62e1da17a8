"""The `sopstudio` command line (DESIGN §9). The GUI is imported lazily so the CLI stays Qt-free."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    from .cli_main import run
    return run(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(main())
