"""Screening factors and the foldover PB design mapped to configurations (paper 000, Sec. 4.1)."""

import pytest

from iotune.design import foldover, plackett_burman
from iotune.errors import SpaceError
from iotune.screening import ScreeningError, build_design, screening_factors
from iotune.space import Space
from iotune.spec import load_spec

KIB = 1024


def test_factors_default_to_first_and_last_level(spec_file):
    space = load_spec(spec_file).space
    factors = {f.name: (f.low, f.high) for f in screening_factors(space)}
    assert factors == {"transfer_size": (64 * KIB, 256 * KIB), "romio_cb_write": ("disable", "enable"),
                       "cb_buffer_size": (1024 * KIB, 4096 * KIB), "romio_no_indep_rw": ("false", "true")}
    assert [f.name for f in screening_factors(space, system_only=True)] == [
        "romio_cb_write", "cb_buffer_size", "romio_no_indep_rw"]


def test_rows_take_the_low_or_high_level_of_their_sign(spec_file):
    spec = load_spec(spec_file)
    space = spec.space
    design = build_design(space, screening_factors(space), spec.benchmark)
    assert (design.matrix == foldover(plackett_burman(4))).all() and design.matrix.shape == (16, 4)
    for signs, row in zip(design.matrix, design.rows):
        for factor, sign in zip(design.factors, signs):
            assert row[factor.name] == (factor.high if sign > 0 else factor.low)
    assert len(design.configurations()) == len({r.key for r in design.rows})
    assert sorted(c.key for c in design.run_order(3)) == sorted(c.key for c in design.configurations())


def test_screening_section_overrides_low_and_high(spec_file):
    spec_file.write_text(spec_file.read_text() + "screening:\n  levels:\n    romio_cb_write: [automatic, enable]\n")
    spec = load_spec(spec_file)
    factor = next(f for f in screening_factors(spec.space, levels=spec.screening.levels) if f.name == "romio_cb_write")
    assert (factor.low, factor.high) == ("automatic", "enable")
    with pytest.raises(ScreeningError, match="not a level"):
        screening_factors(spec.space, levels={"transfer_size": ["64KiB", "3MiB"]})
    spec_file.write_text(spec_file.read_text().replace("[automatic, enable]", "[automatic, maybe]"))
    with pytest.raises(SpaceError, match=r"screen.yaml:\d+: screening levels: .*'maybe' is not a level"):
        load_spec(spec_file)


def test_inactive_parameters_stay_inactive_in_their_rows():
    space = Space.from_text("""
name: w
parameters:
  - {name: collective, type: boolean, role: workload, layer: mpiio}
  - {name: romio_cb_write, type: categorical, levels: [disable, enable], role: system, layer: mpiio,
     when: collective}
""")
    design = build_design(space, screening_factors(space))
    assert all((row["romio_cb_write"] is None) == (not row["collective"]) for row in design.rows)


def test_a_constraint_violating_row_is_one_clear_error_with_a_suggestion():
    space = Space.from_text("""
name: c
parameters:
  - {name: transfer_size, type: size, levels: [64KiB, 1MiB, 4MiB], role: workload, layer: application}
  - {name: cb_buffer_size, type: size, levels: [1MiB, 4MiB, 16MiB], role: system, layer: mpiio}
  - {name: romio_cb_write, type: categorical, levels: [disable, enable], role: system, layer: mpiio}
constraints: ["transfer_size < cb_buffer_size"]
""")
    with pytest.raises(ScreeningError) as caught:
        build_design(space, screening_factors(space))
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("screening row ") and "transfer_size < cb_buffer_size" in message
    assert "screening: {levels: {" in message
    suggested = message.split("screening: {levels: {")[1].rstrip("}")
    levels = {name.strip(): pair.strip(" []").split(", ") for name, pair in
              (part.split(": ") for part in suggested.split("], "))}
    build_design(space, screening_factors(space, levels=levels))


def test_a_row_the_benchmark_cannot_run_is_refused(spec_file):
    spec = load_spec(spec_file)
    with pytest.raises(ScreeningError, match=r"block_size.*transfer_size: \[64KiB, 128KiB\]"):
        build_design(spec.space, screening_factors(spec.space), {**spec.benchmark, "block_size": 128 * KIB})
