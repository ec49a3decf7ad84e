"""User-facing errors. Each becomes one line on stderr and exit code 2."""

from __future__ import annotations


class DoctorError(Exception):
    """Bad input, bad usage or a failure of the doctor itself: one line, exit 2."""

    exit_code = 2


class InputError(DoctorError):
    """A model, facts file, profile or config that cannot be used."""


class UsageError(DoctorError):
    """Command-line arguments that do not make sense together."""
