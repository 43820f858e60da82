"""The game's words are the printed rule books' (issue #33): each colour, card and rule term of the web client's
Czech, Romanian, Polish and Hungarian catalogues is the word of that language's Europe rule book, and Finnish the
word of the Finnish USA rule book (which has no tunnel, ferry or station: those are kept as they are).

TERMS holds, for each language and catalogue key, the book's word (or the stem its cases share: "fialov" for
fialová, fialovou, fialových). The word is checked in the catalogue's value (every plural form and case of it
read together) and in the book's text. The books' texts are not part of this repository: they are read from
TTR_RULEBOOKS (by default the `seeds` folder in the `shared` folder beside the checkout), each known by words only
it holds; without them only the catalogue half runs. Case is ignored; the Romanian text lost its diacritics when it
was scanned, so Romanian is compared without them.
"""

from __future__ import annotations

import json
import os
import unicodedata
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
LOCALES = ROOT / "frontend" / "locales"
BOOKS = Path(os.environ.get("TTR_RULEBOOKS", ROOT.parent / "shared" / "seeds"))

# Words only one language's book holds: how its text is found among the files.
MARKERS = {
    "cs": "zabírání tratí",
    "ro": "revendicarea rutelor",
    "pl": "budowanie tras",
    "hu": "útvonalszakasz megszerzése",
    "fi": "junakortit",
}

COLOURS = ["purple", "blue", "orange", "white", "green", "yellow", "black", "red"]


def colours(stems: list[str], gray: str, locomotive: str) -> dict[str, Term]:
    """The eight card colours (by name and as a card's label), grey and the locomotive."""
    table: dict[str, Term] = {f"colour.{name}": stem for name, stem in zip(COLOURS, stems, strict=True)}
    table |= {f"colour.short.{name}": stem for name, stem in zip(COLOURS, stems, strict=True)}
    return table | {"colour.gray": gray, "colour.locomotive": locomotive, "colour.count.locomotive": locomotive}


Term = str | tuple[str, ...]  # a word, or words that must all be there ("zbud", "trasę": zbudować trasę)

TERMS: dict[str, dict[str, Term]] = {
    "cs": colours(["fialov", "modr", "oranžov", "bíl", "zelen", "žlut", "čern", "červen"], "šed", "lokomotiv") | {
        "rule.C-CMP-1": "karet vozů",  # the train cards
        "cards": "kart",
        "trains": "vagónk",  # the plastic trains: vagónky
        "panel.trains": "vagónk",
        "tickets": "vlakové linky",  # destination tickets: karty vlakových linek
        "game.draw_tickets": "karty vlakových linek",
        "game.long": "dlouh",  # a long route's ticket: dlouhé linky
        "board.tunnel": "tunel",
        "board.ferry": "přívoz",
        "refuse.ferry": "přívoz",
        "panel.stations": "stanice",
        "log.station_built": "železniční stanici",
        "panel.routes": "tratě",
        "game.claim": "zabrat",
        "rule.C-DBL-1": "dvojit",
        "panel.longest": "nejdelší trať",
        "rule.C-LNG-1": "nejdelší souvislou tratí",
        "rule.E-SCR-1": "evropský expres",
        "game.market": "odhalené karty",
        "game.deck": "balíč",
        "game.draw_deck": "balíčku",
        "game.discarded": "odhozen",
        "log.last_round": "posledn",
    },
    "ro": colours(["mov", "albastr", "portocali", "alb", "verde", "galben", "negr", "rosu"], "gri", "locomotiv") | {
        "rule.C-CMP-1": "carti cu vagoane",
        "cards": "carte",
        "trains": "vagoane",
        "panel.trains": "vagoane",
        "tickets": "bilet de destinatie",
        "game.draw_tickets": "bilete de destinatie",
        "board.tunnel": "tunel",
        "board.ferry": "feribot",
        "panel.stations": "gari",
        "log.station_built": "gara",
        "panel.routes": "rute",
        "game.claim": "revendic",
        "rule.C-DBL-1": "rute duble",
        "panel.longest": "cel mai lung traseu",
        "rule.E-SCR-1": "cel mai lung traseu continuu",
        "game.market": "cu fata in sus",
        "game.deck": "pachet",
        "game.draw_deck": "trage",
        "game.discarded": "inlatur",
        "replay.turn": "rând",  # Randul jucatorilor: a player's turn
        "game.phase.turn": "rând",
    },
    "pl": colours(["fioletow", "niebiesk", "pomarańcz", "biał", "zielon", "żółt", "czarn", "czerwon"],
                  "szar", "lokomotyw") | {
        "rule.C-CMP-1": "kart pociągów",
        "cards": "kart",
        "trains": "wagonik",
        "panel.trains": "wagonik",
        "tickets": "bilet",
        "game.draw_tickets": ("pociągn", "bilet"),  # Pociągnięcie biletów
        "game.draw_deck": "pociągn",
        "refuse.second_card": "ciągnięcie kart",
        "game.long": "dług",  # Długie Trasy
        "board.tunnel": "tunel",
        "board.ferry": "prom",
        "panel.stations": "stacje",
        "panel.routes": "trasy",
        "game.claim": ("zbud", "trasę"),  # Zbudowanie trasy, zbudować trasę
        "log.claimed": "buduje trasę",
        "rule.C-DBL-1": "podwójn",
        "panel.longest": "najdłuższy ciąg tras",
        "rule.E-SCR-1": "europejski ekspres",
        "game.market": "odsłonięt",
        "game.deck": "talia",
        "game.discarded": "zużyt",  # stos kart zużytych
        "log.last_round": ("ostatni", "tur"),  # ostatnia tura
    },
    "hu": colours(["lila", "kék", "narancs", "fehér", "zöld", "sárga", "fekete", "piros"], "szürke", "mozdony") | {
        "rule.C-CMP-1": "vonatkocsi-kártya",
        "cards": "kártya",
        "trains": "vonatkocsi",
        "panel.trains": "vonatkocsi",
        "tickets": "menetjegy",
        "game.draw_tickets": ("menetjegy", "húzás"),  # Menetjegykártyák húzása
        "game.long": "hosszú",
        "board.tunnel": "alagút",
        "board.ferry": "komp",
        "panel.stations": "állomás",
        "game.confirm_all_note": "állomás építése",
        "panel.routes": "útvonal",
        "game.claim": "megszer",
        "game.claim_a_route": "útvonalszakasz megszerzése",
        "rule.C-DBL-1": "dupla útvonalszakasz",
        "panel.longest": "leghosszabb út",
        "rule.C-LNG-1": "leghosszabb folytonos út",
        "rule.E-SCR-1": "európa expressz",
        "game.market": "felfordított",
        "game.deck": "pakli",
        "game.discarded": "eldobott",
        "log.last_round": "utolsó kör",
    },
    # The USA book: no tunnel, ferry, station, European Express; orange is ruskea.
    "fi": colours(["violetti", "sininen", "ruskea", "valkoinen", "vihreä", "keltainen", "musta", "punainen"],
                  "harmaa", "veturi") | {
        "cards": "junakort",
        "rule.C-CMP-1": "junakorttia",
        "trains": "vaunu",
        "panel.trains": "vaunut",
        "tickets": "menolippu",
        "game.draw_tickets": ("nost", "menolippu"),  # Menolippujen nostaminen
        "game.long": "pitkä",
        "panel.routes": "reitit",
        "game.claim": ("raken", "reitti"),  # Reitin rakentaminen, rakentaa reitin
        "log.claimed": ("raken", "reitin"),
        "rule.C-DBL-1": "tuplareitin",
        "panel.longest": "pisin yhtenäinen reitti",
        "game.market": "esillä olev",
        "game.deck": "pakka",
        "game.draw_deck": "nosta",
        "game.discarded": "poistopak",
        "game.phase.turn": "vuoro",
    },
}


def normal(text: str, language: str) -> str:
    text = unicodedata.normalize("NFC", " ".join(text.replace("\u00ad", "").split())).casefold()  # soft hyphens out
    if language == "ro":  # the scanned book has lost its diacritics (and reads ţ/ș, î/â as t/s, i/a)
        text = "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))
    return text


def catalogue(language: str) -> dict[str, Any]:
    return dict(json.loads((LOCALES / f"{language}.json").read_text(encoding="utf-8")))


def said(words: dict[str, Any], key: str) -> str:
    """Every form of the entry and of its cases, read together."""
    values = [value for name, value in words.items() if name == key or name.startswith(f"{key}:")]
    return " | ".join(form for value in values for form in (value.values() if isinstance(value, dict) else [value]))


def books() -> dict[str, str]:
    found: dict[str, str] = {}
    for path in sorted(BOOKS.glob("*.txt")) if BOOKS.is_dir() else []:
        text = path.read_text(encoding="utf-8", errors="replace")
        for language, marker in MARKERS.items():
            if marker in normal(text, language):
                found[language] = normal(text, language)
    return found


def holds(text: str, term: Term, language: str) -> bool:
    return all(normal(word, language) in text for word in ([term] if isinstance(term, str) else term))


@pytest.mark.parametrize("language", list(TERMS))
def test_the_catalogue_says_each_term_as_the_table_has_it(language: str) -> None:
    words = catalogue(language)
    wrong = {key: said(words, key) for key, term in TERMS[language].items()
             if not holds(normal(said(words, key), language), term, language)}
    assert not wrong, f"{language}: these entries do not use the book's word: {wrong}"


@pytest.mark.parametrize("language", list(TERMS))
def test_each_term_of_the_table_is_the_rule_books_own(language: str) -> None:
    text = books().get(language)
    if text is None:
        pytest.skip(f"the {language} rule book's text is not in {BOOKS} (TTR_RULEBOOKS)")
    missing = sorted({str(term) for term in TERMS[language].values() if not holds(text, term, language)})
    assert not missing, f"{language}: not words of the rule book: {missing}"


def test_the_table_covers_every_colour_and_the_rule_terms_of_each_language() -> None:
    terms = {"cards", "trains", "tickets", "panel.routes", "game.claim", "game.draw_tickets", "game.market", "game.deck",
             "panel.longest"}
    wanted = {f"colour.{c}" for c in [*COLOURS, "gray", "locomotive"]} | terms
    europe = {"board.tunnel", "board.ferry", "panel.stations", "rule.E-SCR-1"}
    for language, table in TERMS.items():
        assert wanted <= table.keys(), f"{language} lacks {sorted(wanted - table.keys())}"
        if language != "fi":
            assert europe <= table.keys(), f"{language} lacks {sorted(europe - table.keys())}"
    assert set(books()) in (set(), set(MARKERS)), "a rule book's text is there but not recognised"
