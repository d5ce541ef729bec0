"""Regenerate ``data/vocabulary.tsv``: everyday category words with their WordNet 3.0 senses.

How the list is made (run ``python scripts/build_vocabulary.py``; it overwrites the file):

1. **Candidates from WordNet.** Every noun synset below one of the picturable roots in
   :data:`ROOTS` (organisms, food, artifacts, natural objects, places, substances, colours)
   contributes its lemmas that are one plain word.
2. **Everyday words only.** A lemma is kept when its wordfreq Zipf frequency in English is at
   least :data:`MIN_ZIPF` (3.0 = once per million words; Speer et al., *wordfreq*) for a
   category with at least :data:`MIN_CATEGORY_SIZE` WordNet descendants, at least
   :data:`MIN_ZIPF_BASIC` for a near-leaf (basic-level) thing, at least
   :data:`MIN_ZIPF_PERSON` for kinds of person; when the synset is the word's first noun sense
   or a sense whose SemCor tag count is at least half the word's most frequent noun sense
   (:data:`MIN_SENSE_SHARE`); and when the word is mostly used as a noun where SemCor has
   counts for it (:data:`MIN_NOUN_SHARE`).
3. **Curation by hand.** :data:`EXCLUDE` drops technical, taxonomic or abstract words that pass
   the numbers but are not what people call things at a table (``carnivore``, ``artifact``);
   :data:`SENSES` fixes the everyday sense of words whose first WordNet sense is not the one a
   player means (``instrument`` = musical instrument, ``sports`` = sports equipment);
   :data:`EXTRA` adds colours, materials, qualities and scenes as plain words.

Nothing here is derived from the development deck or the evaluation rounds in ``../shared``.

Columns of the output: ``word``, ``group`` (animal, plant, food, vehicle, building, clothing,
furniture, object, person, scene, nature, colour, material, quality) and ``synsets``
(semicolon-separated WordNet 3.0 noun synset names; empty for words WordNet does not
represent as a noun category, e.g. qualities).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path

from wordfreq import zipf_frequency

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

MIN_ZIPF = 3.0
MIN_ZIPF_BASIC = 3.6
MIN_ZIPF_PERSON = 4.0
MIN_CATEGORY_SIZE = 5
MIN_NOUN_SHARE = 0.25
MIN_SENSE_SHARE = 0.5

#: Roots of the picturable part of WordNet's noun hierarchy, with the group of words below them.
#: Order matters: the first root in a synset's hypernym closure names its group.
ROOTS: list[tuple[str, str]] = [
    ("person.n.01", "person"),
    ("animal.n.01", "animal"),
    ("plant.n.02", "plant"),
    ("fungus.n.01", "plant"),
    ("food.n.01", "food"),
    ("food.n.02", "food"),
    ("vehicle.n.01", "vehicle"),
    ("craft.n.02", "vehicle"),
    ("clothing.n.01", "clothing"),
    ("furniture.n.01", "furniture"),
    ("building.n.01", "building"),
    ("structure.n.01", "building"),
    ("room.n.01", "scene"),
    ("geological_formation.n.01", "scene"),
    ("body_of_water.n.01", "scene"),
    ("land.n.04", "scene"),
    ("tract.n.01", "scene"),
    ("artifact.n.01", "object"),
    ("natural_object.n.01", "nature"),
    ("material.n.01", "material"),
    ("metal.n.01", "material"),
]

#: Words that pass the frequency filters but are technical, taxonomic, too abstract or
#: misleading as picture categories (curated by hand; general, not deck-specific).
EXCLUDE = set(
    """
    artefact object whole entity matter thing things being creature
    carnivore herbivore omnivore canine feline bovine equine porcine vertebrate invertebrate
    chordate arthropod placental mammalian ungulate ruminant primates hominid anthropoid
    instrumentality conveyance commodity consumer goods merchandise product products
    implement device structure construction unit part piece component element stuff
    substance material solid liquid fluid gas compound chemical mixture agent
    person individual someone somebody mortal soul people human humans
    produce foodstuff nutriment nourishment sustenance victuals
    covering surface cover top bottom side end edge front back
    system network facility installation establishment
    natural natural_object body tract land area region site space place location
    shape form figure line point
    male female adult juvenile young
    rest remains residue waste
    agency worker
    plaything vessel
    argentine brent das molly bot benjamin chad trump tuna sang timothy benny clarence hoy
    chess erica veronica medic cole haw champaign ben ness silva john kirk hank khan harper
    amazon batman superman dick asshole shit crap poop pee feces cum tore toby billy buck aa
    chuck murphy marc generic eats bod binary calculus nova anime spar till manila lac
    instrumentation transport transportation mankind fetus prey beast giant queen drone charger bobby doc dj ex babe dear darling
    chosen accused immune screw tackle trailer rep hood hack punk
    """.split()
)

#: Everyday senses fixed by hand: word -> synsets a player means by it.
SENSES: dict[str, tuple[str, list[str]]] = {
    "instrument": ("object", ["musical_instrument.n.01"]),
    "sports": ("object", ["sports_equipment.n.01"]),
    "kitchen": ("object", ["kitchen.n.01", "kitchen_utensil.n.01", "kitchen_appliance.n.01"]),
    "garden": ("object", ["garden.n.01", "garden_tool.n.01"]),
    "office": ("object", ["office.n.01", "office_furniture.n.01"]),
    "food": ("food", ["food.n.01", "food.n.02"]),
    "animal": ("animal", ["animal.n.01"]),
    "primate": ("animal", ["primate.n.02"]),
    "artifact": ("object", ["artifact.n.01"]),
    "organism": ("nature", ["organism.n.01"]),
    "amphibian": ("animal", ["amphibian.n.03"]),
    "crustacean": ("animal", ["crustacean.n.01"]),
    "mollusc": ("animal", ["mollusk.n.01"]),
    "mollusk": ("animal", ["mollusk.n.01"]),
    "device": ("object", ["device.n.01"]),
    "pot": ("object", ["pot.n.01"]),
    "bus": ("vehicle", ["bus.n.01"]),
    "pet": ("animal", ["pet.n.01", "domestic_animal.n.01"]),
    "plant": ("plant", ["plant.n.02"]),
    "tree": ("plant", ["tree.n.01"]),
    "flower": ("plant", ["flower.n.01", "flower.n.02"]),
    "fruit": ("food", ["edible_fruit.n.01", "fruit.n.01"]),
    "vegetable": ("food", ["vegetable.n.01"]),
    "meat": ("food", ["meat.n.01"]),
    "bread": ("food", ["bread.n.01"]),
    "drink": ("food", ["beverage.n.01"]),
    "dessert": ("food", ["dessert.n.01"]),
    "fish": ("animal", ["fish.n.01"]),
    "bird": ("animal", ["bird.n.01"]),
    "dog": ("animal", ["dog.n.01"]),
    "cat": ("animal", ["cat.n.01"]),
    "shellfish": ("animal", ["shellfish.n.01"]),
    "seafood": ("food", ["seafood.n.01"]),
    "weapon": ("object", ["weapon.n.01"]),
    "gun": ("object", ["gun.n.01"]),
    "tool": ("object", ["tool.n.01"]),
    "toy": ("object", ["toy.n.01", "plaything.n.01"]),
    "machine": ("object", ["machine.n.01"]),
    "container": ("object", ["container.n.01"]),
    "clothing": ("clothing", ["clothing.n.01"]),
    "clothes": ("clothing", ["clothing.n.01"]),
    "shoe": ("clothing", ["shoe.n.01"]),
    "shoes": ("clothing", ["footwear.n.02", "shoe.n.01"]),
    "hat": ("clothing", ["hat.n.01"]),
    "jewelry": ("clothing", ["jewelry.n.01"]),
    "jewellery": ("clothing", ["jewelry.n.01"]),
    "building": ("building", ["building.n.01"]),
    "house": ("building", ["house.n.01", "dwelling.n.01"]),
    "home": ("building", ["dwelling.n.01"]),
    "vehicle": ("vehicle", ["vehicle.n.01", "craft.n.02"]),
    "car": ("vehicle", ["car.n.01"]),
    "boat": ("vehicle", ["boat.n.01"]),
    "ship": ("vehicle", ["ship.n.01"]),
    "truck": ("vehicle", ["truck.n.01"]),
    "plane": ("vehicle", ["airplane.n.01"]),
    "aircraft": ("vehicle", ["aircraft.n.01"]),
    "train": ("vehicle", ["train.n.01"]),
    "furniture": ("furniture", ["furniture.n.01"]),
    "seat": ("furniture", ["seat.n.03"]),
    "chair": ("furniture", ["chair.n.01"]),
    "table": ("furniture", ["table.n.02"]),
    "bed": ("furniture", ["bed.n.01"]),
    "computer": ("object", ["computer.n.01"]),
    "electronics": ("object", ["electronic_equipment.n.01"]),
    "appliance": ("object", ["home_appliance.n.01"]),
    "ball": ("object", ["ball.n.01"]),
    "box": ("object", ["box.n.01"]),
    "bag": ("object", ["bag.n.01", "bag.n.04", "bag.n.06"]),
    "bottle": ("object", ["bottle.n.01"]),
    "cup": ("object", ["cup.n.01"]),
    "glass": ("material", ["glass.n.01", "glass.n.02"]),
    "wood": ("material", ["wood.n.01"]),
    "metal": ("material", ["metal.n.01"]),
    "water": ("nature", ["water.n.01", "body_of_water.n.01"]),
    "rock": ("nature", ["rock.n.01", "rock.n.02"]),
    "stone": ("nature", ["rock.n.01", "stone.n.02"]),
    "mountain": ("scene", ["mountain.n.01"]),
    "sea": ("scene", ["sea.n.01"]),
    "beach": ("scene", ["beach.n.01"]),
    "forest": ("scene", ["forest.n.01", "forest.n.02"]),
    "sky": ("scene", ["sky.n.01"]),
    "snow": ("nature", ["snow.n.02"]),
    "bridge": ("building", ["bridge.n.01"]),
    "tower": ("building", ["tower.n.01"]),
    "monkey": ("animal", ["monkey.n.01"]),
    "ape": ("animal", ["ape.n.01"]),
    "bear": ("animal", ["bear.n.01"]),
    "snake": ("animal", ["snake.n.01"]),
    "spider": ("animal", ["spider.n.01"]),
    "crab": ("animal", ["crab.n.01"]),
    "beetle": ("animal", ["beetle.n.01"]),
    "fly": ("animal", ["fly.n.01"]),
    "bee": ("animal", ["bee.n.01"]),
    "horse": ("animal", ["horse.n.01"]),
    "cow": ("animal", ["cattle.n.01", "cow.n.01"]),
    "pig": ("animal", ["hog.n.03"]),
    "sheep": ("animal", ["sheep.n.01"]),
    "deer": ("animal", ["deer.n.01"]),
    "rabbit": ("animal", ["rabbit.n.01"]),
    "mouse": ("animal", ["mouse.n.01"]),
    "rat": ("animal", ["rat.n.01"]),
    "frog": ("animal", ["frog.n.01"]),
    "turtle": ("animal", ["turtle.n.02"]),
    "whale": ("animal", ["whale.n.02"]),
    "shark": ("animal", ["shark.n.01"]),
    "parrot": ("animal", ["parrot.n.01"]),
    "duck": ("animal", ["duck.n.01"]),
    "chicken": ("animal", ["chicken.n.02"]),
    "bat": ("animal", ["bat.n.01"]),
    "wolf": ("animal", ["wolf.n.01"]),
    "fox": ("animal", ["fox.n.01"]),
    "lion": ("animal", ["lion.n.01"]),
    "tiger": ("animal", ["tiger.n.02"]),
    "pen": ("object", ["pen.n.01"]),
    "watch": ("object", ["watch.n.01"]),
    "clock": ("object", ["clock.n.01"]),
    "phone": ("object", ["telephone.n.01"]),
    "knife": ("object", ["knife.n.01", "knife.n.02"]),
    "drum": ("object", ["drum.n.01"]),
    "guitar": ("object", ["guitar.n.01"]),
    "piano": ("object", ["piano.n.01"]),
    "horn": ("object", ["horn.n.01", "brass.n.02"]),
    "fence": ("building", ["fence.n.01"]),
    "wall": ("building", ["wall.n.01"]),
    "door": ("object", ["door.n.01"]),
    "window": ("object", ["window.n.01"]),
    "lamp": ("object", ["lamp.n.01", "lamp.n.02"]),
    "light": ("object", ["light.n.02", "source_of_illumination.n.01"]),
    "screen": ("object", ["screen.n.01", "screen.n.03"]),
    "mask": ("clothing", ["mask.n.01", "mask.n.04"]),
    "helmet": ("clothing", ["helmet.n.01", "helmet.n.02"]),
    "armor": ("clothing", ["armor.n.01", "body_armor.n.01"]),
    "armour": ("clothing", ["armor.n.01", "body_armor.n.01"]),
}

#: Plain words without a WordNet noun category: colours (also nouns, but a photo's synset never
#: has a colour as hypernym), materials, textures, sizes, qualities and scenes.
EXTRA: dict[str, str] = {
    **{
        w: "colour"
        for w in "red orange yellow green blue purple pink brown black white grey gray "
        "gold golden silver colorful colourful dark bright".split()
    },
    **{
        w: "material"
        for w in "wooden metallic plastic paper leather fabric cloth wool cotton rubber "
        "steel iron ceramic concrete brick stone glass fur feathers".split()
    },
    **{
        w: "quality"
        for w in "round square long tall short small tiny big large huge flat tall thin "
        "fat soft hard sharp pointed furry fluffy hairy spiky striped spotted shiny "
        "transparent old new antique modern wild cute dangerous fast slow heavy light "
        "loud quiet sweet sour hot cold wet dry empty full open closed broken electric "
        "electronic digital mechanical handmade natural artificial edible poisonous "
        "domestic aquatic marine flying swimming portable wearable musical tropical "
        "outdoor indoor rural urban ancient religious military medical".split()
    },
}


def build(min_zipf: float = MIN_ZIPF) -> list[tuple[str, str, list[str]]]:
    """Return the rows (word, group, synset names) of the vocabulary, sorted by group and word.

    Uses :func:`kiekai.models.wordnet` for WordNet 3.0 and wordfreq for frequencies.
    """
    from kiekai.models import wordnet

    wn = wordnet()
    roots = [(wn.synset(name), group) for name, group in ROOTS]
    root_set = {s for s, _ in roots}

    def group_of(synset) -> str | None:
        closure = set(synset.closure(lambda s: s.hypernyms() + s.instance_hypernyms()))
        closure.add(synset)
        for root, group in roots:
            if root in closure:
                return group
        return None

    def noun_share(word: str) -> float | None:
        counts: dict[str, int] = {}
        for synset in wn.synsets(word):
            for lemma in synset.lemmas():
                if lemma.name().lower() == word:
                    pos = "n" if synset.pos() == "n" else synset.pos()
                    counts[pos] = counts.get(pos, 0) + lemma.count()
        total = sum(counts.values())
        return counts.get("n", 0) / total if total else None

    descendants: dict[str, int] = {}

    def category_size(synset) -> int:
        name = synset.name()
        if name not in descendants:
            below = synset.closure(lambda s: s.hyponyms() + s.instance_hyponyms())
            descendants[name] = sum(1 for _ in below)
        return descendants[name]

    rows: dict[str, tuple[str, list[str]]] = {}
    for synset in wn.all_synsets("n"):
        group = group_of(synset)
        if group is None:
            continue
        if synset in root_set and group in ("object", "nature", "material", "scene"):
            continue  # the roots themselves are abstract ("artifact", "natural object")
        for lemma in synset.lemmas():
            word = lemma.name()
            if word != word.lower() or not word.isalpha():
                continue
            if word in EXCLUDE or word in SENSES or word in EXTRA:
                continue
            zipf = zipf_frequency(word, "en")
            is_category = category_size(synset) >= MIN_CATEGORY_SIZE
            floor = min_zipf if is_category else max(min_zipf, MIN_ZIPF_BASIC)
            if group == "person":
                floor = max(floor, MIN_ZIPF_PERSON)
            if zipf < floor:
                continue
            senses = wn.synsets(word, "n")
            counts = [
                sum(lem.count() for lem in s.lemmas() if lem.name().lower() == word) for s in senses
            ]
            if synset != senses[0] and lemma.count() < max(2, MIN_SENSE_SHARE * max(counts)):
                continue
            share = noun_share(word)
            if share is not None and share < MIN_NOUN_SHARE:
                continue
            old = rows.get(word)
            if old is None:
                rows[word] = (group, [synset.name()])
            else:
                old[1].append(synset.name())
    for word, (group, names) in SENSES.items():
        for name in names:
            wn.synset(name)  # raises if a curated sense is misspelt
        rows[word] = (group, list(names))
    for word, group in EXTRA.items():
        if word not in rows and word not in GROUNDED_QUALITIES:  # those go to the fallback
            rows[word] = (group, [])
    rows = _one_word_per_meaning(wn, rows)
    out = [(word, group, names) for word, (group, names) in rows.items()]
    out.sort(key=lambda row: (row[1], row[0]))
    return out


def _one_word_per_meaning(wn, rows: dict[str, tuple[str, list[str]]]):
    """Keep one word per set of synsets (synonyms such as clothes/clothing, insect/bug).

    The kept word is the synset's head word (its first WordNet lemma, which WordNet lists
    as the most usual name), else the most frequent word. Curated :data:`SENSES` entries
    win over generated ones.
    """
    by_meaning: dict[tuple[str, ...], list[str]] = {}
    for word, (_, names) in rows.items():
        if names:
            by_meaning.setdefault(tuple(sorted(names)), []).append(word)
    drop: set[str] = set()
    for names, words in by_meaning.items():
        if len(words) < 2:
            continue
        head = wn.synset(names[0]).lemmas()[0].name().lower()

        def rank(word: str, head: str = head) -> tuple:
            return (word in SENSES, word == head, zipf_frequency(word, "en"))

        keep = max(words, key=rank)
        drop.update(w for w in words if w != keep)
    return {word: row for word, row in rows.items() if word not in drop}


#: Quality words (adjectives) grounded in WordNet noun categories, for the fallback list only:
#: "man-made" is true of exactly the artifacts. Hand-made; each is a plain reading of the word.
#: Adjectives that are also WordNet nouns ("natural", "military", "electric") are left out:
#: checked as nouns they would name something else.
GROUNDED_QUALITIES: dict[str, list[str]] = {
    "man-made": ["artifact.n.01"],
    "manufactured": ["artifact.n.01"],
    "alive": ["living_thing.n.01"],
    "wearable": ["clothing.n.01"],
    "mechanical": ["machine.n.01", "mechanical_device.n.01"],
    "domesticated": ["domestic_animal.n.01"],
    "motorized": ["self-propelled_vehicle.n.01"],
    "wheeled": ["wheeled_vehicle.n.01"],
    "feathered": ["bird.n.01"],
    "carnivorous": ["carnivore.n.01"],
    "protective": ["protective_covering.n.01", "protective_garment.n.01", "armor.n.01"],
    "architectural": ["structure.n.01"],
}


def build_fallback(everyday: Iterable[str]) -> list[tuple[str, str, list[str]]]:
    """Rows of the fallback categories: every WordNet name of a category of physical things
    that is not in the everyday vocabulary (``vertebrate``, ``covering``, ``living thing``,
    ``motor vehicle``).

    A word is kept when it is a lower-case lemma (one word, or a WordNet compound written
    with spaces, which the rules accept as one lexical item) of a noun synset below
    ``physical_entity.n.01`` that has hyponyms (is a category), plus the
    :data:`GROUNDED_QUALITIES` (group ``quality``). The active bot writes one
    only when no everyday word is true of a three and false of the two (these words are hard
    to guess but keep the bot truthful); it prefers the commonest.
    """
    from kiekai.models import wordnet

    wn = wordnet()
    physical = wn.synset("physical_entity.n.01")
    taken = set(everyday)
    rows: dict[str, list[str]] = {}
    for synset in wn.all_synsets("n"):
        if not (synset.hyponyms() or synset.instance_hyponyms()):
            continue
        if physical not in synset.closure(lambda s: s.hypernyms() + s.instance_hypernyms()):
            continue
        for lemma in synset.lemmas():
            name = lemma.name()
            if name != name.lower() or not name.replace("_", "").replace("-", "").isalpha():
                continue
            word = name.replace("_", " ")
            if word in taken:
                continue
            rows.setdefault(word, []).append(synset.name())
    out = [(word, "broad", names) for word, names in sorted(rows.items())]
    for word, names in GROUNDED_QUALITIES.items():
        for name in names:
            wn.synset(name)  # raises if a curated sense is misspelt
        if word not in taken and word not in rows:
            out.append((word, "quality", list(names)))
    return out


def write_tsv(path: Path, rows: list[tuple[str, str, list[str]]]) -> None:
    """Write rows as a word/group/synsets TSV with a header line."""
    with path.open("w", encoding="utf-8") as handle:
        handle.write("word\tgroup\tsynsets\n")
        for word, group, names in rows:
            handle.write(f"{word}\t{group}\t{';'.join(names)}\n")


def main() -> None:
    """Command line: write the vocabulary TSV (default ``data/vocabulary.tsv``) and the
    fallback categories (``data/fallback-categories.tsv``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "data" / "vocabulary.tsv")
    parser.add_argument("--min-zipf", type=float, default=MIN_ZIPF)
    parser.add_argument(
        "--fallback-out", type=Path, default=REPO / "data" / "fallback-categories.tsv"
    )
    args = parser.parse_args()
    rows = build(args.min_zipf)
    write_tsv(args.out, rows)
    print(f"wrote {len(rows)} words to {args.out}")
    fallback = build_fallback(word for word, _, _ in rows)
    write_tsv(args.fallback_out, fallback)
    print(f"wrote {len(fallback)} words to {args.fallback_out}")


if __name__ == "__main__":
    main()
