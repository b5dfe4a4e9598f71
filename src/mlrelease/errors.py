"""Errors a user can fix: printed as one paragraph, never as a traceback."""

from __future__ import annotations


class UserError(Exception):
    """A problem with the input (config, arguments, repository state) that the user can fix.

    The message says what was expected, what was found and how to fix it. The CLI prints it
    without a traceback and exits with ``exit_code`` (2 by default, like argparse).
    """

    exit_code = 2


class ConfigError(UserError):
    """``[tool.mlrelease]`` (or another configuration file) is invalid."""

    def __init__(self, key: str, expected: str, found: str, *, source: str, hint: str = "") -> None:
        self.key = key
        self.expected = expected
        self.found = found
        self.source = source
        message = f"{source}: {key}: expected {expected}, found {found}."
        if hint:
            message += f" {hint}"
        super().__init__(message)


class PreconditionError(UserError):
    """A mutating step refused to act because the repository is not in the expected state."""

    exit_code = 1
