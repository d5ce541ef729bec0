"""Shared fixtures: where the shared folder is, and skipping (or failing in CI) without it.

The shared folder is ``$KIEKAI_SHARED`` when set, else ``shared`` beside the clone
(:func:`kiekai.paths.shared_dir`), so a clone made anywhere (``/tmp/clone``) finds it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Each pytest-xdist worker (and every program a test starts, which inherits this) runs torch,
# OpenMP and BLAS on one thread: with one worker per core, a thread pool per process
# oversubscribes the cores, and spinning pool threads slow everything down (the judge measured
# one short encoding at 8 ms on one thread against 190 ms in a pool on 2 loaded cores). Set
# before any test module imports torch; an explicit setting in the environment wins.
if os.environ.get("PYTEST_XDIST_WORKER"):
    for _name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(_name, "1")

# Every test, and every program a test starts, keeps its tables' rulings in a store of this
# run's own (kiekai/judge/store.py), never in the user's house-rules.sqlite3, so rulings made
# at the user's own games change no verdict here. An explicit setting in the environment wins.
if not os.environ.get("KIEKAI_STORE"):
    import tempfile as _tempfile

    os.environ["KIEKAI_STORE"] = (
        f"sqlite:///{_tempfile.mkdtemp(prefix='kiekai-test-store-')}/house-rules.sqlite3"
    )

from kiekai.paths import shared_dir as _shared_dir  # noqa: E402

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
    server's :func:`kiekai.judge.server.load_judges`; ``Strictness`` is a ``StrEnum``, so
    ``judges["strict"]`` works too). Shared by every test of the process."""
    from kiekai.judge.server import load_judges

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


# --- scheduling: the heaviest files first -------------------------------------------------

#: Test files by measured cost (seconds of CPU or wall, whichever is larger, from a serial
#: run with per-test ``getrusage``; ``pytest -n 0 --durations=0`` shows the same order).
#: ``--dist loadfile`` keeps each file on one worker (its module fixtures: games played,
#: servers started, judges loaded, are built once), and a worker that is free takes the next
#: file in collection order: the heaviest start first, so no long file is left for the end.
#: A scheduling hint only; a file missing here runs after these, in its usual order.
HEAVY_FIRST = (
    "test_play_cli.py",
    "test_kiek_terminal.py",
    "test_api_limits.py",
    "test_wordnet_index.py",
    "test_eval_scripts.py",
    "test_kiek_web.py",
    "test_kiek_browser.py",
    "test_play_hardening.py",
    "test_perception_play.py",
    "test_judge_embedding_table.py",
    "test_api_server.py",
    "test_judge_house_rules.py",
    "test_store.py",  # a PostgreSQL cluster, 3 x 1,000 writes on each database: ~3 min serial
    "test_kiek_web_serving.py",
    "test_kismet_ui.py",
    "test_judge_speed.py",
)


def pytest_collection_modifyitems(config, items) -> None:
    """Put the files of :data:`HEAVY_FIRST` first, in that order (a stable sort: tests
    inside a file keep their order)."""
    rank = {name: i for i, name in enumerate(HEAVY_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))
