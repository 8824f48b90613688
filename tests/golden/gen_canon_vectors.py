#!/usr/bin/env python3
"""Independent golden vectors for counterlab's canonical encoding (src/canon.rs).

This is a second implementation of the encoding table in src/canon.rs's module docs,
written in Python from the table alone, hashed with the `blake3` package from PyPI
(`pip install blake3`; produced with blake3 1.0.11). Run from the repo root:

    python3 tests/golden/gen_canon_vectors.py > tests/golden/canon_vectors.json

The Rust test `canon::golden_vectors_match_the_independent_encoder` checks every vector.
"""
import json
import struct

from blake3 import blake3

CONTEXTS = {
    "result": "counterlab 2026-11 result v1",
    "experiment": "counterlab 2026-11 experiment v1",
    "payload": "counterlab 2026-11 payload v1",
    "report": "counterlab 2026-11 report v1",
}


class F(float):
    """Marks a JSON float (so 1.0 and 1 stay different)."""


def enc(v):
    if v is None:
        return b"\x00"
    if v is False:
        return b"\x01"
    if v is True:
        return b"\x02"
    if isinstance(v, F):
        f = float(v)
        if f.is_integer() and -(2**63) <= f < 2**63:
            return enc(int(f))  # JSON has one number type: 1.0 is the integer 1
        return b"\x04" + struct.pack("<d", f)
    if isinstance(v, int):
        return b"\x03" + v.to_bytes(16, "little", signed=True)
    if isinstance(v, str):
        b = v.encode("utf-8")
        return b"\x05" + struct.pack("<Q", len(b)) + b
    if isinstance(v, list):
        return b"\x06" + struct.pack("<Q", len(v)) + b"".join(enc(x) for x in v)
    if isinstance(v, dict):
        items = sorted(v.items(), key=lambda kv: kv[0].encode("utf-8"))
        return b"\x07" + struct.pack("<Q", len(items)) + b"".join(enc(k) + enc(x) for k, x in items)
    raise TypeError(type(v))


def to_json_text(v):
    """JSON text in which floats keep a '.' or exponent (as serde_json writes them)."""
    if isinstance(v, F):
        return repr(float(v))
    if isinstance(v, bool) or v is None or isinstance(v, (int, str)):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ",".join(to_json_text(x) for x in v) + "]"
    return "{" + ",".join(json.dumps(k) + ":" + to_json_text(x) for k, x in v.items()) + "}"


VALUES = [
    None,
    True,
    {},
    [],
    0,
    -1,
    18446744073709551615,
    -9223372036854775808,
    F(0.5),
    F(-0.0),
    F(3.0),
    F(-2.5e-7),
    F(9.223372036854775808e18),
    F(-9.223372036854775808e18),
    F(1e21),
    F(0.1),
    F(5e-324),
    "",
    "001",
    "é – ü",
    {"b": 1, "a": [F(1.5), None], "é": "x", "A": False},
    {"roc_auc": F(0.8123), "accuracy": {"undefined": "test set has one class"}, "n": 1000},
]

vectors = []
for value in VALUES:
    for kind, context in CONTEXTS.items():
        vectors.append(
            {
                "json": to_json_text(value),
                "kind": kind,
                "hash": blake3(enc(value), derive_key_context=context).hexdigest(),
            }
        )
print(json.dumps({"source": "tests/golden/gen_canon_vectors.py (independent Python encoder + PyPI blake3)", "vectors": vectors}, indent=1, ensure_ascii=False))
