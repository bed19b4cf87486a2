"""Data may set only safe environment variables; the user, never the data, allows others (issue 13, item 2)."""

from __future__ import annotations

import pytest

from iotune.errors import SpaceError, StoreError
from iotune.records import BenchmarkSpec
from iotune.space import Space
from iotune.spec import CampaignSpec
from iotune.spec.environment import (
    SAFE_FAMILIES,
    UnsafeEnvironmentError,
    check_environment,
    is_known_safe,
    user_allowed,
)
from iotune.spec.mapping import benchmark_spec
from iotune.store import Store


@pytest.mark.parametrize("name", ["ROMIO_FSTYPE_FORCE", "MPICH_MPIIO_HINTS", "MPIR_CVAR_ASYNC_PROGRESS",
                                  "IOR_HINT__MPI__romio_cb_write", "DARSHAN_MODMEM", "HDF5_USE_FILE_LOCKING",
                                  "PNETCDF_HINTS", "OMPI_MCA_fcoll_two_phase_num_io_procs"])
def test_io_variables_are_safe(name):
    assert is_known_safe(name)


@pytest.mark.parametrize("name", ["LD_PRELOAD", "LD_LIBRARY_PATH", "PATH", "PYTHONPATH", "BASH_ENV", "ENV",
                                  "IFS", "HOME", "ROMIO_HINTS", "MPIR_CVAR_NAMEPUB_DIR", "MPICH_DBG_FILENAME",
                                  "MPICH_MPIIO_STATS_FILE", "DARSHAN_LOGPATH", "DARSHAN_LOGFILE",
                                  "HDF5_PLUGIN_PATH", "HDF5_VOL_CONNECTOR", "OMPI_MCA_mca_base_component_path",
                                  "HYDRA_LAUNCHER_EXEC", "IOTUNE_ALLOW_ENV"])
def test_variables_that_run_code_or_write_files_are_not(name):
    assert not is_known_safe(name)
    with pytest.raises(UnsafeEnvironmentError, match=f"--allow-env {name}"):
        check_environment({name: "x"}, "study 'shared'", allowed=())


def test_every_family_says_why():
    assert all(len(family.why) > 20 for family in SAFE_FAMILIES)


@pytest.mark.parametrize("name", ["BASH_FUNC_mpiexec%%", "A=B", "", "1ABC", "A B", "A\x00B", "X" * 300])
def test_malformed_names_are_refused_even_when_allowed(name):
    with pytest.raises(SpaceError, match="malformed"):
        check_environment({name: "v"}, "spec", allowed=(name,))


def test_values_with_nul_are_refused():
    with pytest.raises(SpaceError, match="NUL"):
        check_environment({"ROMIO_PRINT_HINTS": "1\x00"}, "spec", allowed=())


def test_the_user_allows_by_option_or_variable():
    assert check_environment({"LD_PRELOAD": "x.so"}, "s", allowed=user_allowed({}, ["LD_PRELOAD"]))
    assert "PATH" in user_allowed({"IOTUNE_ALLOW_ENV": "PATH,LD_PRELOAD"})
    with pytest.raises(SpaceError, match="malformed"):
        user_allowed({"IOTUNE_ALLOW_ENV": "BASH_FUNC_x%%"})


SPEC = """\
name: crafted
parameters:
  - {name: transfer_size, type: size, levels: [64KiB], role: workload, layer: application}
  - {name: payload, type: categorical, levels: [/tmp/payload.sh], role: system, layer: application, env: BASH_ENV}
"""


def test_a_spec_naming_an_unsafe_variable_is_refused_before_any_run(monkeypatch):
    monkeypatch.delenv("IOTUNE_ALLOW_ENV", raising=False)
    spec = CampaignSpec.from_text(SPEC)
    with pytest.raises(UnsafeEnvironmentError, match="BASH_ENV"):
        spec.check_runnable()
    with pytest.raises(UnsafeEnvironmentError):  # not SpaceError: a campaign must not store it as INVALID
        benchmark_spec(spec.space, spec.space.configuration({}), spec.benchmark)
    monkeypatch.setenv("IOTUNE_ALLOW_ENV", "BASH_ENV")
    spec.check_runnable()
    assert benchmark_spec(spec.space, spec.space.configuration({}), spec.benchmark).env == {
        "BASH_ENV": "/tmp/payload.sh"}


@pytest.mark.parametrize("section", [
    "benchmark: {env: {'BASH_FUNC_mpiexec%%': '() { id; }'}}",
    "benchmark: {env: {'A=B': 'x'}}",
    "benchmark: {hints: {'cb_nodes\\nromio_cb_write': 'enable'}}",
])
def test_malformed_benchmark_env_and_hints_fail_validation(section):
    with pytest.raises(SpaceError, match="benchmark > (env|hints)"):
        CampaignSpec.from_text(SPEC.split("  - {name: payload")[0] + section + "\n")


def test_env_parameter_name_is_checked_when_the_space_is_read():
    with pytest.raises(SpaceError, match="not a variable name"):
        Space.from_text(SPEC.replace("env: BASH_ENV", "env: 'A=B'"))


def test_a_shared_store_cannot_queue_a_trial_that_sets_an_unsafe_variable(tmp_path, monkeypatch):
    """A crafted store holds a PENDING trial whose stored benchmark sets BASH_ENV: no worker may claim it."""
    monkeypatch.delenv("IOTUNE_ALLOW_ENV", raising=False)
    space = Space.from_text(SPEC.split("  - {name: payload")[0])
    with Store(tmp_path / "shared.db") as store:
        study = store.create_study("crafted", space.to_yaml(), space.hash, {})
        made = space.configuration({})
        crafted = BenchmarkSpec(processes=1, env={"BASH_ENV": str(tmp_path / "payload.sh")}).to_dict()
        store.enqueue(study.id, [{"config": made.to_dict(), "config_key": made.key, "workload_key": made.workload_key,
                                  "repeat": 0, "benchmark": crafted}])
        with pytest.raises(StoreError, match="BASH_ENV"):
            store.claim(study.id, "me")
        assert store.queue_counts(study.id) == {"PENDING": 1}
