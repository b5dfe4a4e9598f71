"""The one way mlrelease starts a Python subprocess: nothing from the current directory runs.

``python -m TOOL`` (and ``python -c``) puts the current directory first on ``sys.path``, so a
folder ``mlrelease/``, ``build/`` or a file ``tomllib.py`` in the working directory (a submitted
model's folder, an adopter's repository) would be imported instead of the real module, and run.
Python 3.11 has ``-P`` against it; 3.10 has nothing but ``-I``, which also drops ``PYTHONPATH``
and the user's site-packages that workers need. So every Python subprocess starts as
``python [options] -c BOOTSTRAP -m MODULE args...``: the bootstrap (:data:`BOOTSTRAP`, plain code
on the command line, so nothing can shadow it) removes the current directory that ``-c`` put
first, drops every relative ``sys.path`` entry (``PYTHONPATH=:/x`` means "the current
directory" too) and the relative parts of ``PYTHONPATH`` (for the grandchildren), then runs the
module exactly as ``-m`` would (``runpy._run_module_as_main``, which ``-m`` itself calls).

It works the same on every Python from 3.8 on, whatever the working directory: tools that need
``cwd`` = the project (build, pytest, Sphinx) keep it, without its folder on ``sys.path``. Folders
a caller names (``PYTHONPATH`` with absolute paths) stay: they were asked for.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Sequence

BOOTSTRAP = """\
def _start():
    import os, sys
    if not (sys.flags.isolated or getattr(sys.flags, "safe_path", False)):
        del sys.path[0]  # what -c puts first: the current directory
    value = None if sys.flags.ignore_environment else os.environ.get("PYTHONPATH")
    relative = set()
    if value is not None:
        parts = value.split(os.pathsep)
        relative = {os.path.abspath(p) for p in parts if not os.path.isabs(p)}
        kept = os.pathsep.join(p for p in parts if os.path.isabs(p))
        if kept:
            os.environ["PYTHONPATH"] = kept
        else:
            del os.environ["PYTHONPATH"]
    sys.path[:] = [p for p in sys.path if os.path.isabs(p) and p not in relative]
    kind, target = sys.argv[1], sys.argv[2]
    del sys.argv[1:3]
    main = sys.modules["__main__"].__dict__
    main.pop("_start", None)
    import runpy
    if kind == "-m":
        runpy._run_module_as_main(target)
    elif kind == "-c":
        sys.argv[0] = "-c"
        exec(compile(target, "<string>", "exec"), main)
    else:
        sys.path.insert(0, os.path.dirname(os.path.abspath(target)))
        runpy.run_path(target, run_name="__main__")
_start()
"""
"""Run by ``python -c`` before anything else is imported: ``argv[1:3]`` say what to run
(``-m MODULE``, ``-c CODE`` or ``- SCRIPT``), the rest are its arguments."""

_WITH_VALUE = ("-X", "-W")
"""Interpreter options that take the next argument as their value."""


def python_module(
    module: str, *args: str, interpreter: str | os.PathLike[str] | None = None
) -> list[str]:
    """The command line of ``python -m module args...``, without the current directory on
    ``sys.path``. ``interpreter``: another Python (a virtual environment's); default: this one."""
    return python("-m", module, *args, interpreter=interpreter)


def python(*args: str, interpreter: str | os.PathLike[str] | None = None) -> list[str]:
    """The command line of ``python args...`` (interpreter options, then ``-m MODULE``, ``-c
    CODE`` or a script, then its arguments), without the current directory on ``sys.path``.

    A script's own folder stays first on ``sys.path``, as Python puts it there: the script was
    named, so its folder was too. Options alone (``python -V``) run nothing and pass as they
    are. Raises ValueError for a program read from standard input (``-``) or ``-m``/``-c``
    without a value.
    """
    exe = os.fspath(interpreter) if interpreter is not None else sys.executable
    options: list[str] = []
    rest = list(args)
    while rest and rest[0].startswith("-") and rest[0] not in ("-m", "-c", "-"):
        option = rest.pop(0)
        options.append(option)
        if option in _WITH_VALUE and rest:
            options.append(rest.pop(0))
    if not rest:
        return [exe, *options]
    if rest[0] == "-" or (rest[0] in ("-m", "-c") and len(rest) < 2):
        raise ValueError(f"a Python command line must name a module, code or a script: {args!r}")
    if rest[0] in ("-m", "-c"):
        kind, target, tail = rest[0], rest[1], rest[2:]
    else:
        kind, target, tail = "-", rest[0], rest[1:]
    return [exe, *options, "-c", BOOTSTRAP, kind, target, *tail]


def display(command: Sequence[str]) -> str:
    """A command line as a person reads it: a launcher's bootstrap shows as ``-P`` (Python
    3.11's spelling of "no unsafe path first"), so ``python -P -m twine upload ...``."""
    argv = list(command)
    for at in range(1, len(argv) - 3):
        if argv[at] == "-c" and argv[at + 1] == BOOTSTRAP:
            kind, target = argv[at + 2], argv[at + 3]
            shown = [target] if kind == "-" else [kind, target]
            argv = [*argv[:at], "-P", *shown, *argv[at + 4 :]]
            break
    return shlex.join(argv)
