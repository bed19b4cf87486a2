"""Monetary cost of a run, paper 000 Eq. 2: cost = execution time x number of instances x unit price.

Prices are per instance-hour in the pricing file's currency (the packaged
``iotune/data/pricing.yaml`` holds illustrative 2013 EC2 prices in USD).
Instances are the compute instances plus, when a configuration has
``placement == 'dedicated'`` and an active ``io_servers`` parameter, one
instance per I/O server; part-time I/O servers share compute instances and add
none (paper 000, Sec. 2.1).  Compute instances are given, or derived as
``ceil(processes / cores per instance)`` when the configuration has a
``processes`` parameter and the pricing file gives the instance's cores.

Storage (paper 002, Sec. III-B): when a configuration names a ``device_class``
(or the pricing file sets ``default_device_class`` and the configuration has
``devices``), its reserved storage is billed on top of the instances::

    storage cost = devices x (GB reserved x price_gb_hour + MB/s reserved x price_mbps_hour) x hours

per device of the class: GB reserved is the class's ``size_gb`` (GB = 10**9
bytes), MB/s reserved is ``max(write_mbps, read_mbps)`` (MB = 10**6 bytes), and
hours is the run time.  Paper 002 meters the product size x bandwidth x time
("adjusted GB-seconds"); cloud offerings with reserved bandwidth price size and
bandwidth separately, so the two terms are added here, each with its own price,
which keeps the sum in the currency of the instance prices (paper 000, Eq. 2).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

from iotune.pricing import DeviceClass, Pricing, PricingError, read_pricing

INSTANCE_TYPE = "instance_type"
PLACEMENT = "placement"
DEDICATED = "dedicated"
IO_SERVERS = "io_servers"
PROCESSES = "processes"
DEVICE_CLASS = "device_class"
DEVICES = "devices"
SECONDS_PER_HOUR = 3600.0


class CostError(PricingError):
    """A price, instance type or instance count needed for a cost is missing or invalid."""


@dataclass(frozen=True)
class CostModel(Pricing):
    """Eq. 2 over a pricing file's prices per instance-hour, each type's cores (for deriving instance counts)
    and its device classes."""

    @classmethod
    def from_yaml(cls, path: str | Path | None = None) -> CostModel:
        """Load a pricing file (:func:`iotune.pricing.read_pricing`); ``None`` loads the packaged illustrative one."""
        try:
            pricing = read_pricing(path)
        except PricingError as exc:
            raise CostError(str(exc)) from None
        return cls(**{f.name: getattr(pricing, f.name) for f in fields(Pricing)})

    def device_class(self, name: str) -> DeviceClass:
        """The device class ``name``; CostError naming the known ones when it is unknown."""
        if name not in self.device_classes:
            raise CostError(f"no device class {name!r} in the pricing file "
                            f"(known: {', '.join(self.device_classes) or 'none'})")
        return self.device_classes[name]

    def storage_price(self, configuration: Mapping[str, Any]) -> float:
        """Storage price per hour of ``configuration``'s devices; 0 when it names no device class."""
        name = configuration.get(DEVICE_CLASS) or self.default_device_class
        if name is None:
            return 0.0
        return self.device_class(str(name)).price_per_hour(int(configuration.get(DEVICES) or 1))

    def storage_cost(self, seconds: float, configuration: Mapping[str, Any]) -> float:
        """Cost in the pricing currency of the storage reserved for a run of ``seconds`` (module docstring)."""
        return float(seconds) / SECONDS_PER_HOUR * self.storage_price(configuration)

    def price(self, instance_type: str | None) -> float:
        """Price of one instance-hour of ``instance_type`` (``None``: the default type)."""
        name = instance_type if instance_type is not None else self._default_type()
        if name not in self.prices:
            raise CostError(f"no price for instance type {name!r} in the pricing file "
                            f"(priced: {', '.join(self.prices)})")
        return self.prices[name]

    def _default_type(self) -> str:
        if self.default_instance_type is None:
            raise CostError(f"cost needs an instance type: the configuration has no {INSTANCE_TYPE!r} parameter and "
                            "the pricing file sets no default_instance_type")
        return self.default_instance_type

    def instances(self, configuration: Mapping[str, Any], compute_instances: int | None = None) -> int:
        """Instances billed for one run of ``configuration``: compute plus dedicated I/O servers."""
        instance_type = configuration.get(INSTANCE_TYPE) or self.default_instance_type
        compute = self._compute(compute_instances, configuration.get(PROCESSES), instance_type)
        servers = configuration.get(IO_SERVERS)
        if configuration.get(PLACEMENT) == DEDICATED and servers is not None:
            return compute + int(servers)
        return compute

    def cost(self, seconds: float, configuration: Mapping[str, Any], compute_instances: int | None = None) -> float:
        """Cost in the pricing currency of a run taking ``seconds`` (Eq. 2)."""
        price = self.price(configuration.get(INSTANCE_TYPE))
        instances = float(seconds) / SECONDS_PER_HOUR * self.instances(configuration, compute_instances) * price
        return instances + self.storage_cost(seconds, configuration)

    def cost_indices(self, seconds: np.ndarray, space, indices: np.ndarray, active: np.ndarray,
                     compute_instances: int | None = None) -> np.ndarray:
        """Eq. 2 for rows of level indices of ``space`` (as :meth:`Space.active_mask` describes them), vectorised."""
        rows = len(indices)
        names = {p.name: j for j, p in enumerate(space.parameters)}
        if INSTANCE_TYPE in names:
            j = names[INSTANCE_TYPE]
            levels = space.parameters[j].levels
            price_table = np.array([self.prices.get(str(level), np.nan) for level in levels])
            core_table = np.array([self.cores.get(str(level), 0) for level in levels], dtype=np.int64)
            price, cores = price_table[indices[:, j]], core_table[indices[:, j]]
            missing = np.isnan(price) | ~active[:, j]
            if missing.any():
                bad = levels[indices[np.argmax(missing), j]]
                self.price(str(bad) if active[np.argmax(missing), j] else None)
        else:
            price = np.full(rows, self.price(None))
            cores = np.full(rows, self.cores.get(self._default_type(), 0), dtype=np.int64)
        if compute_instances is not None:
            compute = np.full(rows, self._compute(compute_instances, None, None), dtype=np.int64)
        elif PROCESSES in names:
            j = names[PROCESSES]
            processes = np.array(space.parameters[j].levels, dtype=np.int64)[indices[:, j]]
            if (cores == 0).any():
                lacking = levels[indices[np.argmax(cores == 0), j]] if INSTANCE_TYPE in names \
                    else self.default_instance_type
                self._compute(None, 1, None if lacking is None else str(lacking))
            compute = -(-processes // np.maximum(cores, 1))
        else:
            self._compute(None, None, None)
        instances = compute
        if PLACEMENT in names and IO_SERVERS in names:
            p, s = names[PLACEMENT], names[IO_SERVERS]
            dedicated = np.array([level == DEDICATED for level in space.parameters[p].levels])[indices[:, p]]
            servers = np.array(space.parameters[s].levels, dtype=np.int64)[indices[:, s]]
            instances = compute + np.where(dedicated & active[:, p] & active[:, s], servers, 0)
        return np.asarray(seconds, dtype=float) / SECONDS_PER_HOUR * (instances * price
                                                                      + self._storage_prices(space, indices, active))

    def _storage_prices(self, space, indices: np.ndarray, active: np.ndarray) -> np.ndarray | float:
        """Storage price per hour of each row (0 without a device class), as :meth:`storage_price`."""
        names = {p.name: j for j, p in enumerate(space.parameters)}
        rows = len(indices)
        if DEVICE_CLASS in names:
            j = names[DEVICE_CLASS]
            per_level = np.array([self.device_class(str(level)).price_per_hour()
                                  for level in space.parameters[j].levels])
            default = self.device_class(self.default_device_class).price_per_hour() \
                if self.default_device_class else 0.0
            per_device = np.where(active[:, j], per_level[indices[:, j]], default)
        elif self.default_device_class:
            per_device = np.full(rows, self.device_class(self.default_device_class).price_per_hour())
        else:
            return 0.0
        if DEVICES in names:
            j = names[DEVICES]
            counts = np.array(space.parameters[j].levels, dtype=float)[indices[:, j]]
            return per_device * np.where(active[:, j], counts, 1.0)
        return per_device

    def _compute(self, compute_instances: int | None, processes: int | None, instance_type: str | None) -> int:
        if compute_instances is not None:
            if isinstance(compute_instances, bool) or not isinstance(compute_instances, int) or compute_instances < 1:
                raise CostError(f"compute_instances must be a positive integer, got {compute_instances!r}")
            return compute_instances
        if processes is None:
            raise CostError(f"cost needs the number of compute instances: give compute_instances or a "
                            f"{PROCESSES!r} workload parameter")
        cores = self.cores.get(instance_type) if instance_type else None
        if not cores:
            raise CostError(f"cannot derive compute instances from {PROCESSES}: the pricing file gives no cores for "
                            f"instance type {instance_type!r}; give compute_instances")
        return math.ceil(int(processes) / cores)
