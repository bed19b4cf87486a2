"""The store's schema version, and what a reader says of a store at another version (no SQLAlchemy needed)."""

from __future__ import annotations

from iotune.errors import StoreError

SCHEMA_VERSION = 4
"""The schema this iotune writes and reads (:mod:`iotune.store.schema` describes each version)."""


def check_readable(version: str | None, where: str) -> None:
    """Refuse a store a reading command cannot read unchanged: ``version`` is the meta table's schema_version
    (None when there is no meta table); ``where`` names the store (password hidden)."""
    if version is None:
        raise StoreError(f"{where} holds no iotune store (no meta table); a reading command does not create one")
    if version == str(SCHEMA_VERSION):
        return
    if not version.isdigit():
        raise StoreError(f"{where} has no readable schema_version in its meta table")
    if int(version) > SCHEMA_VERSION:
        raise StoreError(f"{where} has store schema version {version}, newer than this iotune understands "
                         f"({SCHEMA_VERSION}); upgrade iotune")
    raise StoreError(f"{where} has store schema version {version}, older than this iotune's ({SCHEMA_VERSION}), "
                     "and a reading command does not change a store: upgrade it once by opening it with a "
                     "command that writes (bench, tune, import, train), where it can be written")
