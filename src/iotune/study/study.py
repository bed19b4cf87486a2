"""The stored study as the campaign loop names it: ``iotune.study.Study`` is :class:`iotune.stored.StoredStudy`.

The class lives in :mod:`iotune.stored`, below ``learn``, ``screening``,
``variability`` and ``apply``, which take it too.  Not to be confused with
``iotune.Study`` (:mod:`iotune.api`), the library face that wraps one.  New
code names it ``StoredStudy``; ``Study`` stays for the loop's modules.
"""

from iotune.stored import StoredStudy, StudyError, measurement_identity, spec_of

Study = StoredStudy

__all__ = ["Study", "StoredStudy", "StudyError", "measurement_identity", "spec_of"]
