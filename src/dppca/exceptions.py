"""Warnings and errors raised by dppca."""

from __future__ import annotations


class PrivacyWarning(UserWarning):
    """A requested setting does not establish the privacy guarantee it names.

    Raised, for example, by the classical Gaussian calibration with ``epsilon >= 1``, where the
    textbook proof (Dwork and Roth 2014, Theorem A.1) does not apply.
    """


class DurfeeStepLimitWarning(UserWarning):
    """A Durfee quantile search reached its step limit and returned the last grid point."""


class NoiseDominatedWarning(UserWarning):
    """A released output is dominated by the privacy noise.

    Judged only from released values and public settings (n, epsilon, delta, the noise scales),
    so the warning itself reveals nothing more about the data.
    """


class EmptyHistogramError(ValueError):
    """An additive DP histogram is all zero after noise and clipping (its budget is spent).

    Seed 002 (Section 4.1) specifies an error here rather than a histogram; a larger epsilon or
    fewer bins avoids it.
    """


class BudgetExceededError(ValueError):
    """An :class:`~dppca.Accountant` refused a spend that would exceed its total budget."""
