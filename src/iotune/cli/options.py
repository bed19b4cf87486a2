"""Options shared by several commands."""

import typer

from iotune.runners.registry import DEFAULT as DEFAULT_RUNNER
from iotune.runners.registry import RUNNER_HELP

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

# --executor slurm: the same options for every command that runs trials in a Slurm job array (bench, tune)
EXECUTOR = typer.Option("local", "--executor", help="local (trials run in this process) or slurm (a Slurm job "
                        "array of --workers workers; needs a PostgreSQL --db).")
WORKERS = typer.Option(None, "--workers", min=1, help="With --executor slurm: workers (array tasks), each running "
                       "one trial at a time; a sampler that proposes one configuration at a time, and tune, "
                       "propose this many at once.")
PARTITION = typer.Option(None, "--partition", help="With --executor slurm: the partition.")
TIME_LIMIT = typer.Option(None, "--time-limit", help="With --executor slurm: each worker's time limit (Slurm's "
                          "format: 30, 2:00:00, 1-12).")
NODES_PER_TRIAL = typer.Option(1, "--nodes-per-trial", min=1, help="With --executor slurm: nodes of each "
                               "worker's allocation; a trial's MPI ranks span them.")
SBATCH_OPTION = typer.Option(None, "--sbatch-option", help="With --executor slurm: one more #SBATCH line, e.g. "
                             "--account=proj (repeatable).")
JOB_SETUP = typer.Option(None, "--job-setup", help="With --executor slurm: a shell line the job runs before the "
                         "worker, e.g. 'module load mpich' (repeatable).")
GRACE = typer.Option(None, "--grace", min=1, help="With --executor slurm: seconds without a heartbeat after which "
                     "a worker's trial is taken over (default 120).")
RUNNER = typer.Option(DEFAULT_RUNNER, "--runner", help=RUNNER_HELP)
REPLAY_SCALE = typer.Option(1.0, "--replay-scale", min=0, help="With --runner replay:TABLE.csv: sleep this times "
                            "each recorded trial's I/O time.")

# what the transfer sampler tunes: `iotune tune`, and `iotune bench --sampler transfer`
WORKLOAD = typer.Option(None, "--workload", "-w", help="The workload to tune for: name=value pairs, a workload YAML "
                        "file, a Darshan log or an IOR command line (bench: with --sampler transfer). Values need not "
                        "be levels of the spec for tune.")
PRIOR_STUDY = typer.Option([], "--prior-study", help="Another study whose runs are prior knowledge of the transfer "
                           "tuner (repeatable).")
