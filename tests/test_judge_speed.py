"""One verdict from the command line loads nothing slow when its words are in the
judge's tables (issue 10, item 5): no torch, no NLTK corpus reader, no line on stderr;
words outside the tables load the sentence model and say so on stderr.

Each command runs in a fresh process with ``python -X importtime``, which lists every
module the process imported; times are measured by ``scripts/bench_judge.py``, not here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from judge_tables import small_table_cache

from kiekai.judge import Judge

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
#: Modules a verdict on words in the tables must not import.
HEAVY = ("torch", "sentence_transformers", "transformers", "nltk", "typeguard", "textual")


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    return small_table_cache(tmp_path_factory.mktemp("kiekai-cache"))


def kiekai(cache: Path, *args: str) -> tuple[subprocess.CompletedProcess, set[str]]:
    """Run ``python -X importtime -m kiekai ARGS`` with ``cache`` as kiekai's cache;
    returns the finished process (stderr without the import lines) and the top-level
    names of the modules it imported."""
    env = dict(os.environ, KIEKAI_CACHE_DIR=str(cache))
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "kiekai", *args],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    imported, other = set(), []
    for line in done.stderr.splitlines():
        if line.startswith("import time:"):
            name = line.rsplit("|", 1)[-1].strip()
            imported.add(name.split(".")[0])
        else:
            other.append(line)
    done.stderr = "\n".join(other)
    return done, imported


def test_verdicts_on_tabled_words_load_nothing_slow(cache) -> None:
    done, imported = kiekai(cache, "judge", "people", "humans", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["accepted"] == Judge().match("people", "humans").accepted
    assert not imported & set(HEAVY), sorted(imported & set(HEAVY))
    assert done.stderr == ""  # nothing to announce

    done, imported = kiekai(cache, "repeat", "stones", "--used", "rocks,trees", "--json")
    assert done.returncode == 0, done.stderr
    assert (
        json.loads(done.stdout)["matched"]
        == Judge().is_repeat("stones", ["rocks", "trees"]).matched
    )
    assert not imported & set(HEAVY) and done.stderr == ""

    done, imported = kiekai(cache, "judge", "mice", "mouse")  # decided by form alone
    assert done.returncode == 0 and done.stdout.startswith("ACCEPTED")
    assert not imported & set(HEAVY)
    # the judge command imports no other command's module (Kismet, Textual, deck tools)
    assert "kiekai.commands.kismet" not in done.stderr


def test_words_outside_the_tables_load_the_sentence_model_and_say_so(cache) -> None:
    done, imported = kiekai(cache, "judge", "zymurgy", "quillwort", "--json")
    assert done.returncode == 0, done.stderr
    assert "torch" in imported
    assert "loading the sentence model" in done.stderr
    assert json.loads(done.stdout)["accepted"] is False  # stdout is the JSON alone


def test_inflect_answers_the_same_without_typeguard_instrumentation() -> None:
    """inflect is imported without typeguard's recompiling decorator (1-2 s): the same
    answers as an inflect imported normally, in a separate process."""
    from kiekai.judge.normalize import _inflect_engine

    words = ["people", "mice", "news", "geese", "buses", "cactuses", "species", "data"]
    script = (
        "import inflect, json, sys\n"
        "e = inflect.engine()\n"
        "words = json.loads(sys.argv[1])\n"
        "print(json.dumps([[e.singular_noun(w), e.plural(w)] for w in words]"
        " + [e.number_to_words(n, andword='') for n in ('7', '21', '1000', '123456789')]))\n"
    )
    normal = subprocess.run(
        [sys.executable, "-c", script, json.dumps(words)], capture_output=True, text=True
    )
    assert normal.returncode == 0, normal.stderr
    engine = _inflect_engine()
    mine = [[engine.singular_noun(w), engine.plural(w)] for w in words] + [
        engine.number_to_words(n, andword="") for n in ("7", "21", "1000", "123456789")
    ]
    assert json.loads(normal.stdout) == json.loads(json.dumps(mine))
    typeguard = sys.modules.get("typeguard")
    if typeguard is not None:  # whoever imports typeguard later gets the real decorator
        assert typeguard.typechecked.__module__.startswith("typeguard")
