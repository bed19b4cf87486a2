"""The ``iotune`` command's entry point: signal handlers first, then the modules of the command line.

Loading typer and the command modules takes most of a second; a Ctrl-C (or
SIGTERM, SIGHUP) in that time used to print the traceback of the import it cut.
Here the handlers of :mod:`iotune.cli.signals` are installed before anything
else is imported, and an interruption at any point of the load, or after the
command has returned, is the same one line and exit status as during a command.
What comes before this module runs (the interpreter's own start) is Python's.
"""

from __future__ import annotations

import sys

from iotune.cli import signals


def main(argv: list[str] | None = None) -> int:
    """Run the command line with ``argv`` (``sys.argv[1:]`` by default); the exit status."""
    try:
        with signals.interrupts():
            from iotune.cli.app import main as run

            return run(argv)
    except KeyboardInterrupt:
        return _interrupted()
    except Exception as error:
        if signals.wraps_interrupt(error):
            return _interrupted()
        raise


def _interrupted() -> int:
    signals.end_on_the_next()  # a second Ctrl-C while the line is written ends the process, not in a traceback
    print(f"error: interrupted ({signals.interrupted_by().name})", file=sys.stderr, flush=True)
    return signals.exit_status()


if __name__ == "__main__":
    sys.exit(main())
