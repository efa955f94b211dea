"""Test configuration: Hypothesis draws a fixed sequence of examples unless asked to explore.

``HYPOTHESIS_PROFILE=explore make test`` searches fresh random examples; the default profile is
derandomized so that a run on a clean clone (CI) is reproducible.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("reproducible", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "reproducible"))
