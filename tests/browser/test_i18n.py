"""Languages in the browser (issue #23): the page's plural forms are the language's own (frontend/i18n.js's tn over
Intl.PluralRules), the header's selector switches the whole header and <html lang>, a signed-in person's choice is
their account's, and a visitor's browser languages (Accept-Language) pick the page's language."""

from __future__ import annotations

import json
import re
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed (pip install -e '.[test]')")
from playwright.sync_api import Page, expect

from tests.browser.conftest import page_errors
from tests.browser.test_edges import HTTP_SECONDS, call, register, signed_in

LOCALES = Path(__file__).resolve().parents[2] / "frontend" / "locales"
COUNTS = [1, 2, 5, 22, 101]
FORMS = {
    "cs": {
        "cards": ["1 karta", "2 karty", "5 karet", "22 karet", "101 karet"],
        "trains": ["1 vagónek", "2 vagónky", "5 vagónků", "22 vagónků", "101 vagónků"],
        "tickets": ["1 vlaková linka", "2 vlakové linky", "5 vlakových linek", "22 vlakových linek", "101 vlakových linek"],
    },
    "pl": {
        "cards": ["1 karta", "2 karty", "5 kart", "22 karty", "101 kart"],
        "trains": ["1 wagonik", "2 wagoniki", "5 wagoników", "22 wagoniki", "101 wagoników"],
        "tickets": ["1 bilet", "2 bilety", "5 biletów", "22 bilety", "101 biletów"],
    },
    "ro": {
        "cards": ["1 carte", "2 cărți", "5 cărți", "22 de cărți", "101 cărți"],
        "trains": ["1 vagon", "2 vagoane", "5 vagoane", "22 de vagoane", "101 vagoane"],
        "tickets": ["1 bilet de destinație", "2 bilete de destinație", "5 bilete de destinație",
                    "22 de bilete de destinație", "101 bilete de destinație"],
    },
}
LOCALE_OF = {"cs": "cs-CZ", "pl": "pl-PL", "ro": "ro-RO"}

# A client module as the page loaded it: under the hashed name its preloads list (the plain name would load a second
# copy of the module, which has read no catalogue).
MODULE = r"""const module = (name) => import([...document.querySelectorAll("link[rel=modulepreload], script[type=module]")]
    .map((link) => link.href || link.src).find((url) => new RegExp(`/static/${name}(\\.[0-9a-f]+)?\\.js$`).test(url))
    || `/static/${name}.js`);"""

# tn() of each key for each count, as the page computes it (the page's own i18n.js module, already loaded).
PLURALS_IN_PAGE = """async ([keys, counts]) => {
  """ + MODULE + """
  const { tn, language } = await module("i18n");
  return { language: language(), forms: Object.fromEntries(keys.map((k) => [k, counts.map((n) => tn(k, n))])) };
}"""


def opened(page: Page, url: str, language: str) -> None:
    page.goto(url)
    expect(page.locator("html")).to_have_attribute("lang", language)
    expect(page.locator("#page h1")).to_be_visible()


@pytest.mark.parametrize("language", ["cs", "pl", "ro"])
def test_the_page_picks_each_languages_plural_forms(contexts, base_url, language: str):
    page = contexts(locale=LOCALE_OF[language]).new_page()
    errors = page_errors(page)
    opened(page, base_url, language)
    said = page.evaluate(PLURALS_IN_PAGE, [list(FORMS[language]), COUNTS])
    assert said["language"] == language
    assert said["forms"] == FORMS[language]
    assert not errors, errors


# A move and a claim told with cards counted: the colour takes the case the sentence needs after the number, as a
# speaker writes it (Czech and Polish "za" with the accusative: 1 fialovou, 2 fialové, 5 fialových; Finnish an
# imperative's object in the nominative, 1 violetti, 2 violettia, a past verb's in the accusative, 1 violetin;
# Hungarian a singular noun after any number). Each line is [cards, the move in words].
R = "Berlin \u2013 Wien"
CLAIMS: dict[str, list[tuple[dict[str, int], str]]] = {
    "en": [({"purple": 1}, f"claim {R} (4 purple) with 1 purple"), ({"purple": 2}, f"claim {R} (4 purple) with 2 purple"),
           ({"purple": 5}, f"claim {R} (4 purple) with 5 purple"),
           ({"locomotive": 1}, f"claim {R} (4 purple) with 1 locomotive"),
           ({"locomotive": 2}, f"claim {R} (4 purple) with 2 locomotives"),
           ({"purple": 3, "locomotive": 1}, f"claim {R} (4 purple) with 3 purple + 1 locomotive")],
    "cs": [({"purple": 1}, f"zabrat trať {R} (4, fialová) za 1 fialovou"),
           ({"purple": 2}, f"zabrat trať {R} (4, fialová) za 2 fialové"),
           ({"purple": 5}, f"zabrat trať {R} (4, fialová) za 5 fialových"),
           ({"purple": 21}, f"zabrat trať {R} (4, fialová) za 21 fialových"),
           ({"purple": 22}, f"zabrat trať {R} (4, fialová) za 22 fialových"),
           ({"locomotive": 1}, f"zabrat trať {R} (4, fialová) za 1 lokomotivu"),
           ({"locomotive": 2}, f"zabrat trať {R} (4, fialová) za 2 lokomotivy"),
           ({"locomotive": 5}, f"zabrat trať {R} (4, fialová) za 5 lokomotiv"),
           ({"purple": 3, "locomotive": 1}, f"zabrat trať {R} (4, fialová) za 3 fialové + 1 lokomotivu")],
    "pl": [({"purple": 1}, f"zbuduj trasę {R} (4, fioletowy) za 1 fioletową"),
           ({"purple": 2}, f"zbuduj trasę {R} (4, fioletowy) za 2 fioletowe"),
           ({"purple": 5}, f"zbuduj trasę {R} (4, fioletowy) za 5 fioletowych"),
           ({"purple": 21}, f"zbuduj trasę {R} (4, fioletowy) za 21 fioletowych"),
           ({"purple": 22}, f"zbuduj trasę {R} (4, fioletowy) za 22 fioletowe"),
           ({"locomotive": 1}, f"zbuduj trasę {R} (4, fioletowy) za 1 lokomotywę"),
           ({"locomotive": 2}, f"zbuduj trasę {R} (4, fioletowy) za 2 lokomotywy"),
           ({"locomotive": 5}, f"zbuduj trasę {R} (4, fioletowy) za 5 lokomotyw"),
           ({"blue": 1, "locomotive": 3}, f"zbuduj trasę {R} (4, fioletowy) za 1 niebieską + 3 lokomotywy")],
    "ro": [({"red": 1}, f"revendică {R} (4, mov) cu 1 roșie"), ({"red": 2}, f"revendică {R} (4, mov) cu 2 roșii"),
           ({"red": 5}, f"revendică {R} (4, mov) cu 5 roșii"), ({"red": 21}, f"revendică {R} (4, mov) cu 21 de roșii"),
           ({"locomotive": 1}, f"revendică {R} (4, mov) cu 1 locomotivă"),
           ({"locomotive": 2}, f"revendică {R} (4, mov) cu 2 locomotive"),
           ({"purple": 20}, f"revendică {R} (4, mov) cu 20 de mov")],
    "hu": [({"purple": 1}, f"megszerezni ezt: {R} (4, lila), fizetés: 1 lila"),
           ({"purple": 2}, f"megszerezni ezt: {R} (4, lila), fizetés: 2 lila"),
           ({"purple": 5}, f"megszerezni ezt: {R} (4, lila), fizetés: 5 lila"),
           ({"locomotive": 5}, f"megszerezni ezt: {R} (4, lila), fizetés: 5 mozdony")],
    "fi": [({"purple": 1}, f"rakenna reitti {R} (4, violetti) ja maksa 1 violetti"),
           ({"purple": 2}, f"rakenna reitti {R} (4, violetti) ja maksa 2 violettia"),
           ({"purple": 5}, f"rakenna reitti {R} (4, violetti) ja maksa 5 violettia"),
           ({"purple": 21}, f"rakenna reitti {R} (4, violetti) ja maksa 21 violettia"),
           ({"locomotive": 1}, f"rakenna reitti {R} (4, violetti) ja maksa 1 veturi"),
           ({"locomotive": 2}, f"rakenna reitti {R} (4, violetti) ja maksa 2 veturia")],
}
# The log's line for a claim of 3 purple and 1 locomotive (7 points), a bot's name, and a resignation.
TOLD = {
    "en": [f"ada claimed {R} (4 purple) with 3 purple + 1 locomotive, 7 points.", "greedy bot",
           "ada resigned; the strong bot plays the seat."],
    "cs": [f"ada zabírá trať {R} (4, fialová) za 3 fialové + 1 lokomotivu, 7 bodů.", "Chamtivý bot",
           "ada vzdává hru; místo dál hraje silný bot."],
    "pl": [f"ada buduje trasę {R} (4, fioletowy) za 3 fioletowe + 1 lokomotywę, 7 punktów.", "Chciwy bot",
           "ada poddaje grę; miejsce przejmuje silny bot."],
    "ro": [f"ada a revendicat ruta {R} (4, mov) cu 3 mov + 1 locomotivă, 7 puncte.", "Bot lacom",
           "ada a abandonat; botul puternic joacă în locul lui."],
    "hu": [f"ada megszerezte: {R} (4, lila), fizetett: 3 lila + 1 mozdony, 7 pont.", "Mohó bot",
           "ada feladta a játékot; a helyét az erős bot vette át."],
    "fi": [f"ada rakensi reitin {R} (4, violetti) ja maksoi 3 violettia + 1 veturin, 7 pistettä.", "Ahne botti",
           "ada luovutti; paikkaa pelaa nyt vahva botti."],
}
CLAIMS_IN_PAGE = """async ([code, hands]) => {
  """ + MODULE + """
  const { readCatalogue } = await module("catalogue");
  const { eventText, moveText, seatName } = await module("words");
  await readCatalogue(code);
  const board = { cities: { b: { name: "Berlin" }, w: { name: "Wien" } },
    routes: { r: { a: "b", b: "w", length: 4, color: "purple" } } };
  const seats = [{ seat: 0, username: "ada", bot: null }, { seat: 1, username: null, bot: "greedy" }];
  const ctx = { board, seats };
  const claimed = { seat: 0, route: "r", cards: { purple: 3, locomotive: 1 }, points: 7 };
  return {
    moves: hands.map((cards) => moveText({ type: "claim_route", route: "r", cards }, ctx)),
    told: [eventText({ type: "route_claimed", data: claimed }, ctx), seatName(seats[1]),
      eventText({ type: "seat_resigned", data: { seat: 0, bot: "strong" } }, ctx)],
  };
}"""


def test_cards_after_a_number_take_the_case_the_sentence_needs_and_bots_have_names(contexts, base_url):
    page = contexts(locale="en-US").new_page()
    errors = page_errors(page)
    opened(page, base_url, "en")
    for code, claims in CLAIMS.items():
        said = page.evaluate(CLAIMS_IN_PAGE, [code, [cards for cards, _ in claims]])
        assert said["moves"] == [text for _, text in claims], code
        assert said["told"] == TOLD[code], code
    assert not errors, errors


def test_every_catalogues_plural_entries_name_the_browsers_categories(contexts, base_url):
    """The categories of each plural entry are those Intl.PluralRules names for the language, in this browser."""
    page = contexts().new_page()
    opened(page, base_url, "en")
    script = "(cs) => Object.fromEntries(cs.map((c) => [c, new Intl.PluralRules(c).resolvedOptions().pluralCategories]))"

    categories = {code: sorted(names) for code, names in page.evaluate(script, ["en", "cs", "ro", "pl", "hu", "fi"]).items()}
    assert categories["cs"] == ["few", "many", "one", "other"] and categories["ro"] == ["few", "one", "other"]
    for code, wanted in categories.items():
        words = json.loads((LOCALES / f"{code}.json").read_text(encoding="utf-8"))
        plurals = {key: sorted(value) for key, value in words.items() if isinstance(value, dict)}
        assert plurals and all(forms == wanted for forms in plurals.values()), (code, plurals)


def test_the_header_selector_switches_to_finnish_and_sets_the_html_lang(contexts, base_url):
    page = contexts(locale="en-US").new_page()
    errors = page_errors(page)
    opened(page, base_url, "en")
    expect(page.locator("#who")).to_have_text("Sign in")
    selector = page.locator("header.top select[name=language]")
    expect(selector.locator("option")).to_have_text(["English", "Čeština", "Română", "Polski", "Magyar", "Suomi"])
    expect(selector).to_have_value("en")

    selector.select_option("fi")
    expect(page.locator("html")).to_have_attribute("lang", "fi")
    expect(page.locator("#who")).to_have_text("Kirjaudu sisään")
    expect(page.locator("header.top nav > a[href='/']")).to_have_text("Aula")
    expect(page.locator("header.top nav > a[href='/leaderboard']")).to_have_text("Tulostaulu")
    expect(page.locator("#page h1")).to_have_text("Aula")
    expect(page.locator("header.top select[name=language]")).to_have_value("fi")
    assert page.title() == "Aula · Ticket to Ride"

    page.goto(f"{base_url}/leaderboard")  # the choice stays with this browser, on every page
    expect(page.locator("html")).to_have_attribute("lang", "fi")
    expect(page.locator("#page h1")).to_have_text("Tulostaulu: Eurooppa")
    assert not errors, errors


def test_a_signed_in_persons_choice_is_their_accounts_wherever_they_sign_in(contexts, base_url):
    name, token = register(base_url)
    page = contexts(locale="en-US").new_page()
    errors = page_errors(page)
    signed_in(page, base_url, name, token)
    opened(page, base_url, "en")
    page.locator("header.top select[name=language]").select_option("pl")
    expect(page.locator("html")).to_have_attribute("lang", "pl")
    expect(page.locator("#who")).to_contain_text("Ustawienia")
    assert call(base_url, token, "GET", "/me")["language"] == "pl"

    elsewhere = contexts(locale="fi-FI").new_page()  # another browser, whose own languages say Finnish
    signed_in(elsewhere, base_url, name, token)
    opened(elsewhere, base_url, "pl")
    expect(elsewhere.locator("#who")).to_contain_text("Wyloguj się")

    # The settings page: "as my browser says" takes the account's language away; this browser's is English.
    page.goto(f"{base_url}/me")
    choice = page.locator("section.language select")
    expect(choice).to_have_value("pl")
    choice.select_option("")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.locator("section.language select")).to_have_value("")
    assert call(base_url, token, "GET", "/me")["language"] is None
    assert not errors, errors


def test_a_signed_out_visitor_whose_browser_asks_for_czech_gets_czech(contexts, base_url):
    page = contexts(locale="cs-CZ").new_page()
    errors = page_errors(page)
    requests: list[Any] = []
    page.on("request", lambda request: requests.append(request))
    opened(page, base_url, "cs")
    assert page.evaluate("navigator.languages")[0] == "cs-CZ"
    assert requests[0].headers.get("accept-language", "").startswith("cs-CZ")
    expect(page.locator("#who")).to_have_text("Přihlásit se")
    expect(page.locator("#page h1")).to_have_text("Herna")
    expect(page.locator("header.top select[name=language]")).to_have_value("cs")
    expect(page.locator(".games-open h2")).to_contain_text("Otevřené hry")
    formatted = page.evaluate("""async () => {
      """ + MODULE + """
      const { number, date, relativeTime, t, tParts } = await module("i18n");
      const link = document.createElement("a");
      return [number(1234.5), date("2026-11-26T10:00:00Z", { dateStyle: "long", timeZone: "UTC" }),
        relativeTime(Date.now() + 3 * 3600 * 1000 + 5000), relativeTime(Date.now() - 86400 * 1000),
        t("turn.theirs", { name: "ada" }), t("no.such.key"), tParts("lobby.sign_in_first", { signin: link }).length];
    }""")
    assert formatted == ["1\u00a0234,5", "26. listopadu 2026", "za 3 hodiny", "včera", "Na tahu je ada", "no.such.key", 3]
    assert not errors, errors
    # The catalogues are plain static files: no build step stands between the JSON and the page.
    assert httpx.get(f"{base_url}/static/locales/cs.json", timeout=HTTP_SECONDS).json()["turn.yours"] == "Jste na tahu"


def test_an_unknown_browser_language_gets_english(contexts, base_url, expected_errors):
    expected_errors(r"^404 GET /api/users/nobody-")  # the page that says there is no such player, in English
    page = contexts(locale="de-DE").new_page()
    opened(page, base_url, "en")
    expect(page.locator("#page h1")).to_have_text("Lobby")
    name = f"nobody-{uuid.uuid4().hex[:6]}"
    page.goto(f"{base_url}/users/{name}")
    expect(page.locator("#page .error")).to_have_text("There is no player by this name.")


# The settings page and the inbox in Czech and Finnish: no English word of their own catalogue entries is left on them.

# The entries of inbox.js, byday.js, me.js, api.js and index.html.
OWN_KEYS = ("inbox.", "byday.", "me.", "api.", "page.loading", "page.noscript")
LETTERS = re.compile(r"[^\W\d_]{3,}")  # a word: three letters or more, of any alphabet
PLACEHOLDERS = re.compile(r"\{\w+\}")


def forms(value: Any) -> list[str]:
    return list(value.values()) if isinstance(value, dict) else [value]


def words_of(text: str) -> set[str]:
    return {word.lower() for word in LETTERS.findall(PLACEHOLDERS.sub(" ", text))}


def english_words(language: str, keys: tuple[str, ...] = OWN_KEYS) -> set[str]:
    """The words of English's entries under `keys` that the language's catalogue never uses ("e-mail" is Czech too)."""
    english = json.loads((LOCALES / "en.json").read_text(encoding="utf-8"))
    theirs = json.loads((LOCALES / f"{language}.json").read_text(encoding="utf-8"))
    own = [text for key, value in english.items() if key.startswith(keys) for text in forms(value)]
    ours = {word for text in own for word in words_of(text)}
    shared = {word for value in theirs.values() for text in forms(value) for word in words_of(text)}
    return ours - shared


def notifications_besides(game: str, rival: str) -> list[dict[str, Any]]:
    """Notifications of the kinds a quick test cannot bring about (a finished game, a clock, a table the queue formed),
    as the server stores them (English text, kind, data), and one of a kind the page does not know."""
    now = datetime.now(UTC)
    at = lambda minutes: (now - timedelta(minutes=minutes)).isoformat()  # noqa: E731
    row = lambda i, kind, text, **data: {  # noqa: E731
        "id": 10_000_000 + i, "kind": kind, "game": game, "at": at(i * 7), "read": True, "text": text, "data": data,
    }
    return [
        row(1, "game_formed", "A 3-player USA table formed (2 players and 1 bot): choose your tickets."),
        row(2, "game_formed", "Your Europe rematch has started: choose your tickets."),
        row(3, "rematch_offered", f"{rival} offers a rematch of your Europe game.", by=rival),
        row(4, "game_ended", "Your USA game is over: 2nd of 3 with 41 points. Rating 12.0 → 10.5.",
            place=2, points=41, rating_before=12.04, rating_after=10.5),
        row(5, "clock_running_out", "Your clock in your Europe game runs out in about 5 hours.",
            deadline=(now + timedelta(hours=5, minutes=1)).isoformat()),
        row(6, "clock_running_out", "Your clock in your Europe game runs out in about 1 hour.",
            deadline=(now - timedelta(hours=30)).isoformat()),
        {**row(7, "kind_from_the_future", "zq-unknown-kind-7"), "at": at(60 * 30)},
    ]


RETOLD = {
    "cs": {
        "invitation": "{rival} vás zve do hry Evropa pro 3 hráče.",
        "game_ended": "Vaše hra USA skončila: 2. místo z 3 s 41 body. Hodnocení 12,0 → 10,5.",
        "your_turn": "Ve vaší hře Evropa si vyberte karty vlakových linek.",
        "badge": "Jste na tahu: 1 hra",
        "rule": "Pravidlo",
    },
    "fi": {
        "invitation": "{rival} kutsuu sinut 3 pelaajan Eurooppa-peliin.",
        "game_ended": "USA-pelisi on päättynyt: sija 2/3, 41 pistettä. Luokitus 12,0 → 10,5.",
        "your_turn": "Valitse menolippusi Eurooppa-pelissäsi.",
        "badge": "Sinun vuorosi 1 pelissä",
        "rule": "Sääntö",
    },
}

# An API refusal as the page tells it: a move the rules refuse (its rule explained), and a common code.
REFUSALS = """async () => {
  """ + MODULE + """
  const { ApiError } = await module("api");
  return [new ApiError(400, { code: "illegal_move", detail: "route taken", rule: "C-DBL-1" }).text,
    new ApiError(403, { code: "not_your_turn", detail: "it is not your turn", rule: "C-TRN-1" }).text,
    new ApiError(409, { code: "something_new", detail: "a new refusal" }).text];
}"""


def test_the_settings_page_and_the_inbox_in_czech_and_finnish_leave_no_english_word(contexts, base_url, artifacts: Path):
    name, token = register(base_url)
    rival, rival_token = register(base_url)
    # A daily game against a bot (a notification: choose your tickets), an invitation, a pending address and a vacation.
    game = call(base_url, token, "POST", "/games", {"map": "europe", "players": 2, "ranked": False, "speed": "daily",
                                                   "days_per_move": 1, "bank_days": 3, "turn_seconds": None})
    call(base_url, token, "POST", f"/games/{game['id']}/start", {"fill_with_bots": "greedy"})
    private = call(base_url, rival_token, "POST", "/games",
                   {"map": "europe", "players": 3, "ranked": False, "private": True})
    call(base_url, rival_token, "POST", f"/games/{private['id']}/invite", {"username": name})
    call(base_url, token, "PATCH", "/me", {"email": f"{name}@example.org"})
    call(base_url, token, "POST", "/me/vacation", {"days": 3})
    extra = notifications_besides(game["id"], rival)

    def more_notifications(route: Any) -> None:
        answer = route.fetch()
        body = answer.json()
        route.fulfill(response=answer, json={**body, "results": body["results"] + extra})

    for language, locale in (("cs", "cs-CZ"), ("fi", "fi-FI")):
        said = {key: text.format(rival=rival) for key, text in RETOLD[language].items()}
        page = contexts(locale=locale, viewport={"width": 1200, "height": 1000}).new_page()
        errors = page_errors(page)
        page.route("**/api/notifications", more_notifications)
        signed_in(page, base_url, name, token)
        opened(page, f"{base_url}/me", language)
        expect(page.locator("section.vacation .on-vacation")).to_be_visible()
        expect(page.locator("[data-state=pending]")).to_contain_text(f"{name}@example.org")
        page.locator("input[data-kind=game_ended]").click()  # off, then (the second language) on again: "Saved: …"
        expect(page.locator("section.notify [role=status]")).not_to_be_empty()
        expect(page.locator("#inbox a.your-turn")).to_have_text(said["badge"], timeout=30_000)
        assert page.locator("noscript").text_content() != "This page needs JavaScript."
        page.screenshot(path=artifacts / f"i18n-settings-{language}.png", full_page=True)

        page.locator("#inbox .inbox-button").click()
        panel = page.locator("#inbox-panel")
        expect(panel.locator("li")).to_have_count(2 + len(extra), timeout=30_000)
        expect(panel.locator("li[data-kind=invitation]")).to_have_text(re.compile(rf"^{re.escape(said['invitation'])} · "))
        expect(panel.locator("li[data-kind=your_turn]")).to_contain_text(said["your_turn"])
        expect(panel.locator("li[data-kind=game_ended]")).to_contain_text(said["game_ended"])
        expect(panel.locator("li[data-kind=kind_from_the_future]")).to_contain_text("zq-unknown-kind-7")  # as stored
        page.screenshot(path=artifacts / f"i18n-inbox-{language}.png")

        shown = page.evaluate("document.body.innerText")
        for own in (f"{name}@example.org", name, rival, "zq-unknown-kind-7", "Ticket to Ride"):  # names, not words
            shown = shown.replace(own, " ")
        english = english_words(language)
        assert len(english) > 100, sorted(english)
        assert sorted(words_of(shown) & english) == [], shown

        theirs = json.loads((LOCALES / f"{language}.json").read_text(encoding="utf-8"))
        illegal, not_yours, unknown = page.evaluate(REFUSALS)
        assert illegal == f"{said['rule']} C-DBL-1: {theirs['rule.C-DBL-1']}"  # the rule explained, not the server's words
        assert not_yours == f"{said['rule']} C-TRN-1: {theirs['api.code.not_your_turn']}"
        assert unknown == theirs["api.refused"].format(detail="a new refusal")  # an unknown code: quoted
        assert not errors, errors


# The game page in Czech and Finnish: a few moves against a bot, clicked; no English word of the game page's own
# entries is left (board, banner, actions, market, hand, tickets, players, log, colours).

GAME_KEYS = ("game.", "log.", "panel.", "colour.", "board.", "replay.")


def game_opened(page: Page, url: str, language: str) -> None:
    page.goto(url)
    expect(page.locator("html")).to_have_attribute("lang", language)
    expect(page.locator("section.players")).to_be_visible(timeout=30_000)


def moved_by_clicking(page: Page, moves: int) -> None:
    """Keeps the tickets offered, then makes `moves` more choices among those the page offers (cards, routes)."""
    from tests.browser.test_play import play_one

    made, deadline = 0, time.monotonic() + 90
    while made < moves + 1 and time.monotonic() < deadline:
        if play_one(page):
            made += 1
            page.wait_for_timeout(300)
        else:
            page.wait_for_timeout(200)
    assert made >= 2, f"only {made} moves were offered"


def test_a_game_against_a_bot_in_czech_and_finnish_leaves_no_english_word(contexts, base_url, artifacts: Path):
    name, token = register(base_url)
    for language, locale in (("cs", "cs-CZ"), ("fi", "fi-FI")):
        game = call(base_url, token, "POST", "/games", {"map": "europe", "players": 2, "ranked": False})
        call(base_url, token, "POST", f"/games/{game['id']}/start", {"fill_with_bots": "greedy"})
        page = contexts(locale=locale, viewport={"width": 1280, "height": 1000}).new_page()
        errors = page_errors(page)
        signed_in(page, base_url, name, token)
        game_opened(page, f"{base_url}/games/{game['id']}", language)
        expect(page.locator("section.actions [data-action=keep]")).to_be_visible(timeout=30_000)
        expect(page.locator(".turn-banner.mine")).to_be_visible()
        moved_by_clicking(page, 3)
        expect(page.locator("ol.log li")).not_to_have_count(0)
        expect(page.locator("section.hand .card").first).to_be_visible()
        page.screenshot(path=artifacts / f"game-{language}.png", full_page=True)

        names = page.evaluate("""() => [...Object.values(window.ttrGame.board.cities).map((c) => c.name),
          ...window.ttrGame.game.summary.seats.map((s) => s.username || "")]""")
        shown = page.evaluate("document.body.innerText")
        for own in [*sorted(filter(None, names), key=len, reverse=True), "Ticket to Ride"]:
            shown = shown.replace(own, " ")
        english = english_words(language, GAME_KEYS)
        assert len(english) > 150, sorted(english)
        assert sorted(words_of(shown) & english) == [], shown
        assert "Take cards" not in shown and "destination ticket" not in shown

        phone = contexts(locale=locale, viewport={"width": 390, "height": 844}, device_scale_factor=2,
                         has_touch=True, is_mobile=True).new_page()
        signed_in(phone, base_url, name, token)
        game_opened(phone, f"{base_url}/games/{game['id']}", language)
        expect(phone.locator("ol.log li").first).to_be_visible(timeout=30_000)
        phone.screenshot(path=artifacts / f"game-{language}-phone.png", full_page=True)
        width = phone.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"the phone scrolls sideways: {width}px"
        assert not errors, errors
