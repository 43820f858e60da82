"""Languages (issue #23): the web client's catalogues (frontend/locales/<lang>.json) hold the same keys as English's,
an explanation of every rule of docs/RULES.md and the plural forms each language's CLDR rules name; the e-mails'
catalogues (locale/<lang>/LC_MESSAGES/django.po) compile without GNU gettext; a person whose account is in Czech
gets Czech mails, with the plural form the number takes.
"""

from __future__ import annotations

import gettext
import importlib.util
import json
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone, translation

from games.people import inbox, mail
from games.people.models import NOTIFICATION_KINDS, Account, Notification
from tests.server.helpers import create_game, register

ROOT = Path(__file__).resolve().parents[2]
LOCALES = ROOT / "frontend" / "locales"
LANGUAGES = ["en", "cs", "ro", "pl", "hu", "fi"]
# What Intl.PluralRules(lang).resolvedOptions().pluralCategories answers (CLDR; Czech's "many" is for fractions,
# Polish's "other" likewise): tests/browser/test_i18n.py checks these against the browser's own rules.
PLURAL_CATEGORIES = {
    "en": {"one", "other"}, "cs": {"one", "few", "many", "other"}, "ro": {"one", "few", "other"},
    "pl": {"one", "few", "many", "other"}, "hu": {"one", "other"}, "fi": {"one", "other"},
}
PLURAL_KEYS = ["cards", "trains", "tickets", "games", "wins"]
CHAT_KEYS = [
    "chat.phrase.good_luck", "chat.phrase.well_played", "chat.phrase.sorry", "chat.phrase.thinking", "chat.title",
    "chat.send", "chat.placeholder", "chat.report", "chat.mute", "chat.unmute", "chat.hidden", "chat.spectators",
    "chat.table", "chat.rate_limited", "chat.too_long",
]


def catalogue(language: str) -> dict[str, Any]:
    return dict(json.loads((LOCALES / f"{language}.json").read_text(encoding="utf-8")))


def rule_ids() -> list[str]:
    return re.findall(r"^- \*\*([CEUX]-[A-Z]+-\d+)\*\*", (ROOT / "docs" / "RULES.md").read_text(encoding="utf-8"), re.M)


# The web client's catalogues


# A message's arguments, read as frontend/catalogue.js reads them (a small part of ICU MessageFormat): {name},
# {name:case}, {name, select|plural, key {text} ... other {text}}; any other braces are text.
ARGUMENT = re.compile(r"\{\s*(\w+)(?::(\w+))?\s*\}")
CHOICE = re.compile(r"\{\s*(\w+)\s*,\s*(select|plural)\s*,")
BRANCH = re.compile(r"\s*(=\d+|\w+)\s*\{")
CASE_KEY = re.compile(r"^(.+):([a-z]+)$")  # "colour.count.red:acc": a case of "colour.count.red"


def parsed(text: str, at: int = 0, in_branch: bool = False) -> tuple[list[Any], int]:
    """The parts of `text` from `at` to an unmatched "}" inside a branch (or its end): strings and argument dicts."""
    parts: list[Any] = []
    while at < len(text):
        if text[at] == "}" and in_branch:
            break
        if text[at] == "{" and (found := argument(text, at)):
            parts.append(found[0])
            at = found[1]
            continue
        parts.append(text[at])
        at += 1
    return parts, at


def argument(text: str, at: int) -> tuple[dict[str, Any], int] | None:
    if simple := ARGUMENT.match(text, at):
        return {"name": simple[1], "case": simple[2]}, simple.end()
    choice = CHOICE.match(text, at)
    if not choice:
        return None
    node: dict[str, Any] = {"name": choice[1], "type": choice[2], "branches": {}}
    at = choice.end()
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at < len(text) and text[at] == "}":
            return (node, at + 1) if node["branches"] else None
        branch = BRANCH.match(text, at)
        if not branch:
            return None
        parts, end = parsed(text, branch.end(), in_branch=True)
        if end >= len(text) or text[end] != "}":
            return None
        node["branches"][branch[1]] = parts
        at = end + 1


def arguments(text: str) -> set[str]:
    """The names a message's arguments take (a choice's own and those in its branches)."""
    names: set[str] = set()

    def walk(parts: list[Any]) -> None:
        for part in parts:
            if isinstance(part, dict):
                names.add(part["name"])
                for branch in part.get("branches", {}).values():
                    walk(branch)

    walk(parsed(text)[0])
    return names


def choices(text: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []

    def walk(parts: list[Any]) -> None:
        for part in parts:
            if isinstance(part, dict) and "branches" in part:
                found.append(part)
                for branch in part["branches"].values():
                    walk(branch)

    walk(parsed(text)[0])
    return found


def forms_of(value: Any) -> list[str]:
    return list(value.values()) if isinstance(value, dict) else [value]


def test_every_catalogue_has_exactly_the_keys_of_english() -> None:
    """Besides English's keys, a language may hold a case of one of them ("colour.count.red:acc", the counted
    colour as the object of a verb or after "za"), where its case differs from the entry's own."""
    english = catalogue("en")
    for language in LANGUAGES[1:]:
        words = catalogue(language)
        cases = {key for key in words if CASE_KEY.match(key)}
        assert sorted(english.keys() - words.keys()) == [], f"{language}.json lacks these keys"
        assert sorted(words.keys() - english.keys() - cases) == [], f"{language}.json has keys en.json lacks"
        for key in cases:
            base = CASE_KEY.match(key)[1]  # type: ignore[index]
            assert base in english, f"{language}: {key} is the case of no key"
            assert type(words[key]) is type(english[base]), f"{language}: {key} is not shaped as {base}"
    assert not [key for key in catalogue("en") if CASE_KEY.match(key)], "English has no cases of its own"


def test_every_message_reads_as_the_client_reads_it() -> None:
    """A choice has an "other" branch (a value the catalogue does not name still reads), a select chooses by the
    values the client sends (a bot's level), and a {name:case} names a case some catalogue holds."""
    cases = {CASE_KEY.match(key)[2] for language in LANGUAGES for key in catalogue(language) if CASE_KEY.match(key)}  # type: ignore[index]
    for language in LANGUAGES:
        for key, value in catalogue(language).items():
            for text in forms_of(value):
                for choice in choices(text):
                    assert "other" in choice["branches"], f"{language}: {key}: a {choice['type']} with no other"
                    if choice["type"] == "select" and choice["name"] in ("level", "bot"):
                        assert set(choice["branches"]) == {"random", "greedy", "strong", "other"}, f"{language}: {key}"
                asked = re.findall(r"\{\s*\w+:(\w+)\s*\}", text)
                assert set(asked) <= cases, f"{language}: {key} asks for a case no catalogue has: {asked}"


# A key the client names: a quoted literal ("chat.send", "cards"), or the fixed part of one it builds (`rule.${id}`).
KEY_LITERAL = re.compile(r"""["'`]([a-z_]+(?:\.[A-Za-z0-9_\-]+)*)["'`]""")
KEY_PREFIX = re.compile(r"`([a-z_]+(?:\.[a-z_]+)*\.)\$\{")


def test_every_key_of_the_catalogues_is_used_by_the_client() -> None:
    """No word kept that nothing shows: each key is named by a client module, or starts with a prefix the client
    completes at run time (its catalogue then holds one key per value: every rule ID, every colour)."""
    pages = [*ROOT.glob("frontend/*.js"), ROOT / "frontend/index.html"]
    source = "\n".join(path.read_text(encoding="utf-8") for path in pages)
    named = set(KEY_LITERAL.findall(source)) | set(re.findall(r'data-i18n="([^"]+)"', source))
    prefixes = tuple(set(KEY_PREFIX.findall(source)))
    unused = sorted(key for key in catalogue("en") if key not in named and not key.startswith(prefixes))
    # A case of a key ("colour.count.red:acc") is read by catalogue.js's counted() when a message asks for it.
    assert not unused, f"keys no client module uses: {unused}"


def test_every_rule_of_the_rule_digest_is_explained_in_every_language() -> None:
    ids = rule_ids()
    assert len(ids) == 46 and len(set(ids)) == len(ids)
    english = catalogue("en")
    for language in LANGUAGES:
        words = catalogue(language)
        assert [rule for rule in ids if not str(words.get(f"rule.{rule}", "")).strip()] == [], language
        assert sorted({key for key in words if key.startswith("rule.")} - {f"rule.{rule}" for rule in ids}) == [], language
        if language != "en":  # written in the language, not English copied over
            assert [rule for rule in ids if words[f"rule.{rule}"] == english[f"rule.{rule}"]] == [], language


def test_the_header_chat_and_turn_words_are_there() -> None:
    for language in LANGUAGES:
        words = catalogue(language)
        for key in [*CHAT_KEYS, "turn.yours", "turn.theirs", "nav.sign_in", "nav.language", *PLURAL_KEYS]:
            assert key in words, f"{language}: {key}"
        assert "{name}" in words["turn.theirs"], language
    english = catalogue("en")
    assert [english[key] for key in CHAT_KEYS[:4]] == ["Good luck", "Well played", "Sorry", "Thinking…"]
    assert (english["turn.yours"], english["turn.theirs"]) == ("Your turn", "{name}'s turn")


def test_plural_entries_have_exactly_the_categories_of_each_language() -> None:
    plurals = [key for key, value in catalogue("en").items() if isinstance(value, dict)]
    assert set(PLURAL_KEYS) <= set(plurals)
    for language in LANGUAGES:
        words = catalogue(language)
        for key in plurals:
            assert isinstance(words[key], dict), f"{language}: {key} is not a plural entry"
            assert set(words[key]) == PLURAL_CATEGORIES[language], f"{language}: {key} has {sorted(words[key])}"
            assert all("{count}" in form for form in words[key].values()), f"{language}: {key}"
        cases = [key for key in words if CASE_KEY.match(key) and isinstance(words[key], dict)]
        for key in cases:
            assert set(words[key]) == PLURAL_CATEGORIES[language], f"{language}: {key} has {sorted(words[key])}"
        others = [key for key, value in words.items() if isinstance(value, dict) and key not in plurals + cases]
        assert others == [], language


def test_every_translation_fills_the_placeholders_english_has() -> None:
    english = catalogue("en")
    for language in LANGUAGES[1:]:
        words = catalogue(language)
        for key, value in words.items():
            base = CASE_KEY.match(key)[1] if CASE_KEY.match(key) else key  # type: ignore[index]
            wanted = set().union(*(arguments(form) for form in forms_of(english[base])))
            for form in forms_of(value):
                assert isinstance(form, str) and form.strip(), f"{language}: {key}"
                assert arguments(form) == wanted, f"{language}: {key}: {form!r}"


# The e-mails' catalogues


def compiler() -> Any:
    spec = importlib.util.spec_from_file_location("compile_messages", ROOT / "scripts" / "compile_messages.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def po_files() -> list[Path]:
    return sorted(ROOT.glob("locale/*/LC_MESSAGES/django.po"))


def test_the_mail_catalogues_compile_with_the_standard_library_alone(tmp_path: Path) -> None:
    compile_messages = compiler()
    assert sorted(path.parts[-3] for path in po_files()) == sorted(LANGUAGES[1:])
    keys = None
    for path in po_files():
        copy = tmp_path / path.parts[-3] / "django.po"
        copy.parent.mkdir()
        copy.write_bytes(path.read_bytes())
        with compile_messages.compile_po(copy).open("rb") as mo:
            read = gettext.GNUTranslations(mo)
        messages = compile_messages.read_po(path)
        assert keys is None or set(messages) == keys, f"{path}: not the msgids of the others"
        keys = set(messages)
        assert all(value for value in messages.values()), f"{path}: an untranslated entry"
        assert read.pgettext("map", "Europe") != "Europe", path
    cs = tmp_path / "cs" / "django.mo"
    with cs.open("rb") as mo:
        czech = gettext.GNUTranslations(mo)
    hours = "Your clock in your %(map)s game runs out in about %(hours)s hour."
    plural = "Your clock in your %(map)s game runs out in about %(hours)s hours."
    said = [czech.ngettext(hours, plural, n) % {"map": "Evropa", "hours": n} for n in (1, 3, 5)]
    assert [text.rsplit(" ", 1)[1] for text in said] == ["hodinu.", "hodiny.", "hodin."]


@pytest.fixture
def compiled(settings: Any) -> None:
    """The .mo files built (as `make messages` does) and Django's translations read again (a catalogue loaded
    before they existed would be empty)."""
    compile_messages = compiler()
    for path in po_files():
        compile_messages.compile_po(path)
    settings.LOCALE_PATHS = [ROOT / "locale"]  # a changed setting drops the loaded catalogues (Django's signal)


def account_of(username: str, *, language: str, email: str = "", pending: str = "") -> int:
    user = get_user_model().objects.get(username=username)
    Account.objects.update_or_create(user=user, defaults={"language": language, "email": email, "email_pending": pending})
    return int(user.pk)


@pytest.mark.django_db
def test_the_confirmation_mail_is_in_the_accounts_language_else_english(compiled: None, mailoutbox: list[Any]) -> None:
    register("ada")
    register("bob")
    ada = account_of("ada", language="cs", pending="ada@example.org")
    bob = account_of("bob", language="", pending="bob@example.org")
    assert mail.send_confirmation(ada, address="ada@example.org")
    assert mail.send_confirmation(bob, address="bob@example.org")
    czech, english = mailoutbox
    assert czech.subject == "Ticket to Ride: potvrďte svou e-mailovou adresu"
    assert czech.body.startswith("Dobrý den,\n\nchcete-li dostávat oznámení Ticket to Ride na tuto adresu, otevřete")
    assert " do 7 dnů tento odkaz:\n\n" in czech.body
    assert "/confirm-email?token=" in czech.body and czech.body.endswith("na tuto adresu nebude nic posíláno.\n")
    assert english.subject == "Ticket to Ride: confirm your e-mail address"
    assert english.body.startswith(
        "Hello,\n\nto receive Ticket to Ride's notifications at this address, open this link within 7 days:\n\n"
    )
    assert english.body.endswith("\n\nIf you did not ask for this, ignore this mail: nothing will be sent here.\n")


@pytest.mark.django_db
def test_a_notification_mail_to_a_czech_account_comes_out_in_czech(compiled: None, mailoutbox: list[Any]) -> None:
    client = register("ada")
    game = create_game(client)["id"]
    user = account_of("ada", language="cs", email="ada@example.org")
    inbox.send(user, "your_turn", "t1", "Europe: it is your turn.", game)

    assert mail.send_pending() == 1
    [message] = mailoutbox
    assert message.subject == "Ticket to Ride: Ve vaší hře Evropa jste na tahu."
    lines = message.body.splitlines()
    assert lines[0] == "- Ve vaší hře Evropa jste na tahu."
    assert lines[2].startswith("Otevřít hru: ") and lines[2].endswith(f"/games/{game}")
    assert lines[4] == "Takové e-maily už nechci dostávat:"
    assert lines[5].startswith("  jste na tahu: ") and "/unsubscribe?token=" in lines[5]
    assert [words for words in ("Open the game", "No more mails", "your turn", "Europe") if words in message.body] == []


@pytest.mark.django_db
def test_numbers_in_czech_mails_take_their_plural_form(compiled: None, mailoutbox: list[Any]) -> None:
    client = register("ada")
    game = create_game(client)["id"]
    user = account_of("ada", language="cs", email="ada@example.org")
    now = timezone.now()
    ended = {"place": 2, "points": 3, "rating_before": 12.04, "rating_after": 10.5}
    inbox.send(user, "game_ended", "e", "Your Europe game is over: 2nd of 2 with 3 points.", game, **ended)
    inbox.send(user, "clock_running_out", "c", "Your clock runs out in about 5 hours.", game,
               deadline=(now + timedelta(hours=5)).isoformat())
    inbox.send(user, "invitation", "i", "bob invites you to a 2-player Europe game.", game, by="bob", token="x")

    assert mail.send_pending() == 1
    [message] = mailoutbox
    assert message.subject == "Ticket to Ride: 3 oznámení ve vaší hře Evropa"
    assert message.body.splitlines()[:3] == [
        "- Vaše hra Evropa skončila: 2. místo z 2 s 3 body. Hodnocení 12,0 → 10,5.",
        "- Ve vaší hře Evropa vám dojde čas zhruba za 5 hodin.",
        "- bob vás zve do hry Evropa pro 2 hráče.",
    ]


@pytest.mark.django_db
@pytest.mark.parametrize("language", LANGUAGES[1:])
def test_every_kind_of_notification_is_told_in_every_language(compiled: None, language: str) -> None:
    register("ada")
    user = account_of("ada", language=language)
    data: dict[str, dict[str, Any]] = {
        "invitation": {"by": "bob"}, "rematch_offered": {"by": "bob"},
        "game_ended": {"place": 1, "points": 41, "rating_before": 1.5, "rating_after": 3.25},
        "clock_running_out": {"deadline": (timezone.now() + timedelta(hours=2)).isoformat()},
    }
    for kind in NOTIFICATION_KINDS:
        for given in (data.get(kind, {}), {}):  # with its details, and without (older rows, or a detail left out)
            row = Notification(user_id=user, kind=kind, text="ENGLISH TEXT", at=timezone.now(), data=given, key=kind)
            with translation.override("en"):
                english = mail._said(row, ("usa", 3))
            with translation.override(language):
                said = mail._said(row, ("usa", 3))
            assert english == "ENGLISH TEXT"
            assert said and "ENGLISH" not in said and "%(" not in said and "{" not in said, (kind, said)


def test_the_mails_language_is_the_accounts_when_the_site_has_it() -> None:
    assert mail.language_of(Account(language="hu")) == "hu"
    assert [mail.language_of(Account(language=code)) for code in ("", "de", "en")] == ["en", "en", "en"]
    assert mail.language_of(None) == "en"
