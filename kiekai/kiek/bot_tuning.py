"""The Kiek bots' tuning: every number that shapes how a bot chooses, with where it comes from.

The weights of a word's *prior* (how readily people write it, in log units; see
:func:`kiekai.kiek.candidates.word_prior`), the margins at which a bot believes a word true,
the words and kinds it holds back, how long a card may stay on the table, the modelled
listener's rationality, and the bot :class:`Level` s. Sources are cited beside each constant:
published norms (wordfreq Zipf, Brysbaert et al. 2014 concreteness, Seco et al. 2004
intrinsic information content as the size principle of Xu & Tenenbaum 2007, Lindsey & Brown
2014 on colour naming), the rulebook (``../shared/rules/kiek.txt``) and the project's own
measurements (``data/people-rounds``, docs/EVALUATION.md, docs/bots.md). A number whose comment
names no measurement is a modelling choice set by hand; docs/bots.md says what each does and
what else was tried. The prior's weights can be varied without editing this file:
``scripts/guesser_quick_eval.py --specificity-weight W --zipf-weight Z`` scores the plain
guesser on the dev rounds with other values.

The rules of the game themselves are not here: they live in :mod:`kiekai.kiek.rules`.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Weight of a word's Zipf frequency in its prior (log units per Zipf unit, i.e. per tenfold
#: frequency), centred on Zipf 4.5 (a word met a few times in a million, e.g. "tool"). The
#: three prior weights are docs/bots.md's formula ("How readily people write a word").
ZIPF_WEIGHT = 1.0
#: Weight of concreteness (Brysbaert et al. 2014, 1-5) above 4 in the prior; unrated words: 0.
CONCRETENESS_WEIGHT = 0.5
#: Weight of a category's intrinsic information content (0..1) in the prior (size principle).
SPECIFICITY_WEIGHT = 4.0
#: Base rate of each kind of word, log units (people name what things are first; then colours;
#: settings, materials and qualities less; ``X-less`` rarely: the rulebook warns it is hard).
KIND_PRIOR: dict[str, float] = {
    "category": 0.0,
    "colour": -0.5,
    "light": -1.5,
    "setting": -1.0,
    "material": -1.0,
    "quality": -1.5,
    "privative": -3.0,
}
#: A category X gives an ``X-less`` word when its Zipf frequency is at least this (everyday X).
PRIVATIVE_MIN_ZIPF = 4.5
#: The speaker believes a word true of a card at score >= 0.5 + margin and false at
#: <= 0.5 - margin; 0.5 itself is "can't tell". Categories need more: the held-out check can
#: verify them (see docs/EVALUATION.md).
TRUE_MARGIN: dict[str, float] = {
    "category": 0.2,
    # a colour only when the subject of each of the three is clearly that colour and neither
    # of the two is (most colour words a person found false were details or backgrounds)
    "colour": 0.35,
    "light": 0.2,
    "setting": 0.15,
    "material": 0.15,
    "quality": 0.15,
    "privative": 0.2,
}
#: Words the active bot writes only when no other word it believes true is left, even an
#: ``X-less``: taxonomy jargon and filler a person rarely writes (*non-living*, *things*), and
#: words whose truth depends on the photo at hand more than on what it shows (size, age,
#: texture, light, *legs*, the setting). Blind raters of 96 bot turns
#: (data/people-rounds/bot-person*/ratings.tsv) found these false of the three in 33 of 39
#: turns (indoors and outdoors 11 of 14), and every X-less the bots wrote true (5 of 5).
#: *man-made* and *objects* are not among them: stand-in persons write them for three
#: artefacts against living things (as active players in the fitting part and as guessers of
#: 6 of the fifth round's bot turns), so they are a person's words, not the bots' jargon.
SPEAKER_AVOIDS: frozenset[str] = frozenset(
    {
        "non-living",
        "things",
        "thing",
        "stuff",
        "big",
        "small",
        "tiny",
        "tall",
        "long",
        "heavy",
        "soft",
        "old",
        "dark",
        "bright",
        "hot",
        "cold",
        "fast",
        "loud",
        "legs",
        "indoors",
        "outdoors",
    }
)
#: Kinds of word the active bot writes only as :data:`SPEAKER_AVOIDS` are written: light
#: (*dark*, *bright*: a property of the photo, not of what it shows). Colours are written at
#: their :data:`TRUE_MARGIN` (the subject of each of the three at 0.85 or more, the two at 0.15
#: or less): the fitted colour model (``data/colour-model.json``) is right in 0.94 (labels) and
#: 0.84 (pixels only) of its calls at 0.85 on the report half of the rated photos
#: (docs/perception.md), and persons write colours when they strike the eye (*red*, *orange*,
#: *green* in the first whole stand-in game).
SPEAKER_AVOIDS_KINDS: frozenset[str] = frozenset({"light"})
#: A card that has been among the five on the table this many turns running is not kept
#: while another card is on offer (a table does not freeze on one photo).
MAX_TABLE_TURNS = 4
#: Each turn a card has already been on the table multiplies its value to a keeper by this:
#: people keep fresh photos to give the next turn something new.
TABLE_AGE_DECAY = 0.8
#: Probabilities are clipped to [EPS, 1 - EPS] before taking logs.
EPS = 1e-3
#: Rationality of the modelled listener (inverse softmax temperature over words).
LISTENER_BETA = 1.0
#: Log weight, in the modelled listener, of everything else a guesser may write (words outside
#: the vocabulary, slips): a word is guessed with probability e^u / (e^NULL + sum e^u'), so
#: an unlikely word stays unlikely even when it is the only one that fits.
LISTENER_NULL = 1.5
#: Specificity credited to a word without synsets (a colour: true of a fair share of photos).
UNGROUNDED_SPECIFICITY = 0.35
#: A colour or quality whose weakest card is at least this far on the right side of 0.5 is
#: *probably* true (more likely than not on every card); the active bot writes one, at
#: :data:`WEAK_COST` less utility (log units),
#: before it writes an ``X-less``.
WEAK_MARGIN = 0.02
WEAK_COST = 1.5
#: A colour or quality whose weakest card is no further than this on the wrong side of 0.5
#: is in some doubt; the active bot writes one only when it has no word it is sure of or
#: believes probably true, before an ``X-less`` (trading a little confidence for a word the
#: others may guess).
DOUBT_MARGIN = -0.1
#: When the active bot believes no word true, a category (a name of a kind of thing) must be
#: this much less in doubt than a colour or quality to be written (score units).
FALLBACK_NAMING_COST = 0.25
#: A word the perception scores exactly this is unknown to it ("can't tell").
UNDECIDED = 0.5
#: In likelihoods, a "can't tell" score stands for this probability that the word is true of
#: the photo: the base rate of an everyday word over photos (few photos show a *father* or a
#: *bank*), not 0.5, so a guesser prefers the words it has evidence for to those it cannot see.
UNKNOWN_BASE_RATE = 0.1


@dataclass(frozen=True)
class Level:
    """A bot strength.

    Attributes:
        name: ``easy``, ``normal`` or ``hard``.
        knows_zipf: Zipf frequency at which a bot knows half the words (a logistic curve of
            width 0.25): lower = a larger vocabulary.
        noise: standard deviation of the bot's perception noise in logit units (how well it
            sees; 0 = exactly what the perception says).
        theory_of_mind: 0..1, the weight of the people-fitted listener
            (:mod:`kiekai.kiek.listener`) against the plain fit-plus-prior model in the active
            bot's model of the guessers (how well it models the others).
        temperature: softmax temperature of its choices in log units (0 = always the best).

    Levels differ by how well a bot sees and how well it models the other players, never by
    a taste for kinds of words: people at one table agree on the obvious turns, and that is
    what scores (docs/bots.md, "Measured against people").
    """

    name: str
    knows_zipf: float
    noise: float
    theory_of_mind: float
    temperature: float


LEVELS: dict[str, Level] = {
    "easy": Level("easy", 4.0, 1.0, 0.3, 0.5),
    "normal": Level("normal", 3.5, 0.5, 0.7, 0.25),
    "hard": Level("hard", 3.0, 0.2, 1.0, 0.0),
}
#: Standard deviation (logit units) of a persona's boundary of each colour and light word:
#: people draw the lines between colour terms in different places (Lindsey & Brown 2014,
#: "The color lexicon of American English", Journal of Vision 14(2): individual naming
#: patterns differ even among speakers of one language), whatever their skill at the game.
#: 1.0 moves a word's 50 % point by about 0.05 of the colour perception's pixel share.
COLOUR_BOUNDARY_SD = 1.0


def parse_level(level: str | Level) -> Level:
    """The :class:`Level` named ``level`` (case-insensitive).

    Raises:
        ValueError: not one of easy / normal / hard.
    """
    if isinstance(level, Level):
        return level
    key = str(level).strip().lower()
    if key not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}: use easy, normal or hard")
    return LEVELS[key]


#: Added to a word's log score when WordNet on the cards' labels rules it out.
RULED_OUT = -30.0
