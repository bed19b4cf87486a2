"""The strict reader of a whole campaign file: every key at every level, one meaning of YAML booleans."""

import textwrap

import pytest

from iotune.errors import SpaceError
from iotune.spec import CampaignSpec

BASE = textwrap.dedent("""\
    name: hints
    parameters:
      - {name: transfer_size, type: size, levels: [16KiB, 1MiB], role: workload, layer: application}
      - {name: collective, type: boolean, role: workload, layer: mpiio}
      - {name: romio_cb_write, type: categorical, levels: [automatic, "on", "off"], role: system, layer: mpiio,
         when: collective}
""")


def spec(extra: str = "") -> CampaignSpec:
    return CampaignSpec.from_text(BASE + textwrap.dedent(extra), source="spec.yaml")


@pytest.mark.parametrize("extra, line, message", [
    ("benchmrk:\n  processes: 4\n", 7, "unknown key 'benchmrk', did you mean 'benchmark'?"),
    ("campain:\n  repeats: 10\n", 7, "unknown key 'campain', did you mean 'campaign'?"),
    ("campaign:\n  repeets: 10\n", 8, "unknown key 'repeets' in 'campaign', did you mean 'repeats'?"),
    ("campaign:\n  adaptive: {rel_half_with: 0.1}\n", 8, "unknown key 'rel_half_with' in 'campaign > adaptive', "
                                                         "did you mean 'rel_half_width'?"),
    ("benchmark:\n  procesess: 4\n", 8, "unknown key 'procesess' in 'benchmark', did you mean 'processes'?"),
    ("storage:\n  size_mb: 64\n", 8, "unknown key 'size_mb' in 'storage', did you mean 'size_mib'?"),
    ("screening:\n  levels: {transfer_sise: [16KiB, 1MiB]}\n", 8, "unknown parameter 'transfer_sise', did you mean "
                                                                  "'transfer_size'?"),
    ("benchmark:\n  processes: many\n", 8, "benchmark > processes: 'many' is not a whole number"),
    ("benchmark:\n  block_size: 99999999999999999999GiB\n", 8, "is larger than 1 PiB"),
    ("campaign:\n  repeats: 0\n", 8, "must be >= 1"),
    ("campaign:\n  sampler: random\n", 7, "sampler 'random' needs a budget"),
])
def test_misspelled_or_bad_keys_are_refused_with_their_line(extra, line, message):
    with pytest.raises(SpaceError) as error:
        spec(extra)
    assert str(error.value).startswith(f"spec.yaml:{line}: ")
    assert message in str(error.value)


def test_yaml_booleans_have_one_meaning():
    loaded = spec("benchmark:\n  fsync: off\n  verify: yes\ncampaign:\n  shuffle: false\n")
    assert loaded.benchmark == {"fsync": False, "verify": True} and loaded.campaign.shuffle is False
    # a categorical level written on/off keeps the word; a boolean parameter reads it as a truth value
    assert loaded.space.parameter("romio_cb_write").levels == ("automatic", "on", "off")
    assert loaded.space.configuration({"collective": "on", "romio_cb_write": "off"})["collective"] is True


def test_older_names_and_round_trip():
    loaded = spec("campaign:\n  design: random\n  samples: 5\n  seed: 3\nbenchmark:\n  block_size: 4MiB\n")
    assert (loaded.campaign.sampler, loaded.campaign.budget, loaded.campaign.seed) == ("random", 5, 3)
    assert loaded.benchmark == {"block_size": 4 * 2**20}
    again = CampaignSpec.from_text(loaded.to_yaml())
    assert again == loaded and again.hash == loaded.hash
    with pytest.raises(SpaceError, match="older name of sampler"):
        spec("campaign:\n  design: full\n  sampler: lhs\n")


def test_overrides_are_checked_like_the_file():
    loaded = spec()
    assert loaded.with_campaign(repeats=7, sampler="genetic", budget=20).campaign.repeats == 7
    with pytest.raises(SpaceError, match="repeats"):
        loaded.with_campaign(repeats=-1)


def test_a_parameter_fixed_twice_is_refused():
    with pytest.raises(SpaceError, match="transfer_size is both a parameter and fixed"):
        spec("benchmark:\n  transfer_size: 1MiB\n")


@pytest.mark.parametrize("text, message", [
    ("a: &a [1,1,1,1,1,1,1,1,1]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
     "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n",
     "expands to more than"),
    ("a: &a [1, *a]\n", "recursive"),
    ("[" * 200 + "]" * 200, "nested"),
])
def test_small_hostile_yaml_is_refused_before_it_is_built(text, message):
    with pytest.raises(SpaceError, match=message):
        CampaignSpec.from_text(text, source="evil.yaml")


def test_non_utf8_file_is_one_line(tmp_path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes("name: caf\u00e9\n".encode("latin-1"))
    with pytest.raises(SpaceError, match="not UTF-8"):
        CampaignSpec.from_file(path)
