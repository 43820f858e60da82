"""The seat colours of frontend/colours.js stay apart, from each other and from every card colour, for normal sight
and under simulated deuteranopia, protanopia and tritanopia (issue #33: "Whose route is it?").

The colours are read from colours.js itself. Each is simulated with the matrices of Machado, Oliveira and Fernandes
(2009), "A physiologically-based model for simulation of color vision deficiency", at severity 1.0, applied in
linear RGB (as Chromium's emulation of vision deficiencies does), clipped to the gamut, then compared in CIELAB
(D65) by CIEDE2000 (Sharma, Wu and Dalal 2005, whose test pairs check the formula here). The thresholds are the ones
colours.js states: every two seats >= 18, every seat and every card colour >= 12; every two seats 8 apart in
lightness (told apart with no hue: achromatopsia); and the shape of the palette (lightness, at most one dark seat,
chroma) that keeps a claimed route from reading as an empty space, a black route or a grey one."""

from __future__ import annotations

import itertools
import math
import re
from pathlib import Path

import pytest

COLOURS_JS = Path(__file__).resolve().parents[2] / "frontend" / "colours.js"
SEATS_APART = 18.0  # CIEDE2000 between every two seat colours, under every vision below
FROM_CARDS = 12.0  # CIEDE2000 between every seat colour and every card colour, under every vision below
LIGHTNESS = (22.0, 72.0)  # L* of a seat colour (normal sight): never as pale as an empty space, never black
DARK = 38.0  # at most one seat darker than this L*
LIGHTER = 8.0  # L* between every two seats (normal sight): apart with no hue at all
CHROMA = 25.0  # a seat colour's C*ab: never grey

Lab = tuple[float, float, float]
Matrix = tuple[tuple[float, float, float], ...]
MACHADO: dict[str, Matrix | None] = {
    "normal": None,
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413), (-0.011820, 0.042940, 0.968881)),
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216), (-0.003882, -0.048116, 1.051998)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602), (0.004733, 0.691367, 0.303900)),
}


def hex_list(source: str, name: str) -> list[str]:
    found = re.search(rf"export const {name} = \[([^\]]*)\]", source)
    assert found, f"{name} not found in colours.js"
    return re.findall(r'"(#[0-9a-fA-F]{6})"', found.group(1))


def card_colours(source: str) -> dict[str, str]:
    """FILL's colours as cards and free routes show them; the locomotive is drawn as stripes of the others."""
    found = re.search(r"export const FILL = \{([^}]*)\}", source)
    assert found, "FILL not found in colours.js"
    fill = dict(re.findall(r'(\w+): "(#[0-9a-fA-F]{6})"', found.group(1)))
    fill.pop("locomotive")
    return fill


def linear(channel: float) -> float:
    return channel / 12.92 if channel <= 0.04045 else ((channel + 0.055) / 1.055) ** 2.4


def lab(colour: str, vision: str) -> Lab:
    """CIELAB (D65) of a #rrggbb colour as a person of this vision sees it."""
    rgb = [linear(int(colour[i : i + 2], 16) / 255) for i in (1, 3, 5)]
    matrix = MACHADO[vision]
    if matrix:
        rgb = [min(1.0, max(0.0, sum(row[j] * rgb[j] for j in range(3)))) for row in matrix]
    r, g, b = rgb
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def ciede2000(one: Lab, other: Lab) -> float:
    (l1, a1, b1), (l2, a2, b2) = one, other
    mean_c = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(mean_c**7 / (mean_c**7 + 25**7)))
    a1, a2 = a1 * (1 + g), a2 * (1 + g)
    c1, c2 = math.hypot(a1, b1), math.hypot(a2, b2)
    h1 = math.degrees(math.atan2(b1, a1)) % 360 if c1 else 0.0
    h2 = math.degrees(math.atan2(b2, a2)) % 360 if c2 else 0.0
    dh = 0.0 if c1 * c2 == 0 else (h2 - h1 + 180) % 360 - 180
    big_dh = 2 * math.sqrt(c1 * c2) * math.sin(math.radians(dh / 2))
    mean_l, mean_cp = (l1 + l2) / 2, (c1 + c2) / 2
    if c1 * c2 == 0:
        mean_h = h1 + h2
    elif abs(h1 - h2) <= 180:
        mean_h = (h1 + h2) / 2
    else:
        mean_h = (h1 + h2 + 360) / 2 if h1 + h2 < 360 else (h1 + h2 - 360) / 2
    t = (
        1
        - 0.17 * math.cos(math.radians(mean_h - 30))
        + 0.24 * math.cos(math.radians(2 * mean_h))
        + 0.32 * math.cos(math.radians(3 * mean_h + 6))
        - 0.20 * math.cos(math.radians(4 * mean_h - 63))
    )
    rotation = 30 * math.exp(-(((mean_h - 275) / 25) ** 2))
    rc = 2 * math.sqrt(mean_cp**7 / (mean_cp**7 + 25**7))
    sl = 1 + 0.015 * (mean_l - 50) ** 2 / math.sqrt(20 + (mean_l - 50) ** 2)
    sc, sh = 1 + 0.045 * mean_cp, 1 + 0.015 * mean_cp * t
    rt = -math.sin(math.radians(2 * rotation)) * rc
    dl, dc = (l2 - l1) / sl, (c2 - c1) / sc
    return math.sqrt(dl**2 + dc**2 + (big_dh / sh) ** 2 + rt * dc * (big_dh / sh))


SOURCE = COLOURS_JS.read_text(encoding="utf-8")
SEATS = hex_list(SOURCE, "SEAT_FILL")
CARDS = card_colours(SOURCE)


@pytest.mark.parametrize(
    ("one", "other", "expected"),
    [
        ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
        ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
        ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
        ((50.0, 2.5, 0.0), (61.0, -5.0, 29.0), 22.8977),
        ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
    ],
)
def test_the_colour_difference_is_ciede2000_as_its_authors_test_it(one: Lab, other: Lab, expected: float) -> None:
    assert ciede2000(one, other) == pytest.approx(expected, abs=1e-4)
    assert ciede2000(other, one) == pytest.approx(expected, abs=1e-4)


def test_colours_js_holds_five_seats_and_the_card_colours() -> None:
    assert len(SEATS) == 5 and len(set(SEATS)) == 5, SEATS
    assert set(CARDS) == {"purple", "blue", "orange", "white", "green", "yellow", "black", "red", "gray"}, CARDS


@pytest.mark.parametrize("vision", list(MACHADO))
def test_every_two_seats_stay_apart(vision: str) -> None:
    pairs = {(a, b): ciede2000(lab(a, vision), lab(b, vision)) for a, b in itertools.combinations(SEATS, 2)}
    nearest = min(pairs, key=lambda pair: pairs[pair])
    assert pairs[nearest] >= SEATS_APART, (vision, nearest, round(pairs[nearest], 2))


@pytest.mark.parametrize("vision", list(MACHADO))
def test_every_seat_stays_apart_from_every_card_colour(vision: str) -> None:
    pairs = {(s, c): ciede2000(lab(s, vision), lab(hex_, vision)) for s in SEATS for c, hex_ in CARDS.items()}
    nearest = min(pairs, key=lambda pair: pairs[pair])
    assert pairs[nearest] >= FROM_CARDS, (vision, nearest, round(pairs[nearest], 2))


def test_no_seat_is_pale_black_or_grey_and_at_most_one_is_dark() -> None:
    looks = {seat: lab(seat, "normal") for seat in SEATS}
    for seat, (lightness, a, b) in looks.items():
        assert LIGHTNESS[0] <= lightness <= LIGHTNESS[1], (seat, round(lightness, 1))
        assert math.hypot(a, b) >= CHROMA, (seat, round(math.hypot(a, b), 1))
    dark = [seat for seat, (lightness, _, _) in looks.items() if lightness < DARK]
    assert len(dark) <= 1, dark


def test_every_two_seats_differ_in_lightness_so_that_they_part_with_no_hue_at_all() -> None:
    lightness = {seat: lab(seat, "normal")[0] for seat in SEATS}
    for a, b in itertools.combinations(SEATS, 2):
        assert abs(lightness[a] - lightness[b]) >= LIGHTER, (a, b, round(lightness[a], 1), round(lightness[b], 1))
