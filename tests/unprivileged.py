"""Run a command as an unprivileged user although the checkout may sit where only root can enter.

A clone in /root, or in a ``mktemp -d`` directory (mode 700), cannot be read by uid 65534: a plain
``setpriv --reuid=65534 python -m iotune`` found "No module named iotune".  When the checkout is not
readable by the user, the command runs in a private mount namespace in which the repository is also
bind-mounted at a world-traversable path (the files keep their own modes); the interpreter and
PYTHONPATH are taken from there.  The namespace, and with it the mount, ends with the command.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
NOBODY = "65534"
_BIND = 'mount --bind "$1" "$2" || exit 125; shift 2; exec "$@"'


def _setpriv(user: str) -> list[str]:
    return ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups"]


def readable_by(user: str, path: Path = REPO / "src" / "iotune" / "__init__.py") -> bool:
    """Whether ``user`` can read ``path`` (by trying, as that user)."""
    return subprocess.run([*_setpriv(user), "test", "-r", str(path)]).returncode == 0


def run_as(user: str, command: list[str], *, env: dict | None = None, **kwargs) -> subprocess.CompletedProcess:
    """``subprocess.run(command)`` as ``user`` (we are root), the checkout readable to it wherever it lies."""
    command = [str(word) for word in command]
    if readable_by(user):
        return subprocess.run([*_setpriv(user), *command], env=env, **kwargs)
    view = tempfile.mkdtemp(prefix="iotune-view-")
    try:
        os.chmod(view, 0o755)
        inside = [view + word[len(str(REPO)):] if word == str(REPO) or word.startswith(f"{REPO}/") else word
                  for word in command]
        env = dict(os.environ if env is None else env)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [f"{view}/src", env.get("PYTHONPATH")]))
        return subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", _BIND, "sh", str(REPO),
                               view, *_setpriv(user), *inside], env=env, **kwargs)
    finally:
        shutil.rmtree(view, ignore_errors=True)
