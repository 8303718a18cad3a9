"""The self-checks import the graded suites, whose tests carry the task markers: register them here too."""

from __future__ import annotations

import pytest

from grader.tasks import register_markers


def pytest_configure(config: pytest.Config) -> None:
    register_markers(config)
