"""The judge's HTTP API under its older name: every public name of
:mod:`kiekai.judge.server`, re-exported, so that ``from kiekai.api import create_app`` and
``uvicorn --factory kiekai.api:create_app`` keep working. New code imports
:mod:`kiekai.judge.server`.
"""

from __future__ import annotations

from kiekai.judge.server import *  # noqa: F403 - the shim re-exports the package's names
from kiekai.judge.server import __all__ as __all__
