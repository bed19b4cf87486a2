"""The same table under other reasonable encodings of the same features (issue 31).

A table name ``scout~ordinal`` is scout read with every categorical configuration feature as the index of its
level (levels sorted; a workload's categories stay one-hot: an index of an application is, to any model, a
number, and the engine reads it as one); ``~linear`` reads every log2 feature (sizes, counts) as the plain number; ``~derived`` toggles the
derived configuration features where a table has them (scout: total vCPUs and RAM out, the cluster's hourly
price in; cherrypick: total vCPUs, total RAM and the cluster's hourly price in).  Variants join with ``+``
(``scout~ordinal+linear``).  A tuner that is not fitted to its encoding gives the same cells under each.
"""

from __future__ import annotations

from dataclasses import replace

from replay_tables import TABLES

from iotune.transfer import Feature, TableSpec, load_table

ENCODINGS = ("ordinal", "linear", "derived")
DEFAULT = ("", "ordinal", "linear", "derived")
"""The encodings ``--encodings default`` runs: the table's own and one variant each."""

DERIVED = {
    "scout": (("total_cpu", "total_ram"), (Feature("cluster_price", "log2"),)),
    "cherrypick": ((), (Feature("total_cpu", "log2"), Feature("total_ram", "log2"),
                        Feature("cluster_price", "log2"))),
}
"""Per table: the derived configuration features the ``derived`` variant drops, and those it adds."""


def split(name: str) -> tuple[str, tuple[str, ...]]:
    """("scout", ("ordinal", "linear")) from "scout~ordinal+linear"; ValueError naming an unknown variant."""
    table, _, variants = name.partition("~")
    chosen = tuple(v for v in variants.split("+") if v)
    unknown = [v for v in chosen if v not in ENCODINGS]
    if table not in TABLES or unknown:
        raise ValueError(f"unknown table or encoding in {name!r}; tables: {', '.join(TABLES)}, "
                         f"encodings: {', '.join(ENCODINGS)}")
    return table, chosen


def has(name: str, variant: str) -> bool:
    """Whether ``variant`` changes anything on table ``name`` (``derived`` only where DERIVED lists it)."""
    return variant != "derived" or name in DERIVED


def table_spec(name: str) -> TableSpec:
    """The TableSpec of a table name with its encoding variants (see the module docstring)."""
    table, variants = split(name)
    spec = TABLES[table]()
    if "derived" in variants:
        drop, add = DERIVED.get(table, ((), ()))
        spec = replace(spec, configuration=tuple(f for f in spec.configuration if f.column not in drop) + add)
    if "ordinal" in variants:
        measured = load_table(spec)
        spec = replace(spec, configuration=_ordinal(spec.configuration, measured.configuration_points))
    if "linear" in variants:
        spec = replace(spec, workload=_linear(spec.workload), configuration=_linear(spec.configuration))
    return replace(spec, name=name)


def _ordinal(features, points) -> tuple[Feature, ...]:
    out = []
    for feature in features:
        if feature.kind == "categorical":
            levels = feature.levels or tuple(sorted({str(p[feature.column]) for p in points}))
            feature = Feature(feature.column, "ordinal", levels)
        out.append(feature)
    return tuple(out)


def _linear(features) -> tuple[Feature, ...]:
    # an inactive hint (missing) sits at 0, below every positive value, as -1 sits below log2(1) = 0
    return tuple(Feature(f.column, "numeric", missing=None if f.missing is None else 0.0) if f.kind == "log2" else f
                 for f in features)
