"""No module of kiekai keeps mutable model state in a global, and one Resources holds one
WordNet reader.

The WordNet reader, the sentence encoder, the embedding table, the per-word vectors and
the progress reporter live in a :class:`kiekai.judge.resources.Resources` that each
command builds and hands on; derived data of a vocabulary lives with the vocabulary.
The check reads every module's source (AST) for the three ways state hid in globals:
a ``global`` statement, a module-level dict/list/set that the module mutates, and a
cache keyed by ``id(obj)`` (which keeps every object it saw alive, and can hand a new
object the entry of a dead one that had the same id).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "kiekai"

#: Calls that make a mutable container.
_CONTAINER_CALLS = {
    "dict", "list", "set", "defaultdict", "OrderedDict", "Counter", "deque",
    "WeakValueDictionary", "WeakKeyDictionary",
}  # fmt: skip
#: Methods that change a container in place.
_MUTATORS = {
    "append", "extend", "insert", "add", "update", "setdefault", "pop", "popitem",
    "remove", "discard", "clear", "__setitem__",
}  # fmt: skip

#: Module globals that the check finds and that are not model state, each with why.
#: An entry that the check no longer finds fails the test too, so the list stays true.
ALLOWED = {
    ("kiekai/events.py", "mutated EVENT_DATA"): (
        "the registry of event models, filled by a decorator while the module is imported"
    ),
    ("kiekai/events.py", "mutated EVENT_TYPES"): (
        "the same registry the other way round (model -> game and event type)"
    ),
    ("kiekai/deck/decode.py", "mutated _INFO_CACHE"): (
        "validation results of photos keyed by their SHA-256: facts about files, not a model"
    ),
    ("kiekai/judge/everyday.py", "mutated _CACHE"): (
        "the parsed everyday lexicon per data folder: immutable data read from files"
    ),
}


def _module_containers(tree: ast.Module) -> set[str]:
    """Names bound at module level to a new mutable container."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        literal = isinstance(value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp))
        call = isinstance(value, ast.Call) and (
            (isinstance(value.func, ast.Name) and value.func.id in _CONTAINER_CALLS)
            or (isinstance(value.func, ast.Attribute) and value.func.attr in _CONTAINER_CALLS)
        )
        if literal or call:
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def _is_id_call(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "id"
        and len(node.args) == 1
    )


def _mutated(node: ast.AST, containers: set[str]) -> str | None:
    """The module container ``node`` changes in place, if any."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id in containers
        and node.func.attr in _MUTATORS
    ):
        return node.func.value.id
    targets: list[ast.AST] = []
    if isinstance(node, ast.Assign):
        targets = list(node.targets)
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        targets = [node.target]
    elif isinstance(node, ast.Delete):
        targets = list(node.targets)
    for target in targets:
        if (
            isinstance(target, ast.Subscript)
            and isinstance(target.value, ast.Name)
            and target.value.id in containers
        ):
            return target.value.id
    return None


def module_state(source: str) -> set[str]:
    """What in ``source`` keeps state in module globals: ``"global NAME"`` for each name
    a ``global`` statement rebinds, ``"mutated NAME"`` for each module-level container
    changed in place, ``"id() key"`` when ``id(...)`` keys a lookup or a store."""
    tree = ast.parse(source)
    containers = _module_containers(tree)
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            found.update(f"global {name}" for name in node.names)
        name = _mutated(node, containers)
        if name is not None:
            found.add(f"mutated {name}")
        if isinstance(node, ast.Subscript) and _is_id_call(node.slice):
            found.add("id() key")
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in {"get", "setdefault", "pop"}
            and node.args
            and _is_id_call(node.args[0])
        ):
            found.add("id() key")
    return found


def test_the_check_finds_each_kind_of_module_state() -> None:
    source = (
        "_READER = None\n"
        "_VECTORS: dict = {}\n"
        "_SEEN = set()\n"
        "_TABLE = []\n"
        "CONSTANT = {'a': 1}\n"
        "def reader():\n"
        "    global _READER\n"
        "    _READER = object()\n"
        "def store(word, vec):\n"
        "    _VECTORS[word] = vec\n"
        "    _SEEN.add(word)\n"
        "    return CONSTANT['a']\n"
        "def index(vocabulary, cache={}):\n"
        "    hit = cache.get(id(vocabulary))\n"
        "    _TABLE.append(hit)\n"
    )
    assert module_state(source) == {
        "global _READER",
        "mutated _VECTORS",
        "mutated _SEEN",
        "mutated _TABLE",
        "id() key",
    }
    assert module_state("X = {}\ndef f():\n    return X.get('a')\n") == set()  # read only


def test_no_module_keeps_model_state_in_a_global() -> None:
    found = {
        (path.relative_to(REPO).as_posix(), item)
        for path in sorted(PACKAGE.rglob("*.py"))
        for item in module_state(path.read_text(encoding="utf-8"))
    }
    assert found - ALLOWED.keys() == set(), "module-level state; hold it in a Resources"
    assert ALLOWED.keys() - found == set(), "gone: remove it from ALLOWED"


def test_the_judges_globals_are_gone() -> None:
    from kiekai.judge import resources, wordnet_index

    for name in ("_WORDNET", "_VECTORS", "_TABLE", "_TABLE_LOOKED_UP", "_REPORTER", "_WARNED"):
        assert not hasattr(resources, name), name
    assert not hasattr(wordnet_index, "FALLBACKS")


def test_resources_hold_their_own_state() -> None:
    """Two Resources share nothing: vectors, table, reporter and kept objects are each
    object's own, and the one in force is the innermost ``use``."""
    import numpy as np

    from kiekai.judge.resources import Resources, current, default_resources

    lines: list[str] = []
    first = Resources(report=lines.append, embedding_table=None)
    second = Resources(embedding_table=None)
    first._store("zqxv", np.ones(384, dtype=np.float32))
    assert first.in_tables("zqxv") and not second.in_tables("zqxv")
    first.say("loading")
    second.say("not heard")
    assert lines == ["loading"]
    assert first.keep("k", object) is first.keep("k", object) is not second.keep("k", object)
    assert current() is default_resources()
    with first.use():
        assert current() is first
        with second.use():
            assert current() is second
        assert current() is first
    assert current() is default_resources()


def test_a_judge_reads_its_own_resources(monkeypatch) -> None:
    """A judge made with Resources puts them in force for its calls, in any thread; one
    made without takes those in force where it is made."""
    import threading

    from kiekai.judge import Judge, lexical
    from kiekai.judge.resources import Resources, current, default_resources

    mine = Resources(**default_resources().loaded_parts())
    judge = Judge("standard", resources=mine)
    assert judge.resources is mine
    assert Judge("standard").resources is default_resources()
    with mine.use():
        assert Judge("lenient").resources is mine
    seen: list[Resources] = []

    def one_word_check(text: str) -> tuple[bool, str]:
        seen.append(current())
        return True, ""

    monkeypatch.setattr(lexical, "one_word_check", one_word_check)
    assert judge.check_word("dog").accepted
    thread = threading.Thread(target=judge.check_word, args=("cat",))
    thread.start()
    thread.join()
    assert seen == [mine, mine]
    assert current() is default_resources()  # put back after each call


@pytest.mark.slow
def test_a_game_of_judge_lexicon_and_perception_opens_one_wordnet() -> None:
    """In a fresh process, the judge, the lexicon, the label perception and the bots'
    truth checks read the one reader of one Resources (the index): NLTK's reader is
    never loaded beside it."""
    script = (
        "import sys\n"
        "from kiekai import models\n"
        "from kiekai.judge import Judge\n"
        "from kiekai.judge.resources import Resources\n"
        "from kiekai.lexicon import all_categories, wordnet_noun_senses, synset_for_wnid\n"
        "from kiekai.perception.labels import usual_noun_senses\n"
        "from kiekai.eval.common import Taxonomy\n"
        "res = Resources()\n"
        "with res.use():\n"
        "    judge = Judge('standard')\n"
        "    assert judge.resources is res\n"
        "    verdicts = [judge.match('people', 'humans').accepted,\n"
        "                judge.match('dog', 'cat').accepted,\n"
        "                judge.is_repeat('puppies', ['dogs']).accepted]\n"
        "    senses = [s.name() for s in wordnet_noun_senses('dogs')]\n"
        "    usual = [s.name() for s in usual_noun_senses('dog')]\n"
        "    tench = synset_for_wnid('n01440764').name()\n"
        "    vocabulary = all_categories()\n"
        "    objects = vocabulary.synset_objects(vocabulary.words[0])\n"
        "    taxonomy = Taxonomy()\n"
        "    assert taxonomy.wn is res.wordnet()\n"
        "print(type(res.wordnet()).__name__, models.wordnet.cache_info().currsize,\n"
        "      'nltk.corpus.reader.wordnet' in sys.modules and any(\n"
        "          type(o).__name__ == 'WordNetCorpusReader' for o in __import__('gc').get_objects()\n"
        "      ), verdicts, senses[0], usual[0], tench)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "KIEKAI_WORDNET_INDEX"}
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO,
        env={**env, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split()[:3] == ["WordNetIndex", "0", "False"], done.stdout
    assert "dog.n.01" in done.stdout and "tench.n.01" in done.stdout
