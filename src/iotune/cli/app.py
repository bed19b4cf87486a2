"""``iotune``: the command line.  Every command is a thin layer over the Python API."""

from __future__ import annotations

import os
import sys
import traceback

import typer
import typer.core
from typer import exceptions as typer_errors

try:  # typer 0.2x carries its own copy of click
    from typer._click import exceptions as click_errors
except ImportError:  # pragma: no cover - older typer over the click package
    from click import exceptions as click_errors  # type: ignore[no-redef]  # the same module, where older typer has it

from iotune import __version__
from iotune.cli import signals
from iotune.errors import IotuneError


def _flags_without_type(display_type_rich):
    """Typer's help shows a flag as ``--version <bool>``; a flag takes no value, so show none."""
    def display(self, ctx):
        return None if getattr(self, "is_flag", False) else display_type_rich(self, ctx)
    return display


# patched on purpose: mypy refuses any assignment to a method
typer.core.TyperOption.display_type_rich = _flags_without_type(  # type: ignore[method-assign]
    typer.core.TyperOption.display_type_rich)

_EXTRA_ARGS = {"allow_extra_args": True, "ignore_unknown_options": True}
# (name, module of iotune.cli, attribute, the command's context settings or None for a group), in --help order
COMMANDS: tuple[tuple[str, str, str, dict | None], ...] = (
    ("space", "space_cmd", "app", None),
    ("bench", "bench_cmd", "bench", {}),
    ("worker", "worker_cmd", "worker", {}),
    ("status", "status_cmd", "status", {}),
    ("screen", "screen_cmd", "screen", {}),
    ("demo", "demo_cmd", "demo", {}),
    ("results", "results_cmd", "results", {}),
    ("studies", "store_cmd", "studies", {}),
    ("study", "study_cmd", "app", None),
    ("export", "store_cmd", "export", {}),
    ("import", "store_cmd", "import_", {}),
    ("import-ior", "store_cmd", "import_ior", {}),
    ("train", "learn_cmd", "train", {}),
    ("evaluate", "learn_cmd", "evaluate", {}),
    ("explain", "learn_cmd", "explain", {}),
    ("recommend", "recommend_cmd", "recommend", {}),
    ("tune", "tune_cmd", "tune", _EXTRA_ARGS),
    ("variability", "variability_cmd", "app", None),
    ("model", "model_cmd", "app", None),
    ("simulate", "model_cmd", "simulate_app", None),
    ("profile", "profile_cmd", "profile", {}),
    ("run", "run_cmd", "run", _EXTRA_ARGS),
    ("testbed", "testbed_cmd", "app", None),
    ("report", "report_cmd", "report", {}),
)
"""Every command, imported when the application is built: a command run alone imports its own module only (typer
reads every registered command's signature on each run, and importing them all was a third of `iotune results`)."""


def _root(version: bool = typer.Option(False, "--version", help="Print the version and exit.")) -> None:
    if version:
        print(__version__)
        raise typer.Exit()


def build(only: str | None = None) -> typer.Typer:
    """The command line application: every command, or the command (or group) named ``only`` alone."""
    application = typer.Typer(
        name="iotune",
        help="Auto-tuner for the I/O of parallel applications: measure, learn, recommend, apply.",
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        add_completion=False,
    )
    for name, module, attribute, settings in COMMANDS:
        if only is None or name == only:
            # an import statement's machinery, not importlib.import_module: it raises the "import" audit event
            target = getattr(__import__(f"iotune.cli.{module}", fromlist=[attribute]), attribute)
            if settings is None:
                application.add_typer(target, name=name)
            else:
                application.command(name, context_settings=settings or None)(target)
    application.callback(invoke_without_command=True)(_root)
    return application


def __getattr__(name: str):
    if name == "app":  # every command, for what lists them (docs, tests)
        return build()
    raise AttributeError(name)


def _command_in(args: list[str]) -> str | None:
    """The command ``args`` name when it is one of COMMANDS (given before any option), else None."""
    return args[0] if args and args[0] in {name for name, *_ in COMMANDS} else None


def main(argv: list[str] | None = None) -> int:
    """Entry point: one clear line and a non-zero exit for every error; ``--debug`` shows the traceback."""
    args = list(sys.argv[1:] if argv is None else argv)
    ours = args.index("--") if "--" in args else len(args)  # after --, every word is the user's command's
    debug = "--debug" in args[:ours] or os.environ.get("IOTUNE_DEBUG", "") not in ("", "0")
    args = [a for a in args[:ours] if a != "--debug"] + args[ours:]
    from iotune.cli.terminal import Terminal

    try:
        with signals.interrupts():
            # not standalone: a usage error comes here as an exception, to be said in one line like the others
            returned = build(_command_in(args[:ours]))(args=args, prog_name="iotune", standalone_mode=False)
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
        return _status(code)
    except click_errors.NoArgsIsHelpError as usage:  # `iotune space`: the group's help, as before
        usage.show()
        return usage.exit_code
    except click_errors.UsageError as usage:
        command = usage.ctx.command_path if usage.ctx is not None else "iotune"
        Terminal().error(f"{' '.join(usage.format_message().split())} (see {command} --help)")
        return 2
    except click_errors.ClickException as failure:
        Terminal().error(" ".join(failure.format_message().split()))
        return failure.exit_code or 2
    except (getattr(click_errors, "Abort", typer_errors.Abort), typer_errors.Abort):  # Ctrl-C at a prompt
        Terminal().error(f"interrupted ({signals.interrupted_by().name})")
        return signals.exit_status()
    except KeyboardInterrupt:
        Terminal().error(f"interrupted ({signals.interrupted_by().name})")
        return signals.exit_status()
    except IotuneError as error:
        if debug:
            traceback.print_exc()
        Terminal().error(str(error))
        return 2
    except Exception as error:  # a bug in iotune: still one line unless --debug
        if signals.wraps_interrupt(error):
            Terminal().error(f"interrupted ({signals.interrupted_by().name})")
            return signals.exit_status()
        if debug:
            traceback.print_exc()
        Terminal().error(f"internal error: {type(error).__name__}: {error} (run with --debug for the traceback)")
        return 1
    # typer returns the code of an Exit raised by a command (`iotune run`), and 130 after KeyboardInterrupt
    code = returned if isinstance(returned, int) and not isinstance(returned, bool) else 0
    return _status(code)


def _status(code: int) -> int:
    """The exit status for a command's ``code``: 130 is how typer reports a KeyboardInterrupt, which a caught
    signal raised (said in one line, with 128 + its number), or a command's own exit (``iotune run``'s app)."""
    if code != 130:
        return code
    if signals.caught():
        from iotune.cli.terminal import Terminal

        Terminal().error(f"interrupted ({signals.interrupted_by().name})")
    return signals.exit_status()


if __name__ == "__main__":
    sys.exit(main())
