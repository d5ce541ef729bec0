"""WordNet 3.0 noun ids: the ``known_wnid`` check of a deck's labels.csv."""

from __future__ import annotations


class WordNetNounIds:
    """A ``known_wnid`` check for :func:`load_deck` backed by WordNet 3.0.

    Calling it with a wnid (``"n01440764"``) says whether a WordNet 3.0 noun synset has that
    offset (:func:`kiekai.lexicon.synset_for_wnid`). WordNet is loaded on the first call (a
    few seconds; once per process). When WordNet cannot be loaded every id counts as known
    and :attr:`unavailable` holds the reason, so a deck still loads without it.

    Attributes:
        unavailable: why WordNet could not be loaded, or ``None``.
    """

    def __init__(self) -> None:
        self.unavailable: str | None = None
        self._known: dict[str, bool] = {}  # a labels.csv names the same wnid on many rows

    def __call__(self, wnid: str) -> bool:
        """Whether ``wnid`` is a WordNet 3.0 noun synset id (True when WordNet is unavailable)."""
        if self.unavailable is not None:
            return True
        if wnid in self._known:
            return self._known[wnid]
        from kiekai.lexicon import synset_for_wnid
        from kiekai.models import ModelUnavailable

        try:
            synset_for_wnid(wnid)
        except ValueError:
            self._known[wnid] = False
            return False
        except (ModelUnavailable, LookupError, OSError) as exc:
            self.unavailable = str(exc).split(". ", 1)[0]
            return True
        self._known[wnid] = True
        return True
