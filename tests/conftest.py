"""Shared fixtures: where the shared folder is, and skipping (or failing in CI) without it.

The shared folder is ``$KIEKAI_SHARED`` when set, else ``shared`` beside the clone
(:func:`kiekai.paths.shared_dir`), so a clone made anywhere (``/tmp/clone``) finds it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kiekai.paths import shared_dir as _shared_dir

REPO = Path(__file__).resolve().parents[1]
SHARED = _shared_dir()


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """Path of ../shared. Skips the test when absent; fails when CI=true and it is absent."""
    if not (SHARED / "README.md").exists():
        message = (
            f"the shared folder is missing (looked at {SHARED}; set KIEKAI_SHARED to it); "
            "these tests use its decks and labels"
        )
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


# --- heavy set-ups built once per test process (each xdist worker is one process) ---------


@pytest.fixture(scope="session")
def judges():
    """One real, warmed-up judge per strictness level, ``{Strictness: Judge}`` (the
    server's :func:`kiekai.api.load_judges`; ``Strictness`` is a ``StrEnum``, so
    ``judges["strict"]`` works too). Shared by every test of the process."""
    from kiekai.api import load_judges

    return load_judges()


@pytest.fixture(scope="session")
def dev_cards(dev_deck: Path) -> list:
    """The dev deck's cards, read once per process (problems and skips are not printed)."""
    from kiekai.deck import load_deck

    return load_deck(dev_deck, on_skip=lambda *_: None, on_problem=lambda *_: None).cards


def per_level(judges, secret: str, guess: str, levels=("strict", "standard", "lenient")):
    """``(strict, standard, lenient)`` as 0/1: whether each judge accepts ``guess`` for
    ``secret``. Import it from conftest in judge tests: ``from conftest import per_level``."""
    return tuple(int(judges[lv].match(secret, guess).accepted) for lv in levels)
