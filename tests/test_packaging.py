"""kiekai works when installed from a wheel, not only from a checkout.

The wheel is built once per module from a copy of the source files (``pyproject.toml``,
``setup.py``, ``MANIFEST.in``, ``README.md``, ``kiekai/``, ``data/``, ``models/``) with
``pip wheel --no-deps --no-build-isolation --no-index`` (no network), then unpacked into a
temporary folder, which is what ``pip install`` does for a pure-Python wheel. Programs run from
another folder with only that copy on ``PYTHONPATH``, so nothing can be read from the
repository by accident.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from kiekai import paths

REPO = Path(__file__).resolve().parents[1]
#: Repository folder -> folder inside the installed package (see setup.py, kiekai/paths.py).
SHIPPED = {"data": "kiekai/_data", "models": "kiekai/_models"}
SOURCES = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "kiekai", "data", "models")


def _shipped_files() -> dict[str, Path]:
    """Wheel member name -> repository file, for every file setup.py must copy."""
    wanted = {}
    for folder, target in SHIPPED.items():
        for file in sorted((REPO / folder).iterdir()):
            if file.is_file() and not file.name.startswith("."):
                wanted[f"{target}/{file.name}"] = file
    return wanted


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Build kiekai's wheel from a copy of the source files; return the .whl path."""
    if importlib.util.find_spec("setuptools") is None:
        pytest.skip("setuptools is not installed in this environment; it builds the wheel")
    major = int(importlib.metadata.version("setuptools").split(".")[0])
    if major < 68:  # pyproject.toml's build-system requirement
        pytest.skip(f"setuptools {major} is older than the 68 that builds kiekai; upgrade it")
    root = tmp_path_factory.mktemp("wheel-build")
    src = root / "src"
    src.mkdir()
    for name in SOURCES:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(
                source, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
            )
        else:
            shutil.copy2(source, src / name)
    out = root / "dist"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
         "--no-index", "-q", "-w", str(out), str(src)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, f"pip wheel failed:\n{done.stdout}\n{done.stderr}"
    wheels = list(out.glob("kiekai-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel unpacked into a fresh folder (a ``pip install --target`` of a pure wheel)."""
    target = tmp_path_factory.mktemp("wheel-install")
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(target)
    return target


def _run_installed(installed: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(installed), PYTHONNOUSERSITE="1")
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def test_wheel_holds_every_data_file_byte_for_byte(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        for member, source in _shipped_files().items():
            assert member in names, f"{member} (from {source}) is missing from {wheel.name}"
            assert archive.read(member) == source.read_bytes(), f"{member} differs from {source}"
    # The files the code reads by name are among them.
    for needed in (
        "judge-model.json", "vocabulary.tsv", "default-deck.csv",
        "lexnames",
    ):  # fmt: skip
        assert f"kiekai/_data/{needed}" in names
    assert "kiekai/_models/registry.json" in names
    # No top-level data/ or models/ folder leaks into site-packages.
    assert not any(n.startswith(("data/", "models/")) for n in names)


def test_wheel_holds_every_module_of_the_package(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    modules = {p.relative_to(REPO).as_posix() for p in (REPO / "kiekai").rglob("*.py")}
    missing = sorted(modules - names)
    assert not missing, f"modules missing from the wheel: {missing}"


def test_installed_wheel_reads_its_own_copies(installed: Path, tmp_path: Path) -> None:
    script = """
import json, kiekai, kiekai.paths as p
from kiekai import models, lexicon, default_deck
from kiekai.judge.model import MODEL_PATH, load_model
print(json.dumps({
    "package": kiekai.__file__,
    "checkout": p.is_checkout(),
    "data_dir": str(p.data_dir()),
    "registry": str(models.REGISTRY_PATH),
    "registry_data": models.registry(),
    "model_path": str(MODEL_PATH),
    "levels": sorted(level.value for level in load_model().levels),
    "vocabulary": len(lexicon.load_vocabulary().words),
    "listing": str(default_deck.listing_path()),
    "photos": len(default_deck.default_photos()),
}))
"""
    done = _run_installed(installed, tmp_path, "-c", script)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout.strip().splitlines()[-1])
    package_dir = installed / "kiekai"
    assert Path(got["package"]).parent == package_dir
    assert got["checkout"] is False
    assert Path(got["data_dir"]) == package_dir / "_data"
    assert Path(got["registry"]) == package_dir / "_models" / "registry.json"
    assert got["registry_data"] == json.loads((REPO / "models" / "registry.json").read_text())
    assert Path(got["model_path"]) == package_dir / "_data" / "judge-model.json"
    assert set(got["levels"]) == {"strict", "standard", "lenient"}
    assert got["vocabulary"] > 100
    assert Path(got["listing"]) == package_dir / "_data" / "default-deck.csv"
    assert got["photos"] == len((REPO / "data" / "default-deck.csv").read_text().splitlines()) - 1


def test_installed_wheel_names_a_missing_file_and_the_fix(installed: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(installed, broken)
    (broken / "kiekai" / "_data" / "judge-model.json").unlink()
    done = _run_installed(
        broken, tmp_path, "-c", "from kiekai.judge.model import load_model; load_model()"
    )
    assert done.returncode != 0
    assert "judge-model.json not found" in done.stderr
    assert "pip install --force-reinstall kiekai" in done.stderr


@pytest.mark.slow
def test_installed_wheel_judge_command(installed: Path, tmp_path: Path) -> None:
    """``kiekai judge`` end to end from the wheel (loads WordNet and MiniLM: ~10 s)."""
    done = _run_installed(installed, tmp_path, "-m", "kiekai", "judge", "people", "humans")
    assert done.returncode == 0, done.stdout + done.stderr
    verdict = done.stdout.strip().splitlines()[-2]
    assert verdict.split()[0] in {"ACCEPTED", "REJECTED"}, done.stdout


def test_checkout_resolves_to_the_repository_folders() -> None:
    assert paths.is_checkout()
    assert paths.data_file("judge-model.json") == REPO / "data" / "judge-model.json"
    assert paths.registry_path() == REPO / "models" / "registry.json"


def test_missing_file_message_in_a_checkout_says_how_to_restore() -> None:
    message = paths.missing_file_message(
        REPO / "data" / "judge-model.json", "judge model", remake="python scripts/fit_judge.py"
    )
    assert str(REPO / "data" / "judge-model.json") in message
    assert "python scripts/fit_judge.py" in message
    assert "git checkout -- data/judge-model.json" in message
    outside = paths.missing_file_message(Path("/nowhere/model.json"), "judge model")
    assert outside == "judge model /nowhere/model.json not found; check the path"
    remade = paths.missing_file_message(Path("/nowhere/m.json"), "judge model", remake="fit")
    assert (
        remade
        == "judge model /nowhere/m.json not found; check the path or create the file with `fit`"
    )


@pytest.mark.parametrize("name", ["", "../pyproject.toml", "/etc/passwd", "a/../../b"])
def test_data_file_rejects_names_outside_the_data_folder(name: str) -> None:
    with pytest.raises(ValueError, match="bad data file name"):
        paths.data_file(name)
