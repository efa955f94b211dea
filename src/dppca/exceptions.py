"""Warnings and errors raised by dppca."""

from __future__ import annotations


class PrivacyWarning(UserWarning):
    """A requested setting does not establish the privacy guarantee it names.

    Raised, for example, by the classical Gaussian calibration with ``epsilon >= 1``, where the
    textbook proof (Dwork and Roth 2014, Theorem A.1) does not apply.
    """


class DurfeeStepLimitWarning(UserWarning):
    """A Durfee quantile search reached its step limit and returned the last grid point."""
