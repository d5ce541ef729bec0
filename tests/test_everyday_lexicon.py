"""The everyday lexicon (data/everyday-*.txt, kiekai/judge/everyday.py): its lookups, its
consistency, and a WordNet cross-check that lists pairs for review.

Run with ``-s`` to see the sizes and the review lists printed.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from kiekai import paths
from kiekai.judge.everyday import (
    FILES,
    KINDS,
    EverydayLexicon,
    LexiconError,
    consistency_problems,
    everyday_lexicon,
)
from kiekai.judge.normalize import normalise

REPO = Path(__file__).resolve().parents[1]

#: Pairs a table rules on, by kind, from the rulebook ("Imperfect Guesses") and the
#: misses named in issue 10 (not from any labelled file).
EXPECTED = {
    "same": [
        ("people", "humans"), ("people", "persons"), ("people", "human beings"),
        ("photo", "picture"), ("picture", "photograph"), ("garbage", "trash"),
        ("trash", "rubbish"), ("plane", "aircraft"), ("airplane", "aeroplane"),
        ("sofa", "couch"), ("candy", "sweets"), ("kid", "child"), ("stairs", "staircase"),
        ("glasses", "spectacles"), ("monochrome", "black-and-white"),
        ("monochrome", "black and white"), ("sad", "unhappy"), ("many", "lots"),
        ("dog", "canine"), ("truck", "lorry"), ("colour", "color"), ("grey", "gray"),
        ("bike", "bicycle"), ("tv", "television"), ("mum", "mother"), ("sea", "ocean"),
        ("house", "home"), ("road", "street"), ("money", "cash"), ("rock", "stone"),
        ("boat", "ship"), ("many", "multiple"),
        ("autumn", "fall"), ("fries", "chips"), ("crisps", "chips"),
        ("man-made", "artificial"), ("living thing", "organism"),
    ],
    # v3: derived words that name the same thing (the standard level's definition)
    "derived": [("snow", "snowy"), ("stripes", "striped"), ("mud", "muddy")],
    # v3: derived words whose meaning shifts (the lenient level's definition: sun/sunny)
    # or that name the person doing it
    "derived-near": [("sun", "sunny"), ("dancing", "dancer"), ("music", "musician")],
    "near": [
        ("hot", "warm"), ("small", "tiny"), ("wet", "damp"), ("big", "huge"),
        ("cold", "freezing"), ("river", "stream"), ("cup", "mug"),
        ("hill", "mountain"), ("forest", "trees"), ("lawn", "grass"), ("red", "reddish"),
        # v3: degree nouns (anger / rage)
        ("anger", "rage"), ("funny", "hilarious"),
    ],
    "hyponym": [
        ("dog", "puppy"), ("dogs", "puppies"), ("flower", "rose"), ("tree", "oak"),
        ("bird", "parrot"), ("car", "taxi"), ("lion", "lioness"), ("canine", "poodle"),
    ],
    "different": [
        ("car", "truck"), ("car", "bus"), ("cat", "dog"), ("morning", "evening"),
        ("automobile", "lorry"), ("apple", "pear"), ("rose", "tulip"), ("shirt", "dress"),
        ("rabbit", "mouse"), ("breakfast", "dinner"), ("spring", "winter"),
        ("evening", "night"), ("van", "truck"), ("swimming", "diving"),
    ],
    "opposite": [
        ("black", "white"), ("hot", "cold"), ("day", "night"), ("big", "small"),
        ("huge", "tiny"), ("wet", "dry"), ("happy", "sad"), ("indoors", "outdoors"),
        ("man", "woman"),
    ],
}  # fmt: skip

#: Different/opposite pairs that share a WordNet 3.0 synset, each reviewed by hand and
#: kept as an everyday choice (the reason is the comment). A new entry that shares a synset
#: fails ``test_wordnet_review`` until it is fixed or added here with its reason.
REVIEWED_DIFFERENT_SHARING_A_SYNSET = {
    # a verb sense: "to mother"/"to father" both mean to beget; as people, opposites
    frozenset(("mother", "father")),
    # porcupine.n.01 lists "hedgehog" (a US name for the porcupine); the photos' animals differ
    frozenset(("hedgehog", "porcupine")),
    # worm.n.02 is "any of various insects whose larvae resemble worms"; an insect is not
    # what people call a worm
    frozenset(("insect", "worm")),
    # fathead.n.01 (a fool) has both as slang; the birds differ
    frozenset(("goose", "cuckoo")),
    # lavender.s.01 is the pale purple colour; as flowers they are different plants
    frozenset(("lavender", "lilac")),
    # boodle.n.01 (money) has "cabbage", "lettuce", "kale" as slang; the vegetables differ
    frozenset(("cabbage", "lettuce")),
    frozenset(("cabbage", "kale")),
    frozenset(("lettuce", "kale")),
    # piquant.s.01 "savory, spicy": British "savoury" is "not sweet", a different taste
    frozenset(("spicy", "savoury")),
    # horn.v.01 "to stab with horns" (a verb); as animal parts a horn is no tusk
    frozenset(("horn", "tusk")),
    # moment.n.02 ("wait a second / a minute"); as units of time a second is no minute
    frozenset(("second", "minute")),
    # million.n.02 "a very large indefinite number" (hyperbole: "a million times"); as
    # numbers a million, a billion and a trillion differ
    frozenset(("million", "billion")),
    frozenset(("million", "trillion")),
    frozenset(("billion", "trillion")),
}


#: Near and one-step-kind pairs (accepted at lenient) whose common senses WordNet 3.0 files
#: as sister kinds under one direct hypernym, each reviewed by hand and kept because the two
#: words can name the same thing or one is a kind of the other (issue 10: co-hyponyms are
#: rejected at every level, so a true pair of sister kinds belongs in
#: everyday-different.txt). Grouped by the reason it was kept. A new near pair that WordNet
#: files as siblings fails ``test_near_pairs_are_not_wordnet_siblings`` until it is moved or
#: reviewed here; an entry that no longer applies fails it too.
REVIEWED_NEAR_WORDNET_SIBLINGS = {
    # degree: one scale with no sharp line, one thing may be called either
    "degree": {
        ("hill", "mountain"), ("bay", "gulf"), ("city", "town"), ("snow", "sleet"),
        ("plate", "saucer"), ("rope", "cord"), ("child", "teenager"),
        ("forest", "copse"),
    },
    # near-synonyms: the same things are often called by either word
    "near-synonym": {
        ("field", "grassland"), ("sunset", "dusk"), ("cafe", "diner"), ("jar", "pot"),
        ("stick", "rod"), ("team", "crew"), ("herd", "flock"), ("athlete", "player"),
        ("mud", "clay"), ("shrine", "temple"), ("veil", "scarf"), ("youth", "teenager"),
        ("cape", "peninsula"), ("lamp", "light"), ("game", "sport"),
        ("varnish", "lacquer"),
    },
    # part and whole, or member and collection, where one word names the other
    "part or collection": {
        ("sea", "bay"), ("mountain", "ridge"), ("highlands", "mountain"),
        ("archipelago", "island"),
    },
    # a kind of the other in everyday use (often also in biology or cookery) that WordNet
    # files beside its parent: a mug is a cup, a cap a hat, a slipper a shoe, a raven one
    # of the crows (Corvus), reed and bamboo are grasses, paprika a spice, cider alcohol
    "kind WordNet files as a sibling": {
        ("green", "olive"), ("cup", "mug"), ("hat", "cap"), ("shoe", "slipper"),
        ("trousers", "leggings"), ("tourist", "visitor"), ("monster", "zombie"),
        ("chicken", "bantam"), ("crow", "raven"), ("crow", "rook"), ("crow", "jackdaw"),
        ("flower", "wildflower"), ("mushroom", "toadstool"), ("mushroom", "fly agaric"),
        ("mushroom", "truffle"), ("grass", "reed"), ("grass", "bamboo"), ("stew", "curry"), ("stew", "chilli con carne"),
        ("shellfish", "shrimp"), ("shellfish", "winkle"), ("ice cream", "sundae"),
        ("alcohol", "cider"), ("berry", "elderberry"), ("cereal", "muesli"),
        ("spice", "paprika"), ("spice", "turmeric"), ("spice", "saffron"),
        ("spice", "chili powder"), ("spice", "curry powder"), ("sauce", "ketchup"),
        ("sauce", "salsa"), ("sauce", "soy sauce"), ("glass", "crystal"),
        ("drum", "kettledrum"), ("factory", "brewery"), ("pope", "priest"),
        ("flatbread", "naan"), ("steak", "sirloin"),
        ("shellfish", "whelk"),
        ("spice", "cardamom"),
        ("spoon", "ladle"),
        ("shop", "department store"), ("field", "playing field"),
        ("tv show", "game show"), ("tv show", "talk show"),
        ("wool", "mohair"),
    },
}  # fmt: skip


@pytest.fixture(scope="module")
def lexicon() -> EverydayLexicon:
    return everyday_lexicon()


def _file_lines() -> list[tuple[str, int, str]]:
    out = []
    for name in FILES.values():
        text = (paths.data_dir() / name).read_text(encoding="utf-8")
        for number, line in enumerate(text.splitlines(), start=1):
            out.append((name, number, line))
    return out


# ------------------------------------------------------------------------------ lookups
@pytest.mark.parametrize(
    ("kind", "a", "b"), [(k, a, b) for k, pairs in EXPECTED.items() for a, b in pairs]
)
def test_expected_relation(lexicon: EverydayLexicon, kind: str, a: str, b: str) -> None:
    rel = lexicon.relation(a, b)
    assert rel is not None, f"{a}/{b}: no relation"
    assert rel.kind == kind, rel
    assert rel.a == a and rel.b == b
    assert rel.evidence.startswith(f"everyday lexicon v{lexicon.version}: ")
    back = lexicon.relation(b, a)
    assert back is not None and back.kind == kind


def test_reason_names_the_evidence(lexicon: EverydayLexicon) -> None:
    rel = lexicon.relation("photo", "picture")
    assert "'photo' and 'picture' name the same thing" in rel.evidence
    rel = lexicon.relation("puppies", "dogs")
    assert rel.kind == "hyponym" and rel.broader == "dog"
    assert "a 'puppy' is a kind of 'dog'" in rel.evidence
    assert (rel.entry_a, rel.entry_b) == ("puppy", "dog")
    rel = lexicon.relation("automobile", "truck")  # reached through the head of car's set
    assert rel.kind == "different" and rel.group == "vehicle"
    assert "'automobile' = 'car'" in rel.evidence and rel.entry_a == "car"
    rel = lexicon.relation("hot", "cold")
    assert rel.kind == "opposite" and "opposites" in rel.evidence


def test_polysemous_word_does_not_leak_through_a_set_it_does_not_head(
    lexicon: EverydayLexicon,
) -> None:
    # "rocket" is near "missile" (the vehicle) and also a salad leaf (arugula, rocket).
    assert lexicon.relation("rocket", "missile").kind == "near"
    assert lexicon.relation("arugula", "rocket").kind == "same"
    assert lexicon.relation("arugula", "missile") is None
    # "chips" is both crisps and fries; crisps and fries stay apart.
    assert lexicon.relation("crisps", "fries") is None or (
        lexicon.relation("crisps", "fries").kind != "same"
    )


def test_unknown_words_and_inflections(lexicon: EverydayLexicon) -> None:
    assert lexicon.relation("dog", "xylograph") is None
    assert lexicon.relation("qwzx", "qwzx") is None  # the lexicon says nothing about it
    assert lexicon.relation("dogs", "dog").kind == "same"
    assert lexicon.knows("dogs") and lexicon.knows("mice") and lexicon.knows("stair")
    assert not lexicon.knows("xylograph")
    assert lexicon.relation("mice", "rats").kind == "different"
    assert lexicon.relation("Glasses", "SPECTACLES").kind == "same"  # case is folded


def test_same_as(lexicon: EverydayLexicon) -> None:
    photo = lexicon.same_as("photo")
    assert {"picture", "photograph", "snapshot"} <= photo and "photo" not in photo
    assert "sofa" in lexicon.same_as("couches")
    assert lexicon.same_as("xylograph") == frozenset()
    # sets are not merged through a shared word: crisps and fries both hold "chips"
    assert "fries" not in lexicon.same_as("crisps")


def test_cached_and_light() -> None:
    assert everyday_lexicon() is everyday_lexicon()
    code = (
        "import sys, json\n"
        "from kiekai.judge.everyday import everyday_lexicon\n"
        "lx = everyday_lexicon()\n"
        "assert lx.relation('photo', 'picture').kind == 'same'\n"
        "print(json.dumps(sorted(m for m in ('nltk', 'torch', 'sentence_transformers') "
        "if m in sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


# -------------------------------------------------------------------------- consistency
def test_sizes(lexicon: EverydayLexicon) -> None:
    counts = lexicon.counts()
    print(
        f"\neveryday lexicon v{lexicon.version}: "
        + ", ".join(f"{k} {v}" for k, v in counts.items())
    )
    assert counts["headwords"] == len(lexicon) >= 3000
    for kind in ("same", "near", "hyponym", "different", "opposite"):
        assert counts[kind] >= 100, kind


def test_consistent(lexicon: EverydayLexicon) -> None:
    problems = consistency_problems(lexicon)
    assert problems == [], "\n".join(problems[:50])


def test_symmetric_and_declared_kinds_hold(lexicon: EverydayLexicon) -> None:
    """Every pair written in the files comes back with its kind, in both orders (a same-set
    never shadows it: that would be a same/near or same/different clash)."""
    wrong = []
    for kind, a, b, where in lexicon.declared():
        forward, backward = lexicon.relation(a, b), lexicon.relation(b, a)
        if forward is None or backward is None or forward.kind != backward.kind:
            wrong.append(f"{where}: {a}/{b} not symmetric: {forward} / {backward}")
        elif forward.kind != kind and (kind, forward.kind) != ("different", "opposite"):
            wrong.append(f"{where}: {a}/{b} declared {kind}, looked up {forward.kind}")
    for words in lexicon.same_sets():
        for x in words:
            for y in words:
                rel = lexicon.relation(x, y)
                if rel is None or rel.kind != "same":
                    wrong.append(f"{x}/{y} in one same-set, looked up {rel}")
    assert wrong == [], "\n".join(wrong[:50])
    assert all(kind in KINDS for kind, *_ in lexicon.declared())


def test_words_are_clean_lemmas(lexicon: EverydayLexicon) -> None:
    """Each headword is its own judge normalisation (lower case, no articles, no stray
    spaces or punctuation) and no same-set lists a word next to its own plural."""
    unclean = [w for w in lexicon.words() if normalise(w) != w or w != w.strip() or "  " in w]
    assert unclean == []
    plural_pairs = []
    # different words that differ by an -s: "woods" is a forest as "wood" is; "outdoors"
    # and "indoors" are nouns and adverbs beside the adjectives; "lots" is "a lot".
    allowed = {
        ("wood", "woods"), ("outdoor", "outdoors"), ("indoor", "indoors"), ("lot", "lots"),
        ("ruin", "ruins"),
    }  # fmt: skip
    for words in lexicon.same_sets():
        present = set(words)
        for w in words:
            for plural in (w + "s", w + "es", w[:-1] + "ies" if w.endswith("y") else ""):
                if plural and plural in present and (w, plural) not in allowed:
                    plural_pairs.append(f"{w}/{plural} in {', '.join(words)}")
    assert plural_pairs == []


def test_no_duplicated_lines() -> None:
    seen: dict[str, str] = {}
    dups = []
    for name, number, line in _file_lines():
        text = " ".join(line.split())
        if not text or text.startswith("#"):
            continue
        if text in seen:
            dups.append(f"{name}:{number} repeats {seen[text]}")
        seen[text] = f"{name}:{number}"
    assert dups == []


def test_versions_agree(lexicon: EverydayLexicon) -> None:
    versions = set()
    for name, _number, line in _file_lines():
        match = re.fullmatch(r"#\s*version\s*:\s*(\S+)\s*", line)
        if match:
            versions.add((name, match.group(1)))
    assert {v for _, v in versions} == {lexicon.version}
    assert {n for n, _ in versions} == set(FILES.values())


# ----------------------------------------------------------------------- bad files
def _write(folder: Path, same: str = "", near: str = "", different: str = "", version="1"):
    for key, body in (("same", same), ("near", near), ("different", different)):
        (folder / FILES[key]).write_text(f"# version: {version}\n{body}", encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    ("same", "near", "different", "message"),
    [
        ("photo; picture\n", "", "", "everyday-same.txt:2"),
        ("Photo, picture\n", "", "", "not a lexicon word"),
        ("photo\n", "", "", "at least two words"),
        ("photo, , picture\n", "", "", "empty word"),
        ("", "hot - warm\n", "", "everyday-near.txt:2"),
        ("", "hot ~ warm\nwarm ~ hot\n", "", "already related at everyday-near.txt:2"),
        ("", "", "black <> white | grey\n", "everyday-different.txt:2"),
        ("", "", "car truck\n", "expected 'label: a | b | c'"),
        ("ice cream, gelato\nicecream, sorbet\n", "", "", "is written 'ice cream' elsewhere"),
    ],
)
def test_malformed_file_names_the_line(tmp_path, same, near, different, message) -> None:
    _write(tmp_path, same, near, different)
    with pytest.raises(LexiconError, match=re.escape(message)):
        EverydayLexicon(tmp_path)


def test_missing_file_and_version_mismatch(tmp_path) -> None:
    _write(tmp_path, "photo, picture\n")
    (tmp_path / FILES["near"]).unlink()
    with pytest.raises(LexiconError, match="not found"):
        EverydayLexicon(tmp_path)
    _write(tmp_path, "photo, picture\n")
    (tmp_path / FILES["near"]).write_text("# version: 2\n", encoding="utf-8")
    with pytest.raises(LexiconError, match="disagree on their version"):
        EverydayLexicon(tmp_path)
    (tmp_path / FILES["near"]).write_text("hot ~ warm\n", encoding="utf-8")
    with pytest.raises(LexiconError, match="no '# version: N' line"):
        EverydayLexicon(tmp_path)


def test_consistency_checker_finds_contradictions(tmp_path) -> None:
    """The checker behind test_consistent catches each kind of clash it documents."""
    lx = EverydayLexicon(
        _write(
            tmp_path,
            same="car, automobile\nsofa, couch\nsofa, couch, settee\nboat, vessel\n",
            near="car ~ truck\nsofa ~ couch\nboat ~ ship\n",
            different="vehicle: car | truck | bus\nvessel | ship\n",
        )
    )
    problems = "\n".join(consistency_problems(lx))
    assert "'car' and 'truck' are declared both different/near" in problems
    assert "'couch' and 'sofa' share a same-set but are declared near" in problems
    assert "is contained in" in problems
    assert "'ship' and 'vessel'" not in problems  # declared directly: the literal wins
    assert "'boat' and 'vessel'" not in problems


def test_derived_words(tmp_path) -> None:
    """'a = b' (derived, names the same thing) and 'a =~ b' (derived, meaning shifted) are
    their own kinds, reach through same-set heads like the others, and clash with a
    rejection like any acceptance."""
    lx = EverydayLexicon(
        _write(
            tmp_path,
            same="snow, snowfall\n",
            near="snow = snowy, snow-covered\nsun =~ sunny\n",
            different="weather: snowy | sunny\n",
        )
    )
    assert lx.relation("snow", "snowy").kind == "derived"
    assert lx.relation("snowfall", "snowy").kind == "derived"  # through the head 'snow'
    assert lx.relation("sunny", "sun").kind == "derived-near"
    assert lx.counts()["derived"] == 2 and lx.counts()["derived-near"] == 1
    assert consistency_problems(lx) == []
    lx = EverydayLexicon(_write(tmp_path, near="sun =~ sunny\n", different="sun | sunny\n"))
    problems = "\n".join(consistency_problems(lx))
    assert "'sun' and 'sunny' are declared both derived-near/different" in problems


# ------------------------------------------------------------------ WordNet review aid
def test_wordnet_review(lexicon: EverydayLexicon) -> None:
    """Cross-check against WordNet 3.0 as a review aid: prints the "same" pairs that share
    no synset (expected: informal, British/American and everyday choices WordNet files
    apart) and the near pairs that do share one; fails on a same pair that WordNet lists as
    antonyms, and on a different/opposite pair that
    shares a synset in one of the first two senses of both words unless it was reviewed (REVIEWED_DIFFERENT_SHARING_A_SYNSET)."""
    try:
        from kiekai.judge.resources import wordnet

        wn = wordnet()
        wn.synsets("dog")
    except Exception as exc:  # noqa: BLE001 - WordNet is optional for this review
        pytest.skip(f"WordNet is not installed here ({exc}); the review needs it")

    def forms(word: str) -> tuple[str, ...]:
        return (word.replace(" ", "_").replace("-", "_"), word.replace(" ", "").replace("-", ""))

    def synsets(word: str) -> set:
        return {s for form in forms(word) for s in wn.synsets(form)}

    def common_synsets(word: str) -> set:
        """The word's first two senses per part of speech (WordNet lists senses most
        frequent first): a synset shared only in rarer senses (harp = harmonica,
        cabbage = money) is not taken as evidence against a "different" pair."""
        return {s for form in forms(word) for pos in "nvasr" for s in wn.synsets(form, pos=pos)[:2]}

    def antonyms(word: str) -> set[str]:
        return {
            a.name().replace("_", " ") for s in synsets(word) for lemma in s.lemmas()
            for a in lemma.antonyms()
        }  # fmt: skip

    same_apart, same_both_known, clashes = [], 0, []
    for words in lexicon.same_sets():
        for i, x in enumerate(words):
            for y in words[i + 1 :]:
                if y in antonyms(x) or x in antonyms(y):
                    clashes.append(f"same {x}/{y} are WordNet antonyms")
                sx, sy = synsets(x), synsets(y)
                if sx and sy:
                    same_both_known += 1
                    if not sx & sy:
                        same_apart.append(f"{x}/{y}")
    near_sharing = []
    for kind, a, b, where in lexicon.declared():
        if kind in ("different", "opposite"):
            shared = common_synsets(a) & common_synsets(b)
        else:
            shared = synsets(a) & synsets(b)
        if not shared:
            continue
        if kind in ("different", "opposite"):
            if frozenset((a, b)) not in REVIEWED_DIFFERENT_SHARING_A_SYNSET:
                names = ", ".join(sorted(s.name() for s in shared))
                clashes.append(f"{where}: {kind} {a}/{b} share {names}")
        else:
            near_sharing.append(f"{a}/{b}")
    print(
        f"\nWordNet review: {len(same_apart)} of {same_both_known} same pairs with both words in "
        f"WordNet share no synset, e.g. {', '.join(same_apart[:40])}"
    )
    print(f"near/hyponym pairs sharing a synset ({len(near_sharing)}): {', '.join(near_sharing)}")
    assert clashes == [], "\n".join(clashes)


def test_near_pairs_are_not_wordnet_siblings(lexicon: EverydayLexicon) -> None:
    """No near or one-step-kind pair is a pair of WordNet sister kinds in the common senses
    of both words, unless reviewed (REVIEWED_NEAR_WORDNET_SIBLINGS, printed with ``-s``).

    Sister kinds: a common sense of each word (P(sense | word) >= the judge's
    ``COMMON_SENSE_MIN_P``, from SemCor counts) under one direct hypernym, where no common
    senses of the two words' same-sets (for a head word: every word of its lines, as
    ``relation()`` reads them) share a synset or stand one hypernym step apart. This is
    how rabbit / hare, violin / viola or soup / stew, once near, would be caught."""
    try:
        from kiekai.judge.lexical import COMMON_SENSE_MIN_P, sense_weights
        from kiekai.judge.resources import wordnet

        wordnet().synsets("dog")
    except Exception as exc:  # noqa: BLE001 - WordNet is optional for this review
        pytest.skip(f"WordNet is not installed here ({exc}); the check needs it")

    members: dict[str, set[str]] = {}
    for words in lexicon.same_sets():
        members.setdefault(words[0], set()).update(words)

    def common(word: str) -> set:
        return {s for s, p in sense_weights(word) if p >= COMMON_SENSE_MIN_P}

    def parents(synset) -> set:
        return set(synset.hypernyms() + synset.instance_hypernyms())

    reviewed = {
        frozenset(pair): reason
        for reason, pairs in REVIEWED_NEAR_WORDNET_SIBLINGS.items()
        for pair in pairs
    }
    found: dict[frozenset, str] = {}
    for kind, a, b, where in lexicon.declared():
        if kind not in ("near", "hyponym"):
            continue
        ca, cb = common(a), common(b)
        if not ca or not cb:
            continue
        wide_a = set().union(*(common(w) for w in members.get(a, set()) | {a}))
        wide_b = set().union(*(common(w) for w in members.get(b, set()) | {b}))
        if wide_a & wide_b or any(
            t in parents(s) or s in parents(t) for s in wide_a for t in wide_b
        ):
            continue  # a shared synset or one step of kind in some common sense
        siblings = [(s, t) for s in ca for t in cb if parents(s) & parents(t)]
        if siblings:
            s, t = siblings[0]
            via = sorted(h.name() for h in parents(s) & parents(t))[0]
            found[frozenset((a, b))] = f"{where}: {kind} {a}/{b} ({s.name()}, {t.name()} < {via})"
    by_reason: dict[str, list[str]] = {}
    for pair, line in sorted(found.items(), key=lambda kv: kv[1]):
        by_reason.setdefault(reviewed.get(pair, "NOT REVIEWED"), []).append(line)
    print(f"\nnear/hyponym pairs WordNet files as sister kinds: {len(found)}")
    for reason, lines in sorted(by_reason.items()):
        print(f"  {reason} ({len(lines)}):")
        for line in lines:
            print(f"    {line}")
    unreviewed = by_reason.get("NOT REVIEWED", [])
    stale = sorted("/".join(sorted(p)) for p in set(reviewed) - set(found))
    assert unreviewed == [], (
        "near pairs that WordNet files as sister kinds: move them to everyday-different.txt "
        "(co-hyponyms) or review them in REVIEWED_NEAR_WORDNET_SIBLINGS:\n" + "\n".join(unreviewed)
    )
    assert stale == [], f"reviewed entries that no longer apply, drop them: {stale}"


def test_kinds_counted_per_file(lexicon: EverydayLexicon) -> None:
    """counts() agrees with a plain count of the declared pairs."""
    tally = Counter(kind for kind, *_ in lexicon.declared())
    counts = lexicon.counts()
    for kind in ("near", "hyponym", "different", "opposite"):
        assert counts[kind] == tally[kind]


def test_bad_arguments(lexicon: EverydayLexicon) -> None:
    with pytest.raises(TypeError, match="b is int"):
        lexicon.relation("dog", 3)
    assert lexicon.relation("", "") is None
    assert lexicon.relation("dog", "") is None


def test_the_parsed_lexicon_is_kept_and_read_back_until_a_file_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With ``parsed_cache``, a second process (here a second object) reads the tables the
    first one parsed instead of parsing; a changed file, a damaged cache file or a folder
    that cannot be written all mean a parse, never another lexicon; a malformed file is
    refused every time."""
    (tmp_path / "data").mkdir()
    words = _write(
        tmp_path / "data",
        same="photo, picture\n",
        near="hot ~ warm\n",
        different="colour: red | blue\nblack <> white\n",
    )
    cache = tmp_path / "cache"
    parsed = EverydayLexicon(words, parsed_cache=cache)
    [stored] = list(cache.iterdir())

    def no_parse(self: EverydayLexicon, texts: object) -> None:
        raise AssertionError("parsed again")

    with monkeypatch.context() as patch:
        patch.setattr(EverydayLexicon, "_parse_files", no_parse)
        again = EverydayLexicon(words, parsed_cache=cache)
    assert again._snapshot() == parsed._snapshot()
    for a, b in (("photo", "picture"), ("hot", "warm"), ("red", "blue"), ("black", "white")):
        assert again.relation(a, b) == parsed.relation(a, b) is not None
    # a changed file is parsed again, under another name
    (words / FILES["same"]).write_text("# version: 1\nphoto, picture, snapshot\n", "utf-8")
    changed = EverydayLexicon(words, parsed_cache=cache)
    assert changed.relation("photo", "snapshot") is not None
    assert len(list(cache.iterdir())) == 2
    # a damaged cache file is parsed again (and written whole again)
    stored.write_bytes(b"\x00 not marshal")
    (words / FILES["same"]).write_text("# version: 1\nphoto, picture\n", "utf-8")
    assert EverydayLexicon(words, parsed_cache=cache)._snapshot() == parsed._snapshot()
    assert EverydayLexicon(words, parsed_cache=cache)._snapshot() == parsed._snapshot()
    # a cache "folder" that is a file: nothing kept, the lexicon is the same
    blocked = tmp_path / "blocked"
    blocked.write_text("a file")
    assert EverydayLexicon(words, parsed_cache=blocked)._snapshot() == parsed._snapshot()
    # a malformed file is refused, cache or not, and nothing is kept for it
    (words / FILES["near"]).write_text("# version: 1\nhot - warm\n", "utf-8")
    for _ in range(2):
        with pytest.raises(LexiconError, match="everyday-near.txt:2"):
            EverydayLexicon(words, parsed_cache=cache)
    assert len(list(cache.glob("*.marshal"))) == 2 and not list(cache.glob("*.tmp"))


def test_the_process_lexicon_keeps_its_parse_in_kiekai_s_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kiekai.judge import everyday

    monkeypatch.setenv("KIEKAI_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(everyday, "_CACHE", {})
    lexicon = everyday.everyday_lexicon()
    assert everyday.parsed_cache_dir() == tmp_path / "everyday-lexicon"
    assert len(list((tmp_path / "everyday-lexicon").glob("*.marshal"))) == 1
    assert everyday.everyday_lexicon() is lexicon
