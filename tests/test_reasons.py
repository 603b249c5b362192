"""Every ``ErrorInfo.reason`` the referee makes is listed, once, in docs/clients.md section 4,
with a status code: a client author finds each refusal it may meet in one table.

The reasons are read from the source: the string constants passed as the reason of every
constructor of a refusal (``RefereeError``, the helpers of ``referee.application.tables
.errors``, the rooms' own helpers, the engine's ``Rejection``), and the challenge states'
refusals (``REFUSED_IN``).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from google.rpc import code_pb2

ROOT = Path(__file__).resolve().parent.parent
#: Each constructor of a refusal, by name, with the position of its reason argument.
REASON_ARGUMENT = {
    "RefereeError": 2,
    "not_now": 1,
    "forbidden": 1,
    "unauthenticated": 0,
    "denied": 0,
    "Rejection": 3,
    "_not_now": 0,
    "_batch": 2,
}
#: The rooms' ``_refused`` helpers: where their reason is, by module.
REFUSED_HELPERS = {"seating.py": 1, "fill.py": 0}
NAME = re.compile(r"^[A-Z][A-Z0-9_]+$")
#: Rejection's reason when a game's precondition names none (referee.engine.game).
DEFAULT_REASONS = {"NOT_YOUR_TURN"}


def _constants(tree: ast.Module) -> dict[str, str]:
    return {
        node.targets[0].id: node.value.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    }


def _reason_arguments(node: ast.Call, module: str) -> list[ast.expr]:
    func = node.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
    arguments = [k.value for k in node.keywords if k.arg == "reason"]
    at = REFUSED_HELPERS.get(module) if name == "_refused" else REASON_ARGUMENT.get(name)
    if at is not None and len(node.args) > at:
        arguments.append(node.args[at])
    return arguments


def _reason_tables(trees: list[ast.Module]) -> dict[str, list[ast.expr]]:
    """The module-level dicts whose values are all string constants, by name: a reason may be
    looked up in one (``LEFT_REASONS.get(end, "SEAT_FORFEITED")``)."""
    return {
        node.targets[0].id: [v for v in node.value.values if v is not None]
        for tree in trees
        for node in tree.body
        if isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and isinstance(node.value, ast.Dict)
        and all(isinstance(v, ast.Constant) and isinstance(v.value, str) for v in node.value.values)
    }


def _looked_up(value: ast.expr, tables: dict[str, list[ast.expr]]) -> list[ast.expr]:
    """``value`` itself, or for ``TABLE.get(key, default)`` the table's values and the default."""
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr == "get"
        and isinstance(value.func.value, ast.Name)
        and value.func.value.id in tables
    ):
        return tables[value.func.value.id] + value.args[1:]
    return [value]


def reasons_made() -> set[str]:
    found = set(DEFAULT_REASONS)
    paths = [
        path
        for path in sorted((ROOT / "referee").rglob("*.py"))
        if "v1" not in path.relative_to(ROOT).parts
    ]
    trees = [ast.parse(path.read_text(encoding="utf-8")) for path in paths]
    tables = _reason_tables(trees)
    for path, tree in zip(paths, trees, strict=True):
        constants = _constants(tree)
        for node in ast.walk(tree):
            values: list[ast.expr] = []
            if isinstance(node, ast.Call):
                values = [
                    looked
                    for argument in _reason_arguments(node, path.name)
                    for looked in _looked_up(argument, tables)
                ]
            elif (
                isinstance(node, ast.AnnAssign)
                and isinstance(node.target, ast.Name)
                and node.target.id == "REFUSED_IN"
                and isinstance(node.value, ast.Dict)
            ):
                values = [v for v in node.value.values if v is not None]
            for value in values:
                text = (
                    value.value
                    if isinstance(value, ast.Constant)
                    else constants.get(value.id)
                    if isinstance(value, ast.Name)
                    else None
                )
                if isinstance(text, str) and NAME.match(text):
                    found.add(text)
    return found


def reasons_documented() -> dict[str, str]:
    text = (ROOT / "docs" / "clients.md").read_text(encoding="utf-8")
    table = text.split("<!-- reasons:", 1)[1].split("\n\n", 1)[0]
    rows = re.findall(r"^\| `([A-Z0-9_]+)` \| `([A-Z_]+)` \|", table, flags=re.M)
    reasons = [reason for reason, _ in rows]
    assert len(reasons) == len(set(reasons)), "a reason listed twice"
    return dict(rows)


def test_every_reason_the_referee_makes_is_in_the_docs_table() -> None:
    made, documented = reasons_made(), reasons_documented()
    # The scan finds the reasons a client meets most (it reads the source it claims to).
    assert {"RULE_VIOLATION", "NOT_YOUR_TURN", "GAME_OVER", "CHALLENGE_EXPIRED"} <= made
    assert made - documented.keys() == set(), "made but not in docs/clients.md section 4"
    assert documented.keys() - made == set(), "in docs/clients.md but made nowhere"
    for reason, code in documented.items():
        assert code in code_pb2.Code.DESCRIPTOR.values_by_name, (reason, code)
