"""One root error for everything iotune raises on purpose.

Each subclass also inherits the builtin it refines, so callers that catch
``ValueError`` or ``OSError`` keep working.  The CLI turns any ``IotuneError``
into one line on stderr and a non-zero exit.
"""


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
