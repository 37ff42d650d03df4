"""The console script ``cadre``: imports the app inside its guard, so that Ctrl-C even while
the commands load ends with one line, not a traceback."""

from __future__ import annotations

import sys

__all__ = ["main"]

_INTERRUPTED = 130


def main() -> None:
    """Run ``cadre`` with the process's arguments and exit with its code; what it prints goes
    out without terminal control codes (see :mod:`framework.cli._terminal`)."""
    from framework.cli._terminal import PrintableStream

    sys.stdout = PrintableStream(sys.stdout)
    sys.stderr = PrintableStream(sys.stderr)
    try:
        from framework.cli.app import run_app

        code = run_app(sys.argv[1:])
    except KeyboardInterrupt:  # before a command started (a run's own is handled by run_app)
        print("interrupted", file=sys.stderr)
        code = _INTERRUPTED
    sys.exit(code)
