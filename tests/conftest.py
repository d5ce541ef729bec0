"""Shared fixtures: where ../shared is, and skipping (or failing in CI) without it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """Path of ../shared. Skips the test when absent; fails when CI=true and it is absent."""
    if not (SHARED / "README.md").exists():
        message = f"../shared is missing (looked at {SHARED}); these tests use its decks and labels"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message + " and CI=true requires it")
        pytest.skip(message)
    return SHARED


@pytest.fixture(scope="session")
def dev_deck(shared_dir: Path) -> Path:
    """The 600-photo development deck ../shared/decks/imagenet-dev."""
    return shared_dir / "decks" / "imagenet-dev"


@pytest.fixture(scope="session")
def bad_photos(shared_dir: Path) -> Path:
    """The folder of awkward photo files ../shared/bad-inputs/photos."""
    return shared_dir / "bad-inputs" / "photos"
