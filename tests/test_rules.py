"""The rules pages in ``docs/rules/`` (the repository's own): one per game, every id
numbered without gaps, every id named by a test, and the same ids, rulings and options as the
rules specification in ``../shared/rules/`` when that folder is beside the checkout."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from referee import rulebook, shipped
from referee.engine.registry import all_games

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "docs" / "rules"
SHARED = ROOT.parent / "shared" / "rules"
GAMES = sorted(all_games(), key=lambda game: game.info.type_id)
PAGES = {game.info.type_id: FOLDER / game.info.rules for game in GAMES}


def ids_of(text: str) -> list[str]:
    return rulebook.rule_ids(text)


def sections(text: str, pattern: str) -> dict[str, str]:
    """Each rule's text, from its id to the next rule or heading."""
    parts = re.split(pattern, text, flags=re.M)
    return {parts[i]: re.split(r"^#", parts[i + 1], flags=re.M)[0] for i in range(1, len(parts), 2)}


def test_rules_folder_is_in_the_repository() -> None:
    assert (FOLDER / "README.md").is_file()
    assert sorted(p.name for p in FOLDER.glob("*.md")) == sorted(
        ["README.md", *(game.info.rules for game in GAMES)]
    )


def test_this_install_reads_the_repositorys_pages() -> None:
    """A checkout reads ``docs/rules/`` itself; a wheel (the compiled stage runs one) its copy
    of it, page for page."""
    if shipped.SHIPPED.is_dir():
        assert rulebook.RULES_DIR == shipped.SHIPPED / "rules"
    else:
        assert rulebook.RULES_DIR == FOLDER
    served = {p.name: p.read_text(encoding="utf-8") for p in rulebook.RULES_DIR.glob("*.md")}
    assert served == {p.name: p.read_text(encoding="utf-8") for p in FOLDER.glob("*.md")}


@pytest.mark.parametrize("game_type", sorted(PAGES))
def test_ids_are_numbered_without_gaps(game_type: str) -> None:
    ids = ids_of(PAGES[game_type].read_text(encoding="utf-8"))
    prefixes = {rule.split("-")[0] for rule in ids}
    assert len(prefixes) == 1, prefixes
    (prefix,) = prefixes
    assert ids == [f"{prefix}-{n}" for n in range(1, len(ids) + 1)]


def _test_sources() -> str:
    here = Path(__file__).resolve()
    return "\n".join(
        path.read_text(encoding="utf-8")
        for path in sorted((ROOT / "tests").rglob("*.py"))
        if path.resolve() != here
    )


def test_every_rule_id_has_a_test_naming_it() -> None:
    sources = _test_sources()
    missing = [
        rule
        for page in PAGES.values()
        for rule in ids_of(page.read_text(encoding="utf-8"))
        if not re.search(rf"\b{rule}(?!\d)", sources)
    ]
    assert not missing, f"rule ids no test names: {missing}"


def test_the_id_pattern_matches_whole_ids_only() -> None:
    assert not re.search(r"\bVQ-1(?!\d)", "VQ-12 VQ-10")
    assert re.search(r"\bVQ-1(?!\d)", "see VQ-1.")


def test_only_bold_ids_at_the_start_of_an_item_define_rules() -> None:
    assert ids_of("- **ZZ-1** a rule\n- ZZ-2 not a rule line\n- **ZZ-3** another\n") == [
        "ZZ-1",
        "ZZ-3",
    ]


#: A rule item of our pages and of the specification's.
OURS, THEIRS = r"^- \*\*([A-Z]+-\d+)\*\*", r"^- ([A-Z]+-\d+) "


def _shared(game: Any) -> Path:
    return SHARED / str(game.info.rules)


def _ours(game_type: str) -> dict[str, str]:
    return sections(PAGES[game_type].read_text(encoding="utf-8"), OURS)


@pytest.mark.parametrize("game", GAMES, ids=[g.info.type_id for g in GAMES])
def test_same_ids_rulings_and_options_as_the_shared_rules(game: Any) -> None:
    shared = _shared(game)
    if not shared.is_file():
        pytest.skip(f"no rules specification beside the checkout ({shared})")
    ours = _ours(game.info.type_id)
    theirs = sections(shared.read_text(encoding="utf-8"), THEIRS)
    assert list(ours) == list(theirs)
    options = [option.name for option in game.info.options]
    for rule, text in theirs.items():
        mine = ours[rule]
        assert mine.count("Ruling") == text.count("Ruling"), f"{rule}: a ruling is missing"
        for option in options:
            if f"`{option}`" in text:
                assert f"`{option}`" in mine, (rule, option)
        # Every figure the specification gives (counts, values, thresholds) is kept.
        assert set(re.findall(r"\b\d+\b", text)) <= set(re.findall(r"\b\d+\b", mine)), rule


def test_the_mm15_ruling_on_blocked_hands_is_there() -> None:
    text = _ours("mau-mau-vampires")
    assert "Ruling" in text["MM-15"] and "blocked" in text["MM-15"]
    assert "all players" in text["MM-15"] and "bonus" in text["MM-15"]


def test_not_a_copy_of_the_shared_rules() -> None:
    """The pages are written anew: no long run of words is taken over unchanged."""
    if not SHARED.is_dir():
        pytest.skip("no rules specification beside the checkout")
    for game in GAMES:
        ours = _words(PAGES[game.info.type_id].read_text(encoding="utf-8"))
        theirs = _words(_shared(game).read_text(encoding="utf-8"))
        runs = {" ".join(theirs[i : i + 12]) for i in range(len(theirs) - 11)}
        copied = runs & {" ".join(ours[i : i + 12]) for i in range(len(ours) - 11)}
        # What may match: lists of names and numbers (cards, symbols), at most 1 % of the page.
        assert len(copied) <= len(ours) // 100, (game.info.type_id, sorted(copied))


def _words(text: str) -> list[str]:
    """The prose's words (tables are data: the character table is the same facts)."""
    prose = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("|"))
    return re.sub(r"\W+", " ", prose).split()


def test_readme_and_docs_point_only_inside_the_repository() -> None:
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        assert "../shared" not in text and "shared/rules" not in text, path
        for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
            if re.match(r"[a-z]+:", target):
                continue
            assert (path.parent / target).resolve().is_relative_to(ROOT), (path, target)
            assert (path.parent / target).exists(), (path, target)
