"""Prices and device classes: the pricing file that the cost model and the storage testbed both read.

The packaged ``iotune/data/pricing.yaml`` holds illustrative 2013 EC2 prices
(paper 000, Eq. 2) and the two device classes of paper 002 (33 and 128 MB/s);
``--pricing FILE`` replaces it.  A device class is both a throttle (what the
testbed builds) and a price (what the cost model bills).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from iotune.errors import IotuneError, SpaceError
from iotune.yamlio import load_yaml, read_yaml_file


class PricingError(IotuneError, ValueError):
    """A pricing file, price, instance type or device class is missing or invalid."""


@dataclass(frozen=True)
class DeviceClass:
    """A class of block device: its throttles (what the testbed builds) and its prices (what it costs).

    ``write_mbps``/``read_mbps`` are MB/s (10**6 B/s) per device, ``iops`` operations
    per second per device and direction (None: unlimited); ``size_gb`` is the GB
    (10**9 B) reserved per device; prices are per GB-hour and per (MB/s)-hour.
    """

    name: str
    write_mbps: float
    read_mbps: float
    iops: int | None = None
    size_gb: float = 0.0
    price_gb_hour: float = 0.0
    price_mbps_hour: float = 0.0

    @property
    def reserved_mbps(self) -> float:
        """Bandwidth reserved per device in MB/s: the larger of the two limits."""
        return max(self.write_mbps, self.read_mbps)

    def price_per_hour(self, devices: int = 1) -> float:
        """Storage price of ``devices`` such devices per hour (module docstring, paper 002 Sec. III-B)."""
        return devices * (self.size_gb * self.price_gb_hour + self.reserved_mbps * self.price_mbps_hour)


def _number(where: str, name: str, key: str, value, positive: bool = False, optional: bool = False):
    if optional and value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or (positive and value == 0):
        sign = "positive" if positive else "non-negative"
        raise PricingError(f"{where}: device class {name!r} needs {key}, a {sign} number, got {value!r}")
    return value


def _device_classes(data: dict, where: str) -> dict[str, DeviceClass]:
    raw = data.get("device_classes") or {}
    if not isinstance(raw, dict):
        raise PricingError(f"{where}: 'device_classes:' must map class names to write_mbps, read_mbps and prices")
    classes = {}
    for name, entry in raw.items():
        if not isinstance(entry, dict):
            raise PricingError(f"{where}: device class {name!r} must be a mapping, got {entry!r}")
        unknown = sorted(set(entry) - {"write_mbps", "read_mbps", "iops", "size_gb", "price_gb_hour",
                                       "price_mbps_hour", "description"})
        if unknown:
            raise PricingError(f"{where}: device class {name!r} has unknown field(s) {unknown}")
        values = {key: _number(where, name, key, entry.get(key), positive=True)
                  for key in ("write_mbps", "read_mbps")}
        values.update({key: float(_number(where, name, key, entry.get(key, 0.0)))
                       for key in ("size_gb", "price_gb_hour", "price_mbps_hour")})
        iops = _number(where, name, "iops", entry.get("iops"), positive=True, optional=True)
        classes[str(name)] = DeviceClass(str(name), iops=None if iops is None else int(iops), **values)
    return classes


@dataclass(frozen=True)
class Pricing:
    """The contents of a pricing file: prices per instance-hour (with each type's cores) and device classes."""

    prices: dict[str, float]
    cores: dict[str, int] = field(default_factory=dict)
    default_instance_type: str | None = None
    currency: str = "USD"
    source: str = ""
    device_classes: dict[str, DeviceClass] = field(default_factory=dict)
    default_device_class: str | None = None


def read_pricing(path: str | Path | None = None) -> Pricing:
    """Load a pricing file; ``None`` loads the packaged illustrative one."""
    if path is None:
        text = (resources.files("iotune.data") / "pricing.yaml").read_text(encoding="utf-8")
        where = "pricing.yaml"
        reader = lambda: load_yaml(text, where)  # noqa: E731
    else:
        where = str(path)
        reader = lambda: read_yaml_file(path, "pricing file")  # noqa: E731
    try:
        data, _ = reader()
    except SpaceError as exc:
        raise PricingError(str(exc)) from None
    return _pricing(data or {}, where)


def _pricing(data: Any, where: str) -> Pricing:
    types = data.get("instance_types") if isinstance(data, dict) else None
    if not isinstance(types, dict) or not types:
        raise PricingError(f"{where}: needs 'instance_types:', a mapping of instance type to price_per_hour")
    prices, cores = {}, {}
    for name, entry in types.items():
        entry = entry if isinstance(entry, dict) else {"price_per_hour": entry}
        price = entry.get("price_per_hour")
        if isinstance(price, bool) or not isinstance(price, (int, float)) or price < 0:
            raise PricingError(f"{where}: instance type {name!r} needs price_per_hour, a non-negative number, "
                               f"got {price!r}")
        prices[str(name)] = float(price)
        if entry.get("cores") is not None:
            if isinstance(entry["cores"], bool) or not isinstance(entry["cores"], int) or entry["cores"] < 1:
                raise PricingError(f"{where}: instance type {name!r}: cores must be a positive integer")
            cores[str(name)] = entry["cores"]
    classes = _device_classes(data, where)
    default_class = data.get("default_device_class")
    if default_class is not None and default_class not in classes:
        raise PricingError(f"{where}: default_device_class {default_class!r} is not among device_classes "
                           f"({', '.join(classes) or 'none'})")
    return Pricing(prices, cores, data.get("default_instance_type"), str(data.get("currency", "USD")),
                   str(data.get("source", "")), classes, default_class)


@lru_cache(maxsize=1)
def packaged_device_classes() -> dict[str, DeviceClass]:
    """The device classes of the packaged pricing file (what ``device_class`` levels may name)."""
    return dict(read_pricing().device_classes)
