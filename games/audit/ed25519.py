"""Ed25519 signature verification (RFC 8032, section 5.1), in plain Python: a verifier of the dumps needs no
third-party package to check the server's signatures.

Points of the twisted Edwards curve -x^2 + y^2 = 1 + d x^2 y^2 over GF(p), p = 2^255 - 19, are held in extended
coordinates (X, Y, Z, T) with x = X/Z, y = Y/Z and x*y = T/Z (RFC 8032, 5.1.4), so that adding and doubling need no
inversion; one inversion (Python's `pow(z, -1, p)`) makes the affine point to encode at the end.

`verify(public_key, message, signature)` follows 5.1.7: the public key and S are decoded strictly (a y of p or
more, or an S of L or more, is refused), k = SHA-512(R || A || M) mod L, and the signature holds when [S]B - [k]A
encodes to exactly the 32 bytes of R. That is the RFC's cofactorless check [S]B = R + [k]A, with R's encoding
compared byte for byte, so a non-canonical R is refused too (OpenSSL checks the same way).

Only verification is here: nothing secret is handled, so nothing needs to run in constant time.
"""

from __future__ import annotations

import hashlib

P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493  # the order of the base point
D = -121665 * pow(121666, -1, P) % P
D2 = 2 * D % P
SQRT_MINUS_ONE = pow(2, (P - 1) // 4, P)  # 2^((p-1)/4): its square is -1 mod p

Point = tuple[int, int, int, int]  # (X, Y, Z, T), extended coordinates
IDENTITY: Point = (0, 1, 1, 0)


def _added(a: Point, b: Point) -> Point:
    """a + b (RFC 8032, 5.1.4, the addition for a = -1)."""
    x1, y1, z1, t1 = a
    x2, y2, z2, t2 = b
    aa = (y1 - x1) * (y2 - x2) % P
    bb = (y1 + x1) * (y2 + x2) % P
    cc = t1 * D2 * t2 % P
    dd = 2 * z1 * z2 % P
    e, f, g, h = bb - aa, dd - cc, dd + cc, bb + aa
    return e * f % P, g * h % P, f * g % P, e * h % P


def _doubled(a: Point) -> Point:
    """2a (RFC 8032, 5.1.4, the doubling)."""
    x1, y1, z1, _ = a
    aa = x1 * x1 % P
    bb = y1 * y1 % P
    cc = 2 * z1 * z1 % P
    h = aa + bb
    e = h - (x1 + y1) * (x1 + y1) % P
    g = aa - bb
    f = cc + g
    return e * f % P, g * h % P, f * g % P, e * h % P


def _negated(a: Point) -> Point:
    x, y, z, t = a
    return -x % P, y, z, -t % P


def _recovered_x(y: int, sign: int) -> int | None:
    """The x of the curve's point with this y whose lowest bit is `sign` (RFC 8032, 5.1.3, steps 2 to 4); None
    when there is none."""
    u = (y * y - 1) % P
    v = (D * y * y + 1) % P
    # A candidate square root of u/v with one exponentiation: x = u v^3 (u v^7)^((p-5)/8).
    x = u * pow(v, 3, P) * pow(u * pow(v, 7, P), (P - 5) // 8, P) % P
    vxx = v * x * x % P
    if vxx == (-u) % P:
        x = x * SQRT_MINUS_ONE % P
    elif vxx != u:
        return None
    if x == 0 and sign == 1:
        return None
    return P - x if x & 1 != sign else x


def decoded_point(encoded: bytes) -> Point | None:
    """A 32-byte encoding as a point of the curve (RFC 8032, 5.1.3); None when it is not one (a y of p or more
    included)."""
    if len(encoded) != 32:
        return None
    number = int.from_bytes(encoded, "little")
    y, sign = number & ((1 << 255) - 1), number >> 255
    if y >= P:
        return None
    x = _recovered_x(y, sign)
    if x is None:
        return None
    return x, y, 1, x * y % P


def encoded_point(point: Point) -> bytes:
    """The 32-byte encoding of a point (RFC 8032, 5.1.2): y, with x's lowest bit in the top bit."""
    x, y, z, _ = point
    inverse = pow(z, -1, P)
    x, y = x * inverse % P, y * inverse % P
    return (y | ((x & 1) << 255)).to_bytes(32, "little")


_BASE_Y = 4 * pow(5, -1, P) % P
_base_x = _recovered_x(_BASE_Y, 0)
assert _base_x is not None
BASE: Point = (_base_x, _BASE_Y, 1, _base_x * _BASE_Y % P)


def _base_table() -> list[list[Point]]:
    """[j * 16^i]B for i in 0..63 and j in 0..15: [s]B is then 64 additions, one per hex digit of s."""
    table, row_base = [], BASE
    for _ in range(64):
        row, point = [IDENTITY], IDENTITY
        for _ in range(15):
            point = _added(point, row_base)
            row.append(point)
        table.append(row)
        row_base = _doubled(_doubled(_doubled(_doubled(row_base))))
    return table


_table: list[list[Point]] | None = None  # built on first use (a few milliseconds), once a process


def base_times(scalar: int) -> Point:
    """[scalar]B, for 0 <= scalar < 2^256, from the table of the base point's multiples."""
    global _table
    if _table is None:
        _table = _base_table()
    point = IDENTITY
    for row in _table:
        point = _added(point, row[scalar & 15])
        scalar >>= 4
    return point


def times(scalar: int, point: Point) -> Point:
    """[scalar]point, for 0 <= scalar < 2^256: four doublings, then one addition from a table of the point's 16
    first multiples, per hex digit of the scalar, the highest first."""
    multiples = [IDENTITY, point]
    for _ in range(14):
        multiples.append(_added(multiples[-1], point))
    result = IDENTITY
    for shift in range(252, -1, -4):
        result = _doubled(_doubled(_doubled(_doubled(result))))
        digit = (scalar >> shift) & 15
        if digit:
            result = _added(result, multiples[digit])
    return result


def verify(public_key: bytes, message: bytes, signature: bytes) -> bool:
    """Whether `signature` (64 bytes: R then S) is the Ed25519 signature of `message` by `public_key` (32 bytes),
    RFC 8032, 5.1.7."""
    if len(public_key) != 32 or len(signature) != 64:
        return False
    a = decoded_point(public_key)
    if a is None:
        return False
    r_bytes = signature[:32]
    s = int.from_bytes(signature[32:], "little")
    if s >= L:
        return False
    k = int.from_bytes(hashlib.sha512(r_bytes + public_key + message).digest(), "little") % L
    # R = [S]B - [k]A must hold; encoding the right side and comparing it with R's bytes also refuses an R given
    # in a non-canonical encoding.
    return encoded_point(_added(base_times(s), times(k, _negated(a)))) == r_bytes
