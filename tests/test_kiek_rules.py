"""kiekai/kiek/rules.py: the Kiek rules in one place."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from kiekai.kiek import engine, rules

PACKAGE = Path(rules.__file__).resolve().parent.parent
#: The rule constants, and the names earlier modules gave the same numbers.
RULE_NAMES = {
    "TURN_SECONDS", "HAND_SIZE", "TABLE_SIZE", "PLAYED_PER_TURN", "GROUP_OF_THREE", "GROUP_OF_TWO",
    "CHOOSERS", "BASE_ROUNDS", "MAX_STAKE", "CALL_POINTS", "MIN_PLAYERS", "MAX_PLAYERS",
    "CARDS_PER_PLAYER", "CARDS_FACE_UP", "FACE_UP", "ROUNDS_PER_GAME",
}  # fmt: skip


def _assigned_names(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AnnAssign)
            else []
        )
        for target in targets:
            for leaf in ast.walk(target):
                if isinstance(leaf, ast.Name):
                    names.add(leaf.id)
    return names


def test_each_rule_constant_is_assigned_only_in_rules() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "rules.py" and path.parent.name == "kiek":
            continue
        if "kismet" in path.parts:  # Kismet's own rules (2 to 8 players) are not Kiek's
            continue
        clash = _assigned_names(ast.parse(path.read_text(encoding="utf-8"))) & RULE_NAMES
        offenders += [f"{path.relative_to(PACKAGE)}: {name}" for name in sorted(clash)]
    assert offenders == []
    assert RULE_NAMES - {"CARDS_PER_PLAYER", "CARDS_FACE_UP", "FACE_UP", "ROUNDS_PER_GAME"} <= set(
        vars(rules)
    )


def test_the_engine_uses_the_rules_module() -> None:
    assert engine.HAND_SIZE is rules.HAND_SIZE and engine.TURN_SECONDS == 120.0
    assert rules.cards_needed(4) == 19 == 4 * rules.HAND_SIZE + rules.TABLE_SIZE


@pytest.mark.parametrize(("round_number", "points"), [(1, 1), (2, 2), (3, 3), (4, 3), (10, 3)])
def test_stakes_rise_each_round_to_three(round_number: int, points: int) -> None:
    assert rules.stake_of_round(round_number) == points


def test_bad_counts_are_refused() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        rules.cards_needed(0)
    with pytest.raises(ValueError, match="counted from 1"):
        rules.stake_of_round(0)
