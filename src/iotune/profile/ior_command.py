"""A :class:`Workload` from an IOR command line (paper 000, Section 2.2: IOR mimics an application's I/O).

``mpiexec -n 16 ior -a MPIIO -c -t 4m -b 64m -s 2 -F -w -r -e`` and IOR's long
options (``--blockSize=64m``, ``--api MPIIO``) are understood.  IOR's
defaults apply to what is not given (POSIX, 1 MiB blocks, 256 KiB transfers,
one segment, one shared file, write then read).  Each segment is taken as one
I/O iteration of ``block_size`` bytes per process; ``-i`` repetitions are
repeats of the benchmark, not iterations.  Options that do not change the
workload are accepted silently; unknown ones are listed in the warnings.
"""

from __future__ import annotations

import shlex
from pathlib import PurePath

from iotune.errors import UnitError
from iotune.units import parse_size
from iotune.workload import Workload, WorkloadError

# short option -> (long name, takes a value)
OPTIONS = {
    "a": ("api", True), "b": ("blockSize", True), "t": ("transferSize", True), "s": ("segmentCount", True),
    "F": ("filePerProc", False), "c": ("collective", False), "w": ("writeFile", False), "r": ("readFile", False),
    "e": ("fsync", False), "i": ("repetitions", True), "N": ("numTasks", True), "o": ("testFile", True),
    "C": ("reorderTasks", False), "k": ("keepFile", False), "v": ("verbose", False), "z": ("randomOffset", False),
    "Y": ("fsyncPerWrite", False), "E": ("useExistingTestFile", False), "g": ("intraTestBarriers", False),
    "d": ("interTestDelay", True), "D": ("deadlineForStonewalling", True), "m": ("multiFile", False),
    "u": ("uniqueDir", False), "Q": ("taskPerNodeOffset", True), "Z": ("reorderTasksRandom", False),
    "X": ("reorderTasksRandomSeed", True), "W": ("checkWrite", False), "R": ("checkRead", False),
    "G": ("setTimeStampSignature", True), "l": ("datapacket", True), "H": ("showHints", False),
    "U": ("hintsFileName", True), "O": ("options", True), "q": ("quitOnError", False),
    "x": ("singleXferAttempt", False),
    "j": ("outlierThreshold", True), "J": ("setAlignment", True), "T": ("maxTimeDuration", True),
    "f": ("scriptFile", True), "B": ("useO_DIRECT", False), "y": ("dualMount", False),
    "P": ("useSharedFilePointer", False),
    "S": ("useStridedDatatype", False), "V": ("useFileView", False), "I": ("individualDataSets", False),
    "n": ("noFill", False), "p": ("preallocate", False), "L": ("summaryAlways", False),
    "K": ("keepFileWithError", False),
}
LONG = {name: value for name, value in OPTIONS.values()}
LONG_VALUES = {"summaryFormat", "summaryFile", "warningAsErrors", "dryRun", "randomPrefill", "memoryPerTask",
               "memoryPerNode", "stoneWallingWearOut", "stoneWallingStatusFile", "minTimeDuration", "dataPacketType"}
FREE_LONG = ("posix.", "mpiio.", "hdf5.", "ncmpi.", "mmap.", "summaryFormat", "summaryFile", "warningsAsErrors",
             "dryRun", "randomPrefill", "memoryPerTask", "memoryPerNode", "stoneWalling", "minTimeDuration",
             "dataPacketType", "saveRankPerformanceDetails")
APIS = {"POSIX": "POSIX", "MPIIO": "MPIIO", "HDF5": "HDF5", "NCMPI": "PnetCDF", "PNETCDF": "PnetCDF"}


def _size(option: str, text: str) -> int:
    try:
        size = parse_size(text)
    except (UnitError, ValueError):
        raise WorkloadError(f"IOR option {option}: {text!r} is not a size (examples: 4m, 256k, 1g)") from None
    if size < 1 or size > 2**50:  # IOR itself refuses -t 0 and -b 0
        raise WorkloadError(f"IOR option {option}: {text!r} must be from 1 byte to 1 PiB")
    return size


def _count(option: str, text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise WorkloadError(f"IOR option {option}: {text!r} is not an integer") from None
    if value < 1:
        raise WorkloadError(f"IOR option {option}: must be at least 1, got {value}")
    return value


def _text(settings: dict[str, str | bool], name: str, default: str = "") -> str:
    """The value of an option that takes one (:func:`_options` stores text for those, True for flags)."""
    value = settings.get(name, default)
    return value if isinstance(value, str) else default


def _split(command: str | list[str]) -> tuple[list[str], list[str]]:
    """Launcher tokens (up to and with the ``ior`` program) and IOR's arguments."""
    tokens = shlex.split(command) if isinstance(command, str) else list(command)
    for index, token in enumerate(tokens):
        if PurePath(token).name == "ior":
            return tokens[:index + 1], tokens[index + 1:]
    raise WorkloadError(f"not an IOR command line (no 'ior' program in {' '.join(tokens)!r})")


def _launcher_processes(tokens: list[str]) -> int | None:
    for index, token in enumerate(tokens):
        name, sep, value = token.partition("=")
        if name in ("--np", "--ntasks", "--n") and sep:
            return _count(name, value)
        if token in ("-n", "-np", "--np", "--ntasks") and index + 1 < len(tokens):
            return _count(token, tokens[index + 1])
    return None


def _options(arguments: list[str]) -> tuple[dict[str, str | bool], list[str], int | None]:
    """IOR settings by long name, unknown options, and an ``-np N`` given among IOR's arguments."""
    settings: dict[str, str | bool] = {}
    unknown: list[str] = []
    processes = None
    index = 0
    while index < len(arguments):
        token = arguments[index]
        index += 1
        if token in ("-np", "--np", "-n") and index < len(arguments):
            processes = _count(token, arguments[index])
            index += 1
        elif token.startswith("--"):
            name, sep, value = token[2:].partition("=")
            if name in LONG:
                if LONG[name] and not sep:
                    if index >= len(arguments):
                        raise WorkloadError(f"IOR option --{name} needs a value")
                    value = arguments[index]
                    index += 1
                settings[name] = value if LONG[name] else True
            elif not name.startswith(FREE_LONG) and name not in LONG_VALUES:
                unknown.append(token)
        elif token.startswith("-") and len(token) > 1:
            letters = token[1:]
            while letters:
                letter, letters = letters[0], letters[1:]
                if letter not in OPTIONS:
                    unknown.append(f"-{letter}")
                    continue
                name, takes = OPTIONS[letter]
                if not takes:
                    settings[name] = True
                    continue
                if not letters:
                    if index >= len(arguments):
                        raise WorkloadError(f"IOR option -{letter} needs a value")
                    letters = arguments[index]
                    index += 1
                settings[name] = letters.removeprefix("=")
                letters = ""
        else:
            unknown.append(token)
    return settings, unknown, processes


def from_ior_command(command: str | list[str]) -> Workload:
    """The workload an IOR command line runs; WorkloadError for a command that is not IOR or a bad value."""
    launcher, arguments = _split(command)
    settings, unknown, inner = _options(arguments)
    notes, warnings = [], []
    processes = inner or _launcher_processes(launcher)
    if "numTasks" in settings:
        processes = processes or _count("-N", _text(settings, "numTasks"))
    if processes is None:
        processes = 1
        warnings.append("no process count (mpiexec -n N or IOR -N): 1 process assumed")
    io_processes = min(processes, _count("-N", _text(settings, "numTasks"))) if "numTasks" in settings else processes
    api_name = str(settings.get("api", "POSIX")).upper()
    api = APIS.get(api_name)
    if api is None:
        api = "POSIX"
        warnings.append(f"IOR API {api_name} is not modelled: taken as POSIX")
    block = _size("-b", _text(settings, "blockSize", "1m"))
    transfer = _size("-t", _text(settings, "transferSize", "256k"))
    segments = _count("-s", _text(settings, "segmentCount", "1"))
    write, read = bool(settings.get("writeFile")), bool(settings.get("readFile"))
    if not write and not read:
        write = read = True
        notes.append("neither -w nor -r: IOR writes then reads")
    if "repetitions" in settings:
        notes.append(f"-i {settings['repetitions']}: benchmark repetitions, not application iterations")
    if settings.get("collective") and api == "POSIX":
        warnings.append("-c (collective) has no effect with the POSIX API")
    if unknown:
        warnings.append(f"unknown IOR option(s) ignored: {' '.join(unknown)}")
    total = block * segments * io_processes
    return Workload.from_io(
        interface=api, processes=io_processes, job_processes=processes, transfer_size=transfer,
        bytes_per_process=block, bytes_read=total if read else 0, bytes_written=total if write else 0,
        collective=bool(settings.get("collective")) and api != "POSIX", shared_file=not settings.get("filePerProc"),
        iterations=segments, modules=[api], source=shlex.join([*launcher, *arguments]), notes=notes,
        warnings=warnings)
