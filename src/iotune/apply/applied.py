"""What applying a configuration did: variables to add, files written, user settings kept, commands."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass
class Applied:
    """The result of :func:`iotune.apply.apply_configuration`.

    - ``env``: variables to add to the command's environment (``ROMIO_HINTS``,
      ``MPICH_MPIIO_HINTS``, ``IOR_HINT__MPI__*``, ``env:`` parameters);
    - ``hints``: the MPI-IO hints in force after merging (key -> value);
    - ``chosen``: the hints the configuration asked for;
    - ``files``: files written (the ROMIO hints file);
    - ``kept``: settings the user had made that were kept over the configuration's
      (name -> the user's value), ``overridden``: those replaced (``override=True``);
    - ``sources``: where each kept or overridden setting was found;
    - ``commands``: ``lfs setstripe`` command lines, ``ran``: those that were run.
    """

    env: dict[str, str] = field(default_factory=dict)
    hints: dict[str, str] = field(default_factory=dict)
    chosen: dict[str, str] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    kept: dict[str, str] = field(default_factory=dict)
    overridden: dict[str, str] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    commands: list[str] = field(default_factory=list)
    ran: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)
