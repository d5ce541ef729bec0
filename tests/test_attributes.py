"""What a person sees in a photo of a class (kiekai.perception.attributes)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kiekai.perception.attributes import (
    COLOUR_TABLE_WEIGHT,
    COLUMNS,
    NO,
    PIXEL_COLOUR_SHRINK,
    YES,
    AttributePerception,
    AttributesError,
    classifier_distribution,
    labels_distribution,
    load_attributes,
)


def _table(tmp_path: Path, rows: list[list[str]], header: list[str] | None = None) -> Path:
    path = tmp_path / "attrs.tsv"
    lines = ["# how it was made", "\t".join(header or COLUMNS)] + ["\t".join(r) for r in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _row(wnid: str, **cells: str) -> list[str]:
    base = {c: "n" for c in COLUMNS}
    base.update(wnid=wnid, setting="?", size="medium", colour="?")
    base.update(cells)
    return [base[c] for c in COLUMNS]


class Card:
    def __init__(self, name: str) -> None:
        self.id = name


def test_the_shipped_table_covers_imagenet() -> None:
    table = load_attributes()
    import timm.data

    info = Path(timm.data.__file__).parent / "_info" / "imagenet_synsets.txt"
    wnids = info.read_text().split()
    assert len(table.wnids) == 1000 and set(table.wnids) == set(wnids)
    row = table.index["n01531178"]  # goldfinch
    assert table.values[row, table.words.index("yellow")] == YES
    assert table.values[row, table.words.index("wings")] == YES
    assert table.values[row, table.words.index("indoors")] == NO


def test_scores_from_a_class_distribution(tmp_path) -> None:
    table = load_attributes(
        _table(
            tmp_path,
            [
                _row("n1", setting="outdoors", nature="y", colour="yellow", size="big"),
                _row("n2", setting="indoors", nature="?", metal="y"),
            ],
        )
    )
    one_hot = {"a": [1.0, 0.0], "b": [0.0, 1.0], "c": [0.5, 0.5], "z": [0.0, 0.0]}

    class Pixels:
        name = "colour"

        def scores(self, cards, words):
            return np.full((len(cards), len(words)), 0.8, dtype=np.float32)

    perception = AttributePerception(
        lambda cards: np.asarray([one_hot[c.id] for c in cards]), table, Pixels()
    )
    words = ["outdoors", "indoors", "nature", "metal", "big", "small", "yellow", "dog"]
    assert perception.knows(words).tolist() == [True] * 7 + [False]
    s = perception.scores([Card("a"), Card("b"), Card("c"), Card("z")], words)
    assert s.shape == (4, 8) and s.dtype == np.float32
    assert s[0].tolist()[:6] == pytest.approx([YES, NO, YES, NO, YES, NO])
    assert s[1, 2] == 0.5 and s[1, 3] == pytest.approx(YES)  # "?" stays undecided
    assert s[2, 0] == pytest.approx((YES + NO) / 2)
    assert (s[3, :6] == 0.5).all()  # no known class: undecided
    assert (s[:, 7] == 0.5).all()  # not its word
    w = COLOUR_TABLE_WEIGHT
    assert s[0, 6] == pytest.approx(w * YES + (1 - w) * 0.8)  # typical colour and the pixels
    # no typical colour: the pixels alone, shrunk towards "can't tell"
    assert s[1, 6] == pytest.approx(0.5 + PIXEL_COLOUR_SHRINK * 0.3)
    # without a colour fallback, colours are not its words
    plain = AttributePerception(lambda cards: np.zeros((len(cards), 2)), table)
    assert not plain.knows(["yellow"])[0]


def test_a_bad_table_names_the_line_and_the_column(tmp_path) -> None:
    with pytest.raises(AttributesError, match="header"):
        load_attributes(_table(tmp_path, [], header=["wnid", "setting"]))
    with pytest.raises(AttributesError, match="line 3: nature is 'maybe'"):
        load_attributes(_table(tmp_path, [_row("n1", nature="maybe")]))
    with pytest.raises(AttributesError, match="line 4: wnid n1 is listed twice"):
        load_attributes(_table(tmp_path, [_row("n1"), _row("n1")]))
    short = _table(tmp_path, [_row("n1")[:5]])
    with pytest.raises(AttributesError, match="line 3: 5 fields"):
        load_attributes(short)
    with pytest.raises(AttributesError, match="cannot read"):
        load_attributes(tmp_path / "missing.tsv")


def test_distributions_from_labels_and_from_the_classifier(tmp_path) -> None:
    table = load_attributes(_table(tmp_path, [_row("n00000001"), _row("n00000002")]))

    class Synset:
        def __init__(self, offset: int) -> None:
            self._offset = offset

        def offset(self) -> int:
            return self._offset

    class Labels:
        def card_synset(self, card):
            return {"a": Synset(2), "b": Synset(9)}.get(card.id)

    by_label = labels_distribution(Labels(), table)([Card("a"), Card("b"), Card("c")])
    assert by_label.tolist() == [[0.0, 1.0], [0.0, 0.0], [0.0, 0.0]]

    class Classifier:
        wnids = ("n00000002", "n00000077", "n00000001")

        def probabilities(self, cards):
            return np.asarray([[0.6, 0.3, 0.1]] * len(cards))

    p = classifier_distribution(Classifier(), table)([Card("x")])
    assert p.tolist() == [[0.1, 0.6]]


def test_perception_goes_on_without_a_broken_table(tmp_path, monkeypatch) -> None:
    """A class-attributes table that cannot be read costs one line naming it and the fix;
    the labels perception still plays."""
    import kiekai.perception.attributes as attributes
    from kiekai.deck import Card as DeckCard
    from kiekai.perception import load_perception

    broken = tmp_path / "class-attributes.tsv"
    broken.write_text("wnid\tsetting\n", encoding="utf-8")
    monkeypatch.setattr(attributes, "ATTRIBUTES_FILE", broken)
    monkeypatch.setattr(attributes.load_attributes, "__defaults__", (broken,))
    card = DeckCard(
        id="a.jpg", path=tmp_path / "a.jpg", sha256="ab" * 32, label="tench", wnid="n01440764"
    )
    lines: list[str] = []
    perception, usable = load_perception("labels", [card], echo=lines.append)
    assert usable == [card]
    assert any("without class attributes" in line and str(broken) in line for line in lines)
    assert perception.scores([card], ["fish"])[0, 0] == 1.0


def test_cards_of_a_class_outside_the_table_fall_back_to_the_rest(tmp_path) -> None:
    """A labelled photo whose class is not in the table (a moon, a printed page) keeps the
    scores of the things perception (WordNet's groundings), weighed by the mass outside."""
    table = load_attributes(_table(tmp_path, [_row("n1", nature="y")]))

    class Rest:
        name = "labels"

        def knows(self, words):
            return np.asarray([w == "nature" for w in words])

        def scores(self, cards, words):
            return np.full((len(cards), len(words)), 0.3, dtype=np.float32)

    dist = {"in": [1.0], "out": [0.0], "half": [0.5]}
    perception = AttributePerception(
        lambda cards: np.asarray([dist[c.id] for c in cards]), table, rest=Rest()
    )
    s = perception.scores([Card("in"), Card("out"), Card("half")], ["nature", "wild"])
    assert s[0, 0] == pytest.approx(YES)
    assert s[1, 0] == pytest.approx(0.3)  # the rest's score
    assert s[2, 0] == pytest.approx(0.5 * YES + 0.5 * 0.3)
    assert s[1, 1] == 0.5  # the rest does not know the word: undecided
