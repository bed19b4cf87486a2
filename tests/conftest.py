"""Shared fixtures and probes for the whole test suite.

PostgreSQL: ``postgres_url`` is IOTUNE_TEST_POSTGRES_URL when set (its user
must be allowed to create databases); otherwise, when running as root on a
machine with PostgreSQL's server binaries, a throwaway cluster in a temporary
directory, reached over a Unix socket only and removed at the end of the
session; otherwise tests that need it are skipped with the reason.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path

import pytest

pytest_plugins = ["tests.slurm_cluster"]


def pytest_sessionstart(session):
    """Compile iotune's sources once: with PYTHONDONTWRITEBYTECODE set (as on some machines) and an editable
    install, every ``iotune`` subprocess and MPI rank of the suite would otherwise compile them afresh (0.7 s)."""
    import compileall

    compileall.compile_dir(Path(__file__).resolve().parents[1] / "src" / "iotune", quiet=1)
    # iotune's PMPI library is built at first use into a per-user cache: the suite's builds go to a temporary one
    if "IOTUNE_PMPI_CACHE" not in os.environ:
        os.environ["IOTUNE_PMPI_CACHE"] = session.config._iotune_pmpi_cache = tempfile.mkdtemp(prefix="iotune-pmpi-")
    # and what reports fit (iotune.report.fits) to a temporary one, never the user's
    os.environ["IOTUNE_REPORT_CACHE"] = session.config._iotune_report_cache = tempfile.mkdtemp(prefix="iotune-fits-")


def pytest_sessionfinish(session):
    for cache in (getattr(session.config, "_iotune_pmpi_cache", None),
                  getattr(session.config, "_iotune_report_cache", None)):
        if cache is not None:
            shutil.rmtree(cache, ignore_errors=True)


def _postgres_bindir() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    return Path(found[-1]).parent if found else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _as_postgres(*args, cwd: Path) -> None:
    result = subprocess.run(
        ["runuser", "-u", "postgres", "--", *map(str, args)], cwd=cwd, capture_output=True, text=True
    )
    if result.returncode != 0:
        tail = (result.stderr or result.stdout).strip().splitlines()[-5:]
        pytest.fail(f"{Path(str(args[0])).name} failed: {' | '.join(tail)}", pytrace=False)


@pytest.fixture(scope="session")
def postgres_url():
    """A SQLAlchemy URL (postgresql+psycopg) of a server the tests may create databases on."""
    url = os.environ.get("IOTUNE_TEST_POSTGRES_URL")
    if url:
        yield url
        return
    bindir = _postgres_bindir()
    if bindir is None:
        pytest.skip("no PostgreSQL: set IOTUNE_TEST_POSTGRES_URL or install postgresql")
    if os.geteuid() != 0 or shutil.which("runuser") is None:
        pytest.skip("no PostgreSQL: set IOTUNE_TEST_POSTGRES_URL (a local cluster needs root and runuser)")
    pytest.importorskip("psycopg", reason="psycopg is needed for PostgreSQL tests")
    root = Path(tempfile.mkdtemp(prefix="iotune-pg-"))
    shutil.chown(root, "postgres", "postgres")
    data = root / "data"
    try:
        _as_postgres(
            bindir / "initdb", "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync", cwd=root
        )
        port = _free_port()
        options = f"-p {port} -k {root} -c listen_addresses='' -c fsync=off -c full_page_writes=off"
        log = root / "server.log"
        _as_postgres(bindir / "pg_ctl", "-D", data, "-l", log, "-w", "-t", "60", "-o", options, "start", cwd=root)
        try:
            yield f"postgresql+psycopg://postgres@/postgres?host={root}&port={port}"
        finally:
            subprocess.run(
                ["runuser", "-u", "postgres", "--", str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
                cwd=root,
                capture_output=True,
            )
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def _postgres_admin(postgres_url):
    import sqlalchemy as sa

    engine = sa.create_engine(postgres_url, isolation_level="AUTOCOMMIT")
    yield engine
    engine.dispose()


@pytest.fixture
def new_postgres_database(_postgres_admin):
    """Factory: each call creates an empty database and returns its URL; all are dropped after the test."""
    import sqlalchemy as sa

    created = []

    def make(password: str | None = None) -> str:
        name = f"iotune_test_{uuid.uuid4().hex[:16]}"
        with _postgres_admin.connect() as conn:
            conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
        created.append(name)
        url = _postgres_admin.url.set(database=name)
        if password is not None:
            url = url.set(password=password)
        return url.render_as_string(hide_password=False)

    yield make
    with _postgres_admin.connect() as conn:
        for name in created:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def _mpi_problem() -> str | None:
    """Why MPI tests cannot run here, or None."""
    import importlib.util

    from iotune.bench.world import find_mpiexec
    from iotune.errors import MpiNotFoundError

    try:
        find_mpiexec()
    except MpiNotFoundError as exc:
        return str(exc)
    if importlib.util.find_spec("mpi4py") is None:
        return "mpi4py is not installed"
    return None


CHROMIUM = "/usr/bin/chromium"


def browser_problem() -> str | None:
    """Why a report cannot be opened in a real browser here, or None: Debian's chromium and Playwright for Python."""
    import importlib.util

    if not os.access(CHROMIUM, os.X_OK):
        return f"no {CHROMIUM}: apt-get install chromium"
    if importlib.util.find_spec("playwright") is None:
        return "Playwright for Python is not installed: pip install playwright (no browser download is needed)"
    return None


def pytest_collection_modifyitems(config, items):
    reason = _mpi_problem()
    from iotune.bench.hdf5 import parallel_h5py_problem

    h5py_mpi = parallel_h5py_problem() if any("requires_h5py_mpi" in item.keywords for item in items) else None
    root = os.geteuid() == 0
    browser = browser_problem() if any("requires_browser" in item.keywords for item in items) else None
    for item in items:
        if browser and "requires_browser" in item.keywords:
            item.add_marker(pytest.mark.skip(reason=f"requires_browser: {browser}"))
        if reason and "requires_mpi" in item.keywords:
            item.add_marker(pytest.mark.skip(reason=f"requires_mpi: {reason}"))
        if h5py_mpi and "requires_h5py_mpi" in item.keywords:
            item.add_marker(pytest.mark.skip(reason=f"requires_h5py_mpi: {h5py_mpi}; run scripts/install-hdf5"))
        if not root and "requires_root" in item.keywords:
            item.add_marker(pytest.mark.skip(reason="requires_root: not running as root"))
        if "requires_ior" in item.keywords and shutil.which("ior") is None:
            item.add_marker(pytest.mark.skip(reason="requires_ior: no ior on PATH (build IOR 4, github.com/hpc/ior)"))
