#!/usr/bin/env python3
"""Writes pairs.tsv: the look-alike id corpus held in both directions by
tests/lookalike.rs (issue 47, item 2).

Every label comes from the definition in src/entity_key.rs (module docs) and from the
homoglyph lists below, written by hand from the look of the letters (and, for the
Cyrillic and Greek ones, the Unicode confusables table they agree with); none comes from
running counterlab. Columns:

  a, b      the two ids (characters that cannot be seen, white space, controls, format
            characters and combining marks, are written \\u{hex})
  expected  same (the same to a reader: one entity_key), possible (one loose key: the
            letter/digit classes O/0 and l/I/1, rn/m; leading zeros; separators; digit
            groups), or apart (must never be flagged)
  class     what the pair tests
  note      why

Run: python3 tests/data/lookalike/make_pairs.py (rewrites pairs.tsv next to it).
"""

import os
import unicodedata

# Capitals of Cyrillic and Greek drawn like a Latin capital.
CYRILLIC = {
    "A": "\u0410", "B": "\u0412", "C": "\u0421", "E": "\u0415", "H": "\u041D",
    "I": "\u0406", "J": "\u0408", "K": "\u041A", "M": "\u041C", "O": "\u041E",
    "P": "\u0420", "Q": "\u051A", "S": "\u0405", "T": "\u0422", "W": "\u051C",
    "X": "\u0425", "Y": "\u04AE",
}
CYRILLIC_EXTRA = [("I", "\u04C0", "palochka")]
GREEK = {
    "A": "\u0391", "B": "\u0392", "C": "\u03F9", "E": "\u0395", "F": "\u03DC",
    "H": "\u0397", "I": "\u0399", "J": "\u037F", "K": "\u039A", "M": "\u039C",
    "N": "\u039D", "O": "\u039F", "P": "\u03A1", "T": "\u03A4", "X": "\u03A7",
    "Y": "\u03A5", "Z": "\u0396",
}
# Letters of Cyrillic and Greek drawn like a digit (the letter/digit class for 0 and 1).
DIGIT_LETTERS_POSSIBLE = [
    ("0", "\u041E", "Cyrillic capital O"), ("0", "\u043E", "Cyrillic small o"),
    ("0", "\u039F", "Greek capital omicron"), ("0", "\u03BF", "Greek small omicron"),
    ("1", "\u0406", "Cyrillic capital I"), ("1", "\u0399", "Greek capital iota"),
    ("1", "\u04C0", "Cyrillic palochka"),
]
# Letters drawn like a digit other than 0 and 1: homoglyphs, the same to a reader.
DIGIT_LETTERS_SAME = [
    ("3", "\u0417", "Cyrillic capital ze"), ("3", "\u04E0", "Cyrillic abkhasian dze"),
    ("6", "\u0431", "Cyrillic small be"),
]
# Capitals of Cyrillic and Greek that look like no Latin letter they are set beside.
UNLIKE = [
    ("\u0414", "A", "Cyrillic De"), ("\u0416", "X", "Cyrillic Zhe"),
    ("\u042F", "R", "Cyrillic Ya"), ("\u0418", "N", "Cyrillic I"),
    ("\u041F", "N", "Cyrillic Pe"), ("\u041B", "A", "Cyrillic El"),
    ("\u0424", "O", "Cyrillic Ef"),
    ("\u042E", "O", "Cyrillic Yu"), ("\u0413", "T", "Cyrillic Ghe"),
    ("\u03A3", "E", "Greek Sigma"), ("\u039B", "A", "Greek Lambda"),
    ("\u03A0", "N", "Greek Pi"), ("\u03A8", "W", "Greek Psi"),
    ("\u03A6", "O", "Greek Phi"), ("\u03A9", "O", "Greek Omega"),
    ("\u0394", "A", "Greek Delta"),
]
DIGIT_SCRIPTS = [(0xFF10, "full-width"), (0x0660, "Arabic-Indic"), (0x0966, "Devanagari"),
                 (0x09E6, "Bengali")]

rows = []


def add(a, b, expected, cls, note):
    rows.append((a, b, expected, cls, note))


for X in "ABCDEFGHIJKLMNOPQRSTUVWXYZ":
    fw = chr(0xFF21 + ord(X) - ord("A"))
    add(f"{X}12", f"{fw}12", "same", "homoglyph_fullwidth", f"full-width {X}")
    fx = chr(0xFF41 + ord(X) - ord("A"))
    add(f"{X.lower()}12", f"{fx}12", "same", "homoglyph_fullwidth", f"full-width {X.lower()}")
for script, table in (("cyrillic", CYRILLIC), ("greek", GREEK)):
    for X, h in table.items():
        name = unicodedata.name(h).title()
        add(f"{X}12", f"{h}12", "same", f"homoglyph_{script}", f"{name} for {X}")
        add(f"{X.lower()}12", f"{h}12", "same", f"homoglyph_{script}",
            f"{name} for {X}, beside a lower case {X.lower()}")
# Two the confusables table reads through a mark or the lower case: Greek Theta is O with
# a stroke overlay (a skeleton of two characters, so a loose match), and Cyrillic small
# sha is drawn as w (the skeleton of the folded form, so the capital too).
add("O12", "\u039812", "possible", "homoglyph_greek", "Greek Theta: O and a stroke overlay")
add("W12", "\u042812", "same", "homoglyph_cyrillic", "Cyrillic Sha: its small sha is w")
for X, h, name in CYRILLIC_EXTRA:
    add(f"{X}12", f"{h}12", "same", "homoglyph_cyrillic", f"Cyrillic {name} for {X}")
for d in range(10):
    for zero, script in DIGIT_SCRIPTS:
        add(f"A{d}7", f"A{chr(zero + d)}7", "same", "digit_script", f"{script} digit {d}")
for digit, letter, name in DIGIT_LETTERS_POSSIBLE:
    add(f"x{digit}{digit}2", f"x{letter}{digit}2", "possible", "letter_digit",
        f"{name} for the digit {digit}")
for digit, letter, name in DIGIT_LETTERS_SAME:
    add(f"x{digit}2", f"x{letter}2", "same", "homoglyph_digit", f"{name} for the digit {digit}")

# The red team's spellings (issue 46 item 2, issue 47 items 1 and 2).
RED = [
    ("B12", "\u041212", "same", "Cyrillic Ve"), ("H12", "\u041D12", "same", "Cyrillic En"),
    ("M12", "\u041C12", "same", "Cyrillic Em"), ("T12", "\u042212", "same", "Cyrillic Te"),
    ("K12", "\u041A12", "same", "Cyrillic Ka"), ("B12", "\u039212", "same", "Greek Beta"),
    ("17", "I7", "possible", "capital I for 1"), ("x01", "xO1", "possible", "capital O for 0"),
    ("C0001", "COOO1", "possible", "capital O for the zeros"),
    ("C0001", "CO001", "possible", "one capital O"),
    ("C0001", "C000I", "possible", "capital I for 1"),
    ("C0001", "C000l", "possible", "small l for 1"),
    ("C0001", "C\u039F\u039F\u039F1", "possible", "Greek omicron for the zeros"),
    ("C0001", "\u0421\u039F\u039F\u039F1", "possible", "Cyrillic Es, Greek omicron zeros"),
    ("C0001", "\u03F90001", "same", "Greek lunate sigma for C"),
    ("C0017", "C\u039F\u039F17", "possible", "Greek omicron zeros"),
    ("1000", "1,000", "possible", "comma digit group"),
    ("1000", "1_000", "possible", "underscore digit group"),
    ("1000", "1'000", "possible", "apostrophe digit group"),
    ("A12", "A-12", "possible", "hyphen separator"),
    ("id9", "id_9", "possible", "underscore separator"),
    ("MRN00123", "MRN-00123", "possible", "hyphen separator"),
    ("11", "l1", "possible", "small l for 1"), ("m5", "rn5", "possible", "rn for m"),
    ("11", "I1", "possible", "capital I for 1"), ("01", "O1", "possible", "capital O for 0"),
]
for a, b, expected, note in RED:
    add(a, b, expected, "red_team", note)

for sep, name in [("-", "hyphen-minus"), ("_", "underscore"), (".", "full stop"),
                  ("/", "solidus"), (":", "colon"), ("#", "number sign"),
                  ("'", "apostrophe"), ("\u00B7", "middle dot"), ("\u2013", "en dash"),
                  ("\u2014", "em dash"), ("(", "parenthesis")]:
    add("A12", f"A{sep}12", "possible", "separator", name)
    add("MRN00123", f"MRN{sep}00123", "possible", "separator", name)
add("A-12", "A_12", "possible", "separator", "hyphen and underscore")
add("c1-p07", "c1p07", "possible", "separator", "hyphen dropped")
add("c1-p07", "c1\u2010p07", "same", "homoglyph_punctuation", "U+2010 hyphen")
add("c1-p07", "c1\u2212p07", "same", "homoglyph_punctuation", "minus sign")

for a, b, note in [("1,000", "1000", "comma"), ("1_000", "1000", "underscore"),
                   ("1'000", "1000", "apostrophe"), ("1\u2019000", "1000", "right quote"),
                   ("12,345,678", "12345678", "two groups"),
                   ("1,000,000", "1000000", "two groups"), ("-2,500", "-2500", "negative"),
                   ("1,234.5", "1234.5", "fraction"), ("999_999", "999999", "underscore"),
                   ("10'000", "10000", "apostrophe"), ("1,000", "1_000", "two separators")]:
    add(a, b, "possible", "digit_group", note)
add("1 000", "1000", "same", "digit_group", "a space is invisible")
add("1\u202F000", "1000", "same", "digit_group", "a narrow no-break space is invisible")

for a, b, expected, note in [
    ("p007", "p7", "possible", "zero padding"), ("c1-p001", "c1-p01", "possible", "padding"),
    ("MRN00123", "MRN123", "possible", "padding"), ("A-007", "A-7", "possible", "padding"),
    ("s0042x", "s42x", "possible", "padding"), ("C0001", "C1", "possible", "padding"),
    ("MRN-00123", "MRN123", "possible", "padding and separator"),
    ("012", "12", "same", "one number"), ("0042", "42", "same", "one number"),
    ("007.50", "7.5", "same", "one number"), ("000", "0", "same", "one number"),
]:
    add(a, b, expected, "leading_zeros", note)

for a, b, note in [
    ("c1-p07", "C1-P07", "case"), ("Stra\u00DFe", "STRASSE", "case: sharp s"),
    ("ID-7", "id-7", "case"), ("I12", "i12", "case of I"), ("L7", "l7", "case of L"),
    ("c1-p07", " c1-p07", "leading space"), ("c1-p07", "c1-p07\t", "tab"),
    ("c1-p07", "c1-p07\u00A0", "no-break space"), ("c1-p07", "c1-\u200Bp07", "zero-width space"),
    ("c1-p07", "c1-p\u206007", "word joiner"), ("c1-p07", "\uFEFFc1-p07", "byte order mark"),
    ("c1-p07", "c1-\u00ADp07", "soft hyphen"), ("c1-p07", "c1-p0\u03017", "combining mark"),
    ("jos\u00E9", "jose\u0301", "NFC and NFD"), ("jos\u00E9", "JOSE", "mark and case"),
    ("\uFB01le9", "file9", "ligature"), ("x\u00B2", "x2", "superscript"),
    ("c1-p07", "\u04411-p07", "Cyrillic small es"), ("p07", "\u044007", "Cyrillic small er"),
    ("3.0", "3", "float export"), ("-0.50", "-.5", "one number"),
    ("1e3", "1000", "exponent"), ("1.5E-7", "0.00000015", "exponent"), ("-0", "0", "zero"),
    ("+3", "3", "sign"), ("\u22123", "-3", "minus sign"),
]:
    add(a, b, "same", "reading", note)

# Apart: ids that differ in a real character.
letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
for i, X in enumerate(letters):
    Y = letters[(i + 1) % 26]
    add(f"{X}12", f"{Y}12", "apart", "other_letter", f"{X} and {Y}")
    add(f"{X.lower()}12", f"{Y.lower()}12", "apart", "other_letter",
        f"{X.lower()} and {Y.lower()}")
    add(f"{X}12", f"{X}13", "apart", "other_digit", "12 and 13")
for script, table in (("cyrillic", CYRILLIC), ("greek", GREEK)):
    for X, h in table.items():
        Y = letters[(letters.index(X) + 1) % 26]
        add(f"{h}12", f"{Y}12", "apart", "homoglyph_of_another_letter",
            f"{unicodedata.name(h).title()} (drawn as {X}) beside {Y}")
for h, X, name in UNLIKE:
    add(f"{h}12", f"{X}12", "apart", "unlike_letter", f"{name} beside {X}")
for d in range(10):
    add(f"A{d}7", f"A{(d + 1) % 10}7", "apart", "other_digit", f"{d} and {(d + 1) % 10}")
for n in range(1, 21):
    add(f"C{n:04d}", f"C{n + 1:04d}", "apart", "other_number", "neighbouring ids")
for a, b, note in [
    ("100", "1000", "values differ"), ("10", "100", "values differ"), ("12", "120", "values"),
    ("3.5", "35", "point"), ("1.5", "15", "point"), ("-3", "3", "sign"),
    ("0.05", "0.5", "zeros after the point"), ("1.000", "1000", "a point is a point"),
    ("1,5", "15", "decimal comma or a list: not a digit group"),
    ("1e3", "1e4", "exponent"),
    ("12345678901234567890", "12345678901234567891", "20 digits, the last differs"),
    ("2.50", "2.05", "digits swapped"), ("1/2", "12", "punctuation of a number-like id"),
    ("1,000", "100", "digit group of another value"), ("1,000", "10000", "another value"),
    ("7", "77", "values"), ("42", "24", "digits swapped"), ("123", "132", "digits swapped"),
    ("1-2", "12", "punctuation of a number-like id"), ("1_00", "100", "not a digit group"),
]:
    add(a, b, "apart", "number_value", note)
for a, b, note in [
    ("55", "S5", "S is no 5"), ("88", "B8", "B is no 8"), ("22", "Z2", "Z is no 2"),
    ("66", "G6", "G is no 6"), ("99", "g9", "g is no 9"), ("99", "q9", "q is no 9"),
    ("44", "A4", "A is no 4"), ("33", "E3", "E is no 3"), ("77", "T7", "T is no 7"),
    ("17", "i7", "a dotted i is no 1"), ("17", "L7", "L is no 1"), ("I7", "L7", "I is no L"),
    ("l7", "i7", "l is no i"), ("rn5", "M5", "capital M is no rn"),
    ("rn5", "nn5", "rn is no nn"),
]:
    add(a, b, "apart", "not_a_class", note)
for a, b, note in [
    ("C0017", "cl7", "classes and zeros are not composed (issue 47)"),
    ("C1", "COOO1", "classes and zeros are not composed"),
    ("C17", "CO17", "an extra O is a real character"),
    ("c1-p07", "c1-p70", "another id"), ("c10", "c1", "another id"),
    ("p01-b", "p01", "a letter more"), ("ab12", "ba12", "letters swapped"),
    ("MRN00123", "MRN00124", "another number"), ("MRN00123", "MRN01230", "another number"),
    ("id9", "id99", "a digit more"), ("A12", "A112", "a digit more"),
    ("x01", "x10", "digits swapped"), ("COOO1", "C0002", "another number"),
    ("C000I", "C0011", "another number"), ("A-12", "A-13", "another number"),
    ("A-12", "B-12", "another letter"), ("1,000", "2,000", "another value"),
]:
    add(a, b, "apart", "real_character", note)

VISIBLE_CATEGORIES = ("L", "N", "P", "S")


def escaped(text):
    out = []
    for c in text:
        if c == "\\":
            out.append("\\\\")
        elif c == " " or unicodedata.category(c)[0] not in VISIBLE_CATEGORIES:
            out.append("\\u{%x}" % ord(c))
        else:
            out.append(c)
    return "".join(out)


here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "pairs.tsv"), "w", encoding="utf-8", newline="\n") as f:
    f.write("a\tb\texpected\tclass\tnote\n")
    for a, b, expected, cls, note in rows:
        f.write(f"{escaped(a)}\t{escaped(b)}\t{expected}\t{cls}\t{note}\n")
counts = {}
for row in rows:
    counts[row[2]] = counts.get(row[2], 0) + 1
print(len(rows), "pairs:", counts)
