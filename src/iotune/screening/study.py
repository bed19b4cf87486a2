"""A stored screening study: the study and the design it stored, rebuilt here and only here.

A screening stores nothing but its trials and, in the study's settings, its
design (``ScreeningDesign.to_dict``: design name, runs, factors with their low
and high values); the effects are recomputed from the trials whenever asked.
"""

from __future__ import annotations

from dataclasses import dataclass

from iotune.screening.design import DESIGN_NAME, ScreeningDesign, build_design
from iotune.screening.errors import ScreeningError
from iotune.screening.factors import Factor
from iotune.stored import StoredStudy


@dataclass(frozen=True)
class ScreeningStudy:
    """A stored study measured by a screening, with its design (factors, matrix, one configuration per row)."""

    study: StoredStudy
    design: ScreeningDesign

    @classmethod
    def of(cls, study: StoredStudy | ScreeningStudy) -> ScreeningStudy:
        """``study`` with the design it stored (``study`` itself when it is one); ScreeningError when it stored
        none."""
        if isinstance(study, ScreeningStudy):
            return study
        stored = study.settings.get("screening")
        if not isinstance(stored, dict) or stored.get("design") != DESIGN_NAME:
            raise ScreeningError(f"study {study.name!r} is not a screening study (run `iotune screen SPEC` to make "
                                 "one)")
        factors = [Factor(f["name"], f["low"], f["high"]) for f in stored["factors"]]
        return cls(study, build_design(study.space, factors))

    @property
    def name(self) -> str:
        return self.study.name

    def trials(self, state: str | None = None) -> list:
        return self.study.trials(state)
