"""Shared test setup.

- Puts ``tests/`` on ``sys.path`` so test modules can ``import naive`` (the slow reference).
- Registers Hypothesis profiles and loads ``ci`` unless ``HYPOTHESIS_PROFILE`` says otherwise:
  ``ci`` is derandomized (the same examples on every run, no example database) with no
  deadline (the first call of a Numba kernel may compile or load it);
  ``dev`` explores new random examples and keeps a database, for local bug hunting:
  ``HYPOTHESIS_PROFILE=dev python -m pytest tests/test_properties.py``.
  Each property test sets its own ``max_examples``; the ``dev`` profile multiplies nothing,
  so raise ``max_examples`` locally to search harder.
"""

from __future__ import annotations

import os
import sys

from hypothesis import HealthCheck, settings

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
if TESTS_DIR not in sys.path:
    sys.path.insert(0, TESTS_DIR)

settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "dev",
    derandomize=False,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
