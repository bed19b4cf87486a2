"""One root error for everything iotune raises on purpose.

Each subclass also inherits the builtin it refines, so callers that catch
``ValueError`` or ``OSError`` keep working.  The CLI turns any ``IotuneError``
into one line on stderr and a non-zero exit.
"""

from iotune.lazy import lazy_exports


class IotuneError(Exception):
    """Base of every error iotune raises deliberately."""


class SpaceError(IotuneError, ValueError):
    """A space spec, parameter value or configuration is invalid."""


class UnitError(SpaceError):
    """A size or duration string cannot be parsed."""


class StoreError(IotuneError, RuntimeError):
    """The results store cannot do what was asked (bad URL, schema, import)."""


class BenchError(IotuneError, RuntimeError):
    """A benchmark could not be run or its output could not be understood."""


class MpiNotFoundError(BenchError):
    """mpiexec or mpi4py is missing."""


class ScratchError(BenchError, OSError):
    """The scratch directory cannot be used."""


# Every other IotuneError subclass lives beside the code that raises it; each is reachable here too
# (``iotune.errors.StudyError``), loaded with its module on first use so that this module stays at the
# bottom of the layers and imports nothing.  tests/test_errors_module.py checks that none is missing.
_ELSEWHERE = {
    "ApplyError": "iotune.apply.user_settings",
    "CostError": "iotune.recommend.cost",
    "DecisionError": "iotune.recommend.decision",
    "DeadlineError": "iotune.analytic.cache_model",
    "ExpressionError": "iotune.space.expressions",
    "InputError": "iotune.bounded",
    "FieldError": "iotune.space.parameter",
    "Hdf5SettingError": "iotune.spec.hdf5",
    "IorInputError": "iotune.importers.ior_checks",
    "LayoutError": "iotune.fslayout.base",
    "LearningError": "iotune.learn.errors",
    "OutputError": "iotune.output",
    "ModelError": "iotune.analytic.errors",
    "PredictorError": "iotune.learn.errors",
    "PmpiResultError": "iotune.apply.pmpi.result",
    "PmpiUnavailable": "iotune.apply.pmpi.build",
    "PricingError": "iotune.pricing",
    "RecommendError": "iotune.recommend.recommender",
    "ReplayError": "iotune.runners.replay",
    "SamplerError": "iotune.samplers.base",
    "ScreeningError": "iotune.screening.errors",
    "SlurmError": "iotune.study.slurm",
    "StoreMovedError": "iotune.store.identity",
    "StudyError": "iotune.stored",
    "TestbedError": "iotune.testbed.errors",
    "TestbedUnsupportedError": "iotune.testbed.errors",
    "TransferError": "iotune.transfer.errors",
    "TuneError": "iotune.study.tune",
    "UnsafeEnvironmentError": "iotune.spec.environment",
    "VariabilityError": "iotune.variability.errors",
    "WorkloadError": "iotune.workload",
    "WorldSetupError": "iotune.bench.world",
}

__all__ = sorted(["IotuneError", "SpaceError", "UnitError", "StoreError", "BenchError", "MpiNotFoundError",
                  "ScratchError", *_ELSEWHERE])


__getattr__ = lazy_exports(__name__, _ELSEWHERE)
