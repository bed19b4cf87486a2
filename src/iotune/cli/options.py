"""Options shared by several commands."""

import typer

DB = typer.Option(None, "--db", envvar="IOTUNE_DB",
                  help="Store URL or SQLite file (default: iotune.db in the working directory; "
                       "postgresql+psycopg://user@host/db for PostgreSQL).")
FORMAT = typer.Option("table", "--format", "-f", help="Output format: table, json or csv.")
STUDY = typer.Option(None, "--study", "-s", help="Study name (default: every study).")
MPIEXEC = typer.Option(None, "--mpiexec", envvar="IOTUNE_MPIEXEC",
                       help="mpiexec to launch the benchmark with (default: the one beside Python, else PATH).")

DEFAULT_MEANING = ("default: the configuration with every system parameter at its spec's `default:` value, or at "
                   "its first listed level when the spec gives none")
"""What "default" means wherever a command compares with it (results, recommend, tune, the report)."""
