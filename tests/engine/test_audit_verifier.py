"""The offline verifier of the monthly dumps (games/audit, docs/AUDIT.md): its Ed25519 against RFC 8032's vectors
and the `cryptography` package's signatures, its Plackett-Luce update against openskill's, and
`python -m games.audit verify-dump` on dumps of real engine-played games (bench/verify_dump.py writes them as
docs/AUDIT.md says, signed with a `cryptography` key, rated with openskill): a true dump of two months verifies,
and each single change of one is found and named."""

from __future__ import annotations

import base64
import copy
import gzip
import json
import random
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from hypothesis import given, settings
from hypothesis import strategies as st
from openskill.models import PlackettLuce

from bench.verify_dump import Site, canonical, write_month
from games.audit import ed25519
from games.audit.__main__ import main
from games.audit.game_line import RatingStep
from games.audit.rating_chain import RatingChain
from games.audit.ratings import RATING_MU, RATING_SIGMA, Entry, plackett_luce, rated
from tests.engine.test_simulate import run_bare

ROOT = Path(__file__).resolve().parents[2]

# ---------------------------------------------------------------------------------------------------------
# Ed25519


# RFC 8032, 7.1, TEST 1 to 3: (public key, message, signature).
RFC_8032 = [
    (
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
        "",
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    ),
    (
        "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
        "72",
        "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
    ),
    (
        "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
        "af82",
        "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
    ),
]
L = 2**252 + 27742317777372353535851937790883648493


def raw_public(key: Ed25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def flipped(data: bytes, bit: int) -> bytes:
    changed = bytearray(data)
    changed[bit // 8 % len(data)] ^= 1 << (bit % 8)
    return bytes(changed)


@pytest.mark.parametrize(("public", "message", "signature"), RFC_8032)
def test_ed25519_accepts_rfc_8032s_test_vectors_and_refuses_them_changed(public: str, message: str, signature: str) -> None:
    key, text, signed = bytes.fromhex(public), bytes.fromhex(message), bytes.fromhex(signature)
    assert ed25519.verify(key, text, signed)
    assert not ed25519.verify(key, text + b"\x00", signed)
    assert not ed25519.verify(key, text, flipped(signed, 7))
    assert not ed25519.verify(flipped(key, 9), text, signed)


@settings(max_examples=25)
@given(seed=st.binary(min_size=32, max_size=32), message=st.binary(max_size=200), bit=st.integers(0, 1 << 16))
def test_ed25519_agrees_with_cryptography_on_its_signatures_and_on_any_flipped_bit(
    seed: bytes, message: bytes, bit: int
) -> None:
    key = Ed25519PrivateKey.from_private_bytes(seed)
    public, signature = raw_public(key), key.sign(message)
    assert ed25519.verify(public, message, signature)
    assert not ed25519.verify(public, flipped(message, bit) if message else b"\x00", signature)
    assert not ed25519.verify(public, message, flipped(signature, bit % 512))
    assert not ed25519.verify(flipped(public, bit % 256), message, signature)


def test_ed25519_refuses_a_non_canonical_s_a_key_off_the_field_and_wrong_sizes() -> None:
    key = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
    public, signature = raw_public(key), key.sign(b"ttr")
    s = int.from_bytes(signature[32:], "little")
    malleable = signature[:32] + (s + L).to_bytes(32, "little")  # the same point, S not reduced: must be refused
    assert not ed25519.verify(public, b"ttr", malleable)
    off_field = (2**255 - 19 + 1).to_bytes(32, "little")  # y = p + 1, not below p
    assert not ed25519.verify(off_field, b"ttr", signature)
    assert not ed25519.verify(public[:31], b"ttr", signature)
    assert not ed25519.verify(public, b"ttr", signature[:63])


# ---------------------------------------------------------------------------------------------------------
# Ratings

MODEL = PlackettLuce(mu=25.0, sigma=25.0 / 3)
priors = st.tuples(st.floats(-20, 70), st.floats(0.05, 12))


@settings(max_examples=300)
@given(data=st.data(), players=st.integers(2, 5))
def test_plackett_luce_is_openskills_to_1e_9_on_random_matches_with_ties(data: st.DataObject, players: int) -> None:
    ratings = data.draw(st.lists(priors, min_size=players, max_size=players))
    ranks = data.draw(st.lists(st.integers(1, players), min_size=players, max_size=players))
    ours = plackett_luce(ratings, ranks)
    theirs = MODEL.rate([[MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in ratings], ranks=list(ranks))
    for (mu, sigma), (result,) in zip(ours, theirs, strict=True):
        assert abs(mu - result.mu) <= 1e-9 and abs(sigma - result.sigma) <= 1e-9


def server_rated(accounts: dict[int, tuple[float, float]], seats: list[tuple[int, int]]) -> dict[int, tuple[float, float]]:
    """games/play/ratings.py's `rated`, with openskill: a team of one per seat (seat order), an account of several
    seats the mean of its seats' results."""
    teams = [[MODEL.rating(mu=accounts[user][0], sigma=accounts[user][1])] for user, _ in seats]
    results = MODEL.rate(teams, ranks=[place for _, place in seats])
    mine: dict[int, list[Any]] = {}
    for (user, _), (result,) in zip(seats, results, strict=True):
        mine.setdefault(user, []).append(result)
    return {u: (sum(r.mu for r in rs) / len(rs), sum(r.sigma for r in rs) / len(rs)) for u, rs in mine.items()}


@settings(max_examples=200)
@given(data=st.data(), players=st.integers(2, 5))
def test_rated_is_the_servers_for_accounts_of_several_seats(data: st.DataObject, players: int) -> None:
    holders = data.draw(st.lists(st.integers(1, 3), min_size=players, max_size=players))
    accounts = {user: data.draw(priors) for user in sorted(set(holders))}
    places = data.draw(st.lists(st.integers(1, players), min_size=players, max_size=players))
    seats = list(zip(holders, places, strict=True))
    entries = [Entry(seat, user, place) for seat, (user, place) in enumerate(seats)]
    expected = server_rated(accounts, seats)
    got = rated(accounts, reversed(entries))  # (any order: they are put in seat order)
    assert got.keys() == expected.keys()
    for user, (mu, sigma) in got.items():
        assert abs(mu - expected[user][0]) <= 1e-9 and abs(sigma - expected[user][1]) <= 1e-9


def test_the_site_defaults_and_its_own_rated_agree() -> None:
    """Against games/play/ratings.py itself, where Django is configured (it imports the site's models)."""
    try:
        from games.play import ratings as site
        from games.play.models import RATING_MU as SITE_MU
        from games.play.models import RATING_SIGMA as SITE_SIGMA
    except Exception as error:  # an engine-only run (-p no:django)
        pytest.skip(f"Django is not configured: {error}")
    assert (RATING_MU, RATING_SIGMA) == (SITE_MU, SITE_SIGMA)
    rng = random.Random(3)
    for _ in range(200):
        players = rng.randint(2, 5)
        holders = [rng.randint(1, 3) for _ in range(players)]
        accounts = {u: (rng.uniform(0, 50), rng.uniform(0.1, 9)) for u in set(holders)}
        places = [rng.randint(1, players) for _ in range(players)]
        ours = rated(accounts, [Entry(s, u, p) for s, (u, p) in enumerate(zip(holders, places, strict=True))])
        theirs = site.rated(accounts, [site.Entry(s, u, p) for s, (u, p) in enumerate(zip(holders, places, strict=True))])
        assert ours == theirs  # to the last bit


def change(order: int, before: float, after: float) -> RatingStep:
    return RatingStep(order, 1, "europe", before, 2.0, after, 2.0)


def test_the_rating_chain_links_changes_in_rating_order_within_its_window_and_says_when_one_comes_too_late() -> None:
    chain = RatingChain(window=3)
    found = chain.add("m", "b", [change(2, 11.0, 12.0)]) + chain.add("m", "a", [change(1, 10.0, 11.0)])
    found += chain.add("m", "c", [change(3, 12.0, 13.0)]) + chain.finish()
    assert found == [] and chain.linked == 2  # a finished before b, but b was rated first: linked in rating order
    chain = RatingChain(window=3)
    found = chain.add("m", "a", [change(1, 10.0, 11.0)]) + chain.add("m", "b", [change(2, 10.5, 12.0)]) + chain.finish()
    assert [str(p) for p in found] == [
        "m game b: ratings: account 1's (mu, sigma) before on europe is (10.5, 2.0), its after in its previous game a "
        "(m, order 1) is (11.0, 2.0)"
    ]
    chain = RatingChain(window=1)
    found = chain.add("m", "b", [change(2, 11.0, 12.0)]) + chain.add("m", "c", [change(3, 12.0, 13.0)])
    found += chain.add("m", "a", [change(1, 10.0, 11.0)]) + chain.finish()
    assert len(found) == 1 and "comes more than 1 changes after its later change (order 2, game b)" in str(found[0])


# ---------------------------------------------------------------------------------------------------------
# Dumps of real games

OCTOBER, NOVEMBER = "2026-10", "2026-11"


def at(month: str, day: int) -> datetime:
    year, number = map(int, month.split("-"))
    return datetime(year, number, day, 12, tzinfo=UTC)


@pytest.fixture(scope="module")
def site_games() -> tuple[Site, dict[str, list[dict[str, Any]]], dict[str, Any]]:
    """Two months of real games: ranked ones whose accounts play again (so their ratings chain), one account
    holding two seats, a seat whose player resigned, an unranked game; and one more game in no manifest."""
    rng, site = random.Random(7), Site()
    october = [
        site.game_line(rng, at(OCTOBER, 3), [1, 2]),
        site.game_line(rng, at(OCTOBER, 9), [1, 3, 3]),
        site.game_line(rng, at(OCTOBER, 20), [2, 3], ranked=False),
    ]
    november = [
        site.game_line(rng, at(NOVEMBER, 2), [2, 1, 4], resign=1),
        site.game_line(rng, at(NOVEMBER, 5), [1, 2]),
        site.game_line(rng, at(NOVEMBER, 17), [3, 1]),
    ]
    extra = site.game_line(rng, at(NOVEMBER, 11), [4, 2], ranked=False)
    return site, {OCTOBER: october, NOVEMBER: november}, extra


Lines = dict[str, list[dict[str, Any]]]


def written(directory: Path, site: Site, lines: Lines) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    previous = None
    for month in (OCTOBER, NOVEMBER):
        previous = write_month(directory, site, month, lines[month], previous=previous)
    return directory


@pytest.fixture
def dumps(tmp_path: Path, site_games: tuple[Site, Lines, dict[str, Any]]) -> Path:
    site, lines, _ = site_games
    return written(tmp_path / "dumps", site, lines)


def verify(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str]:
    code = main(["verify-dump", *map(str, args)])
    return code, capsys.readouterr().out


def gz(directory: Path, month: str) -> Path:
    return directory / f"games-{month}.jsonl.gz"


def manifest_of(directory: Path, month: str) -> Path:
    return directory / f"games-{month}.manifest.json"


def repacked(path: Path, change: Callable[[list[bytes]], list[bytes]]) -> None:
    """The file's lines changed and compressed again (a readable file; its manifest left as it was)."""
    with gzip.open(path, "rb") as file:
        lines = file.read().splitlines(keepends=True)
    path.write_bytes(gzip.compress(b"".join(change(lines)), mtime=0))


def game_id(line: dict[str, Any]) -> str:
    return str(line["game"]["id"])


def test_a_true_dump_of_two_months_verifies(capsys: pytest.CaptureFixture[str], dumps: Path) -> None:
    code, out = verify(capsys, dumps)
    assert code == 0, out
    assert f"{OCTOBER}: 3 games" in out and f"{NOVEMBER}: 3 games" in out
    assert "verified 2 months, 6 games" in out and out.rstrip().endswith("all holds")


def test_the_command_runs_on_the_bare_standard_library(dumps: Path) -> None:
    """`python3 -S` with nothing in the environment but PATH: no package of the virtualenv is there to import."""
    if run_bare("-c", "import sys; print(sys.version_info >= (3, 11))").stdout.strip() != "True":
        pytest.skip("the system python3 is older than the 3.11 the project requires")
    done = run_bare("-m", "games.audit", "verify-dump", str(dumps), "--quiet")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "verified 2 months, 6 games" in done.stdout


def test_one_byte_changed_in_a_game_line_is_found_in_that_game(
    capsys: pytest.CaptureFixture[str], dumps: Path, site_games: tuple[Site, Lines, dict[str, Any]]
) -> None:
    target = site_games[1][NOVEMBER][1]

    def one_byte(lines: list[bytes]) -> list[bytes]:
        index = next(i for i, line in enumerate(lines) if game_id(target).encode() in line)
        where = lines[index].index(b'"route_claimed"')  # a claim's points: `"points":N`
        at = lines[index].index(b'"points":', where) + len(b'"points":')
        digit = lines[index][at : at + 1]
        lines[index] = lines[index][:at] + (b"9" if digit != b"9" else b"8") + lines[index][at + 1 :]
        return lines

    repacked(gz(dumps, NOVEMBER), one_byte)
    code, out = verify(capsys, dumps)
    assert code == 1, out
    assert f"{NOVEMBER}: file games-{NOVEMBER}.jsonl.gz" in out and "not the one signed" in out
    assert f"{NOVEMBER} game {game_id(target)}: line" in out and "the hash does not match the line" in out


def test_one_byte_changed_in_the_compressed_file_is_found(capsys: pytest.CaptureFixture[str], dumps: Path) -> None:
    path = gz(dumps, OCTOBER)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x20
    path.write_bytes(bytes(data))
    code, out = verify(capsys, dumps)
    assert code == 1, out
    assert f"{OCTOBER}: file games-{OCTOBER}.jsonl.gz" in out and "not the one signed" in out


def test_a_game_dropped_from_the_file_is_named(
    capsys: pytest.CaptureFixture[str], dumps: Path, site_games: tuple[Site, Lines, dict[str, Any]]
) -> None:
    dropped = site_games[1][OCTOBER][1]
    repacked(gz(dumps, OCTOBER), lambda lines: [line for line in lines if game_id(dropped).encode() not in line])
    code, out = verify(capsys, dumps)
    assert code == 1, out
    assert f"{OCTOBER} game {game_id(dropped)}: in the manifest, not in the file" in out
    assert f"{OCTOBER}: the file holds 2 games, the manifest lists 3" in out


def test_a_game_added_to_the_file_is_named(
    capsys: pytest.CaptureFixture[str], dumps: Path, site_games: tuple[Site, Lines, dict[str, Any]]
) -> None:
    extra = site_games[2]
    added = json.dumps(extra, separators=(",", ":")).encode() + b"\n"
    repacked(gz(dumps, NOVEMBER), lambda lines: [lines[0], added, *lines[1:]])
    code, out = verify(capsys, dumps)
    assert code == 1, out
    assert f"{NOVEMBER} game {game_id(extra)}: in the file, not in the manifest" in out


def test_the_months_files_swapped_are_found(capsys: pytest.CaptureFixture[str], dumps: Path) -> None:
    october, november = gz(dumps, OCTOBER), gz(dumps, NOVEMBER)
    october.rename(dumps / "swap")
    november.rename(october)
    (dumps / "swap").rename(november)
    code, out = verify(capsys, dumps)
    assert code == 1, out
    assert f"{OCTOBER}: file games-{OCTOBER}.jsonl.gz" in out and f"{NOVEMBER}: file games-{NOVEMBER}.jsonl.gz" in out
    assert "in the file, not in the manifest" in out and f"outside {OCTOBER}" in out


def edited_manifest(path: Path, change: Callable[[dict[str, Any]], None]) -> None:
    manifest = json.loads(path.read_bytes())
    change(manifest)
    path.write_bytes(canonical(manifest) + b"\n")


def test_an_edited_manifest_fails_its_signature(capsys: pytest.CaptureFixture[str], dumps: Path) -> None:
    edited_manifest(manifest_of(dumps, NOVEMBER), lambda m: m.update(signed_at="2026-12-02T00:00:00Z"))
    code, out = verify(capsys, dumps)
    assert code == 1, out
    assert f"{NOVEMBER}: manifest: the signature does not verify under key k2026" in out
    assert f"{OCTOBER}: 3 games" in out and f"{OCTOBER}: 3 games, 0" not in out


def test_a_previous_manifest_replaced_breaks_the_chain(
    capsys: pytest.CaptureFixture[str], dumps: Path, site_games: tuple[Site, Lines, dict[str, Any]]
) -> None:
    site, lines, _ = site_games
    write_month(dumps, site, OCTOBER, lines[OCTOBER], previous=None, signed_at="2026-11-03T00:00:00Z")  # re-signed
    code, out = verify(capsys, dumps)
    assert code == 1, out
    assert f"{NOVEMBER}: chain broken: games-{OCTOBER}.manifest.json has SHA-256" in out
    assert "1 problem" in out  # the new October manifest holds on its own


def test_the_chain_may_start_at_a_month_named_and_not_elsewhere(capsys: pytest.CaptureFixture[str], dumps: Path) -> None:
    assert verify(capsys, gz(dumps, NOVEMBER))[0] == 0  # October's manifest beside it: the link is checked
    manifest_of(dumps, OCTOBER).unlink()
    gz(dumps, OCTOBER).unlink()
    code, out = verify(capsys, gz(dumps, NOVEMBER))
    assert code == 1 and f"the previous manifest games-{OCTOBER}.manifest.json is not beside this one" in out
    assert verify(capsys, gz(dumps, NOVEMBER), "--from-month", NOVEMBER)[0] == 0


def checkpoint_changed(lines: Lines) -> str:
    line = lines[OCTOBER][0]
    other = Ed25519PrivateKey.generate().sign(b"something else")
    signature = base64.b64encode(other).decode()
    line["checkpoint"]["signature"] = signature
    line["audit"][-1]["checkpoint"]["signature"] = signature
    return game_id(line)


def seeds_changed(lines: Lines) -> str:
    line = lines[NOVEMBER][2]
    line["seeds"]["server_seed"] = "00" * 32
    return game_id(line)


def place_changed(lines: Lines) -> str:
    line = lines[OCTOBER][0]
    first, second = line["ratings"]
    first["seat_places"], second["seat_places"] = (
        {seat: 3 - place for seat, place in first["seat_places"].items()},
        {seat: 3 - place for seat, place in second["seat_places"].items()},
    )
    return game_id(line)


@pytest.mark.parametrize(
    ("change", "found"),
    [
        (checkpoint_changed, "checkpoint: the signature does not verify under key k2026"),
        (seeds_changed, "seeds: server_seed is '" + "00" * 32),
        (place_changed, "ratings: seat 0 (account 1) is placed"),
    ],
)
def test_a_lie_in_a_game_line_of_a_consistently_signed_dump_is_found_in_that_game(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, site_games: tuple[Site, Lines, dict[str, Any]],
    change: Callable[[Lines], str], found: str,
) -> None:
    """Each dump re-signed whole over the changed line: only the line's own checks can find the change."""
    lines = copy.deepcopy(site_games[1])
    game = change(lines)
    directory = written(tmp_path / "dumps", site_games[0], lines)
    code, out = verify(capsys, directory)
    assert code == 1, out
    assert any(f"game {game}: " in line and found in line for line in out.splitlines()), out


def test_a_rating_after_changed_also_breaks_the_accounts_chain_in_the_next_game(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, site_games: tuple[Site, Lines, dict[str, Any]]
) -> None:
    lines = copy.deepcopy(site_games[1])
    line = lines[NOVEMBER][1]
    change = line["ratings"][0]
    change["mu_after"] += 0.5
    following = lines[NOVEMBER][2]
    assert any(c["user"] == change["user"] for c in following["ratings"])  # the account plays again that month
    code, out = verify(capsys, written(tmp_path / "dumps", site_games[0], lines))
    assert code == 1, out
    assert f"game {game_id(line)}: ratings: account {change['user']}'s (mu, sigma) after" in out
    assert f"game {game_id(following)}: ratings: account {change['user']}'s (mu, sigma) before on europe" in out


def test_a_ranked_game_left_out_of_the_dumps_lets_its_accounts_next_befores_be_taken_as_given(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, site_games: tuple[Site, Lines, dict[str, Any]]
) -> None:
    """As a ranked private game is (docs/AUDIT.md): its rating changes' orders are missing from the dumps."""
    lines = copy.deepcopy(site_games[1])
    left_out = lines[OCTOBER].pop(1)
    assert left_out["ratings"]
    code, out = verify(capsys, written(tmp_path / "dumps", site_games[0], lines))
    assert code == 0, out
    assert "of them taken as given, a change not in the dumps (a private game's) between" in out


def test_files_that_cannot_be_read_exit_2(capsys: pytest.CaptureFixture[str], dumps: Path, tmp_path: Path) -> None:
    assert verify(capsys, tmp_path / "nowhere")[0] == 2
    keys = dumps / "keys.json"
    keys.rename(dumps / "keys.moved")
    code, out = verify(capsys, dumps)
    assert code == 2 and "keys.json" in out
    assert verify(capsys, dumps, "--keys", dumps / "keys.moved")[0] == 0
    manifest = manifest_of(dumps, OCTOBER)
    manifest.write_bytes(manifest.read_bytes()[:100])
    code, out = verify(capsys, dumps, "--keys", dumps / "keys.moved")
    assert code == 2 and f"games-{OCTOBER}.manifest.json: not JSON" in out


def problems_of(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("  ")]


def test_two_jobs_find_what_one_finds(
    capsys: pytest.CaptureFixture[str], dumps: Path, site_games: tuple[Site, Lines, dict[str, Any]]
) -> None:
    one, two = verify(capsys, dumps), verify(capsys, dumps, "--jobs", "2")
    assert one[0] == two[0] == 0
    dropped = site_games[1][NOVEMBER][0]
    repacked(gz(dumps, NOVEMBER), lambda lines: [line for line in lines if game_id(dropped).encode() not in line])
    one, two = verify(capsys, dumps, "--jobs", "1"), verify(capsys, dumps, "--jobs", "2")
    assert one[0] == two[0] == 1
    assert problems_of(one[1]) == problems_of(two[1]) and problems_of(one[1])


def test_the_module_runs_as_a_command(dumps: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "games.audit", "verify-dump", str(dumps), "--jobs", "2"], cwd=ROOT, capture_output=True,
        text=True, timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "verified 2 months, 6 games" in done.stdout
