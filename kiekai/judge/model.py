"""The fitted decision per strictness: a logistic regression over :data:`FEATURES`.

It decides only the pairs no rule settles (:attr:`kiekai.judge.features.Evidence.accept_from`
is None: derivations, kinds one or more steps apart, links through rare senses, pairs
related only by embedding); format version 3 marks models fitted on those pairs alone.

Parameters live in ``data/judge-model.json`` (written by ``scripts/fit_judge.py``)::

    {"version": 3, "features": [...], "levels": {"strict": {"coef": [...],
     "intercept": -3.1, "threshold": 0.5}, ...}, "fit": {...provenance...}}

P(accept | level) = sigmoid(coef . x + intercept); accepted when P >= threshold.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from kiekai.judge.features import FEATURES
from kiekai.judge.verdict import Strictness
from kiekai.paths import data_file, missing_file_message

#: Where the fitted parameters live: ``data/judge-model.json`` at the repository root in a
#: checkout (``scripts/fit_judge.py`` writes it there), else the copy the wheel ships in
#: ``kiekai/_data`` (see :mod:`kiekai.paths`).
MODEL_PATH = data_file("judge-model.json")

#: The file format this code reads; ``scripts/fit_judge.py`` writes it.
MODEL_FORMAT_VERSION = 3


@dataclass(frozen=True)
class LevelModel:
    """Logistic regression for one strictness level.

    Attributes:
        coef: float64 array of shape ``[len(FEATURES)]``.
        intercept: bias term (log-odds).
        threshold: probability at or above which a guess is accepted.
    """

    coef: np.ndarray
    intercept: float
    threshold: float = 0.5

    @property
    def is_constant(self) -> bool:
        """Whether every coefficient is 0, so the decision ignores the features: a rule
        of the level (strict: only forms of the same word pass), not a score."""
        return not bool(np.any(self.coef))

    def probability(self, x: np.ndarray) -> float:
        """P(accept) for a feature vector ``x`` of shape ``[len(FEATURES)]``."""
        z = float(np.dot(self.coef, x) + self.intercept)
        if z >= 0:
            return 1.0 / (1.0 + math.exp(-z))
        e = math.exp(z)
        return e / (1.0 + e)


@dataclass(frozen=True)
class JudgeModel:
    """All levels' models plus the file's provenance block."""

    version: int
    levels: dict[Strictness, LevelModel]
    fit: dict[str, Any]

    def level(self, strictness: Strictness) -> LevelModel:
        """The model for ``strictness``."""
        return self.levels[strictness]


def parse_model(data: dict[str, Any], source: str = "<dict>") -> JudgeModel:
    """Build a :class:`JudgeModel` from the JSON structure.

    Raises:
        ValueError: wrong format version, features that differ from :data:`FEATURES`,
            or a missing level; the message names ``source`` and says to rerun
            ``scripts/fit_judge.py``.
    """
    fix = "regenerate it with `python scripts/fit_judge.py`"
    if data.get("version") != MODEL_FORMAT_VERSION:
        raise ValueError(
            f"{source}: judge model format {data.get('version')!r}, this code reads "
            f"{MODEL_FORMAT_VERSION}; {fix}"
        )
    if tuple(data.get("features", ())) != FEATURES:
        raise ValueError(f"{source}: features {data.get('features')} != {list(FEATURES)}; {fix}")
    levels = {}
    for level in Strictness:
        try:
            block = data["levels"][level.value]
            levels[level] = LevelModel(
                coef=np.asarray(block["coef"], dtype=np.float64),
                intercept=float(block["intercept"]),
                threshold=float(block.get("threshold", 0.5)),
            )
        except (KeyError, TypeError) as exc:
            raise ValueError(
                f"{source}: level {level.value!r} missing or malformed; {fix}"
            ) from exc
        if levels[level].coef.shape != (len(FEATURES),):
            raise ValueError(f"{source}: level {level.value!r} has wrong coef length; {fix}")
    return JudgeModel(version=int(data["version"]), levels=levels, fit=dict(data.get("fit", {})))


@lru_cache(maxsize=8)
def load_model(path: str | None = None) -> JudgeModel:
    """Read and cache the fitted model (default :data:`MODEL_PATH`).

    Raises:
        FileNotFoundError: the file is missing (message says how to create it).
        ValueError: the file is not valid JSON or not this format.
    """
    p = Path(path) if path else MODEL_PATH
    if not p.is_file():
        raise FileNotFoundError(
            missing_file_message(p, "judge model", remake="python scripts/fit_judge.py")
        )
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"{p} is not valid JSON ({exc}); regenerate it with scripts/fit_judge.py"
        ) from exc
    return parse_model(data, str(p))
