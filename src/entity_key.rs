//! Look-alike entity ids: when two spellings may be one id.
//!
//! Ids stay distinct text everywhere else (splits, hashes, row order: `"001"` and `"1"`
//! are two entities). The keys here are only compared: `pack check` and `init` report
//! distinct ids that look alike (one entity written two ways is split in two, and a
//! grouped split then leaks it), `audit` calls a test id that looks like a training id a
//! possible leak, and the verifier adds a `look_alike_entities` caveat for such an arm.
//!
//! Two ids look alike in one of two tiers ([`look_alike`]):
//!
//! - **the same to a reader** ([`Likeness::Same`]): their [`entity_key`]s are equal;
//! - **possibly one id** ([`Likeness::Possible`]): their keys differ, but one of the two
//!   *loose keys* is equal. A loose key adds one kind of ambiguity that a person could
//!   read either way: the letter/digit classes with the separators and digit groups, or
//!   the leading zeros with the separators and digit groups.
//!
//! A match of either tier is reported with the pair, and the user decides: one entity
//! written two ways is written one way, distinct entities get ids that do not look alike.
//! Label texts are refused only in the first tier (a load error must not rest on a guess).
//!
//! [`entity_key`] reads an id, one step after another:
//!
//! 1. **Canonical decomposition** (NFD, `unicode-normalization`): the NFC and NFD
//!    spellings of `é` become one sequence, its mark a character of its own. First, so
//!    that each later step reads one character at a time.
//! 2. **Invisible characters dropped**: white space of every kind, anywhere, control and
//!    format characters (zero-width space and joiners, U+2060, U+FEFF, the soft hyphen,
//!    bidi controls), the other default-ignorable code points, and **combining marks**
//!    (`é` ~ `e`); and **decimal digits of every script** (general category Nd,
//!    `unicode-properties`: `٣` ~ `३` ~ `３` ~ `3`) read as ASCII digits. Before the
//!    skeleton, since the confusables table reads some digits as letters or punctuation
//!    (the Arabic-Indic zero as a point), while a digit is a digit whatever its script.
//! 3. **Homoglyphs, compatibility forms, case**: every other character is replaced by its
//!    UTS #39 skeleton (`unicode-security`), then by its compatibility decomposition
//!    (NFKD: ligatures, superscripts, full-width forms), then case folded (the lower case
//!    of the upper case: `ß` ~ `ss`, `ς` ~ `σ`); then the folded form's own skeleton is
//!    taken the same way, until nothing changes (digits that appear on the way, `З` → `3`,
//!    are kept as digits). The skeleton comes **before the case fold** because the
//!    confusables table maps capitals to capitals: Cyrillic `В` and Greek `Β` → `B` → `b`,
//!    whereas the folded `в` is drawn as a small capital and has no `b` (folding first
//!    missed every upper-case homoglyph); the skeleton of the folded form follows, for a
//!    letter whose lower case alone has a homoglyph. It comes **before the compatibility
//!    decomposition** because that decomposition names some homoglyphs as other letters:
//!    the lunate sigma `Ϲ`, drawn as `C`, decomposes to `Σ`. The table's ambiguous classes
//!    are left to a loose key: ASCII digits are kept out of the skeleton (`0` → `O`, `1` →
//!    `l`), a skeleton of several characters is not taken (`m` → `rn`), and a capital
//!    whose skeleton is `l` reads as the capital `I` (so `I` ~ `i` by case, and `L` ~ `l`,
//!    but `I` / `l`, which share the prototype `l`, are a loose match: folded after the
//!    skeleton, `L` → `l` would otherwise chain to `I`). The U+2010 hyphen and the minus
//!    sign ~ `-`, `’` ~ `'`. Two exceptions keep a character's kind: a character whose
//!    compatibility decomposition holds a digit is decomposed first (`²` ~ `2`, `①` ~
//!    `1`: the skeleton would read `²` as a syllabic letter), and punctuation whose
//!    skeleton is no punctuation keeps its own form (the em dash, whose skeleton is a
//!    katakana mark, stays a separator).
//! 4. **Numbers**: a text that is now a decimal number (`3`, `3.0`, `-0.50`, `1e3`, `012`)
//!    is written in one canonical form, exactly from its text: ids that are the same
//!    number look alike (`3.0` ~ `3` ~ `03`, a float and an integer export of one id),
//!    numbers that differ stay apart (`100` / `1000`, 20-digit ids that differ in the last
//!    digit). Last, since only now are signs, digits and the exponent's `e` plain.
//!
//! The two loose keys (step 4 is redone by each):
//!
//! - **Letter/digit classes**: the reading of steps 1–3 with the skeleton's whole table
//!   taken in the first pass (ASCII digits and skeletons of several characters included:
//!   `m` → `rn`), and its prototypes `l`, `O`, `o` read as `1`, `0`, `0` before the case
//!   fold (so `O` ~ `o` ~ `0`, and `l` ~ `I` ~ `1`, but not `L` or `i`: `COOO1` ~ `C0001`,
//!   `xO1` ~ `x01`, `I7` ~ `17`, `rn5` ~ `m5`), then *settled* (below).
//! - **Leading zeros**: step 3's text; unless it is a number (its zeros are already read
//!   by value), leading zeros are dropped from every run of ASCII digits (`c1-p007` ~
//!   `c1-p7`, but `c1-p70` is another id), then *settled*. Only digits written as digits:
//!   a zero drawn as `O` is not dropped.
//!
//! *Settling* reads what is left: a number is written canonically (step 4); an id with no
//! letter whose digits are grouped by thousands (`1,000`, `1_000`, `1'000`, `12,345.5`: a
//! lead group of one to three digits, then groups of three, one separator throughout) is
//! that number (`1,000` ~ `1000`, but `1.000` is the number 1 and `1,5` stays as
//! written); any other id with no letter stays as written, since its punctuation may carry
//! value (`-3`, `1/2`); and an id with a letter loses its **separators** (every
//! punctuation character, Unicode category P: `A-12` ~ `A12`, `id_9` ~ `id9`,
//! `MRN-00123` ~ `MRN00123`).
//!
//! The two ambiguities are deliberately not composed: each loose key applies one class,
//! everywhere, to both ids. Composed, they would chain `cl7` → `c17` → `C0017`, two ids
//! that differ in real characters; kept apart, `C0001` ~ `COOO1` (classes) and `C0001` ~
//! `C1` (zeros) are both flagged, and `COOO1` / `C1` (both at once) is not.
//!
//! Tables: Unicode 16 or later, as generated by the unicode-rs crates. The corpus in
//! `tests/data/lookalike/` holds the rule to both directions (spellings that must match,
//! ids that must stay apart).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

/// Exponents of a canonical number written out in full (beyond: `d.ddde±N`).
const PLAIN_EXPONENT: i64 = 30;

/// Rounds of skeleton and case fold at most per character (step 3); the tables settle
/// after two.
const READING_ROUNDS: usize = 4;

/// How two distinct ids look alike ([`look_alike`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Likeness {
    /// The same to a reader: one [`entity_key`].
    Same,
    /// Possibly one id: one loose key (letter/digit classes, or leading zeros; with the
    /// separators and digit groups), different [`entity_key`]s.
    Possible,
}

/// The comparison key of an entity id, the first tier (steps 1–4 of the module docs):
/// ids with one key are the same to a reader.
pub fn entity_key(id: &str) -> String {
    let read = reading(id);
    number(&read).unwrap_or(read)
}

/// Whether two ids look alike, and how surely (`None`: they do not).
pub fn look_alike(a: &str, b: &str) -> Option<Likeness> {
    let (read_a, read_b) = (reading(a), reading(b));
    if entity_key_of_reading(&read_a) == entity_key_of_reading(&read_b) {
        Some(Likeness::Same)
    } else if classes_key(a) == classes_key(b) || zeros_key(&read_a) == zeros_key(&read_b) {
        Some(Likeness::Possible)
    } else {
        None
    }
}

/// Groups of distinct ids that look alike, in either tier: for each loose key, the ids
/// that share it (a group whose ids also share the other loose key is listed once; an id
/// can be in two groups, one per key). Each group's ids in byte order, the groups in
/// byte order. Ids given twice count once.
pub fn look_alike_groups<'a>(ids: impl IntoIterator<Item = &'a str>) -> Vec<Vec<&'a str>> {
    let ids: BTreeSet<&'a str> = ids.into_iter().collect();
    let keys: Vec<(&'a str, String, String)> = ids
        .iter()
        .map(|&id| (id, classes_key(id), zeros_key(&reading(id))))
        .collect();
    let classes = groups_by(keys.iter().map(|(id, key, _)| (*id, key.as_str())));
    let zeros = groups_by(keys.iter().map(|(id, _, key)| (*id, key.as_str())));
    let zeros_key_of: BTreeMap<&str, &str> = keys
        .iter()
        .map(|(id, _, key)| (*id, key.as_str()))
        .collect();
    let classes_key_of: BTreeMap<&str, &str> = keys
        .iter()
        .map(|(id, key, _)| (*id, key.as_str()))
        .collect();
    let classes_size: BTreeMap<&str, usize> = classes
        .iter()
        .map(|group| (classes_key_of[group[0]], group.len()))
        .collect();
    let one_key = |group: &[&str], key_of: &BTreeMap<&str, &str>| {
        group.iter().all(|id| key_of[id] == key_of[group[0]])
    };
    // A group inside a group of the other key adds no pair: a classes group inside (or
    // equal to) a zeros group, a zeros group strictly inside a classes group.
    let mut groups: Vec<Vec<&'a str>> = classes
        .iter()
        .filter(|group| !one_key(group, &zeros_key_of))
        .cloned()
        .collect();
    groups.extend(
        zeros
            .iter()
            .filter(|group| {
                !(one_key(group, &classes_key_of)
                    && classes_size[classes_key_of[group[0]]] > group.len())
            })
            .cloned(),
    );
    groups.sort_unstable();
    groups
}

/// Groups of distinct ids with one [`entity_key`] (the first tier only): each group's
/// ids in byte order, the groups in byte order. Ids given twice count once.
pub fn same_key_groups<'a>(ids: impl IntoIterator<Item = &'a str>) -> Vec<Vec<&'a str>> {
    let ids: BTreeSet<&'a str> = ids.into_iter().collect();
    let keys: Vec<(&'a str, String)> = ids.iter().map(|&id| (id, entity_key(id))).collect();
    let mut groups = groups_by(keys.iter().map(|(id, key)| (*id, key.as_str())));
    groups.sort_unstable();
    groups
}

/// The groups of two or more ids with one key, each in byte order.
fn groups_by<'a, 'k>(keyed: impl Iterator<Item = (&'a str, &'k str)>) -> Vec<Vec<&'a str>> {
    let mut by_key: BTreeMap<&'k str, Vec<&'a str>> = BTreeMap::new();
    for (id, key) in keyed {
        by_key.entry(key).or_default().push(id);
    }
    by_key
        .into_values()
        .filter(|ids| ids.len() > 1)
        .map(|mut ids| {
            ids.sort_unstable();
            ids
        })
        .collect()
}

/// Steps 1–3: an id as a reader sees it, before numbers are read; with `classes`, the
/// letter/digit classes' reading of a loose key instead.
fn reading_of(id: &str, classes: bool) -> String {
    let ascii = ascii_readings(classes);
    let mut read = String::with_capacity(id.len());
    for c in id.nfd() {
        if c.is_ascii() {
            read.push_str(&ascii[c as usize]);
        } else {
            read_char(c, classes, &mut read);
        }
    }
    read
}

/// Steps 1–3 for one character: a character's reading depends on nothing else.
fn read_char(c: char, classes: bool, out: &mut String) {
    if let Some(digit) = decimal_digit(c) {
        out.push(digit);
    } else if !is_invisible(c) {
        read_letter(c, classes, out);
    }
}

/// [`read_char`] of every ASCII character, computed once: the Unicode tables cost about a
/// microsecond per character, and an id column is mostly ASCII (a 3 MB id took seconds).
fn ascii_readings(classes: bool) -> &'static [String; 128] {
    static TABLES: [OnceLock<[String; 128]>; 2] = [OnceLock::new(), OnceLock::new()];
    TABLES[usize::from(classes)].get_or_init(|| {
        std::array::from_fn(|code| {
            let mut out = String::new();
            read_char(char::from(code as u8), classes, &mut out);
            out
        })
    })
}

/// Steps 1–3 (the module docs).
fn reading(id: &str) -> String {
    reading_of(id, false)
}

/// Step 3 for one visible character that is no digit. The skeleton of the character as
/// written; strictly, without the skeleton's ambiguous classes (a skeleton of several
/// characters, `m` → `rn`, is not taken; a capital drawn as `l` is the capital `I`), or,
/// with `classes`, with the prototypes `l`, `O`, `o` read as `1`, `0`, `0`. Then its
/// compatibility decomposition and case fold, then the skeleton of the folded form (one
/// character for one, never `l`), until nothing changes.
fn read_letter(c: char, classes: bool, out: &mut String) {
    // A compatibility digit (`²`, `①`) is a digit: its decomposition first.
    let decomposed: String = c.nfkd().collect();
    if decomposed.chars().any(|d| decimal_digit(d).is_some()) {
        for d in decomposed.chars() {
            if let Some(digit) = decimal_digit(d) {
                out.push(digit);
            } else if d != c && !is_invisible(d) {
                read_letter(d, classes, out);
            }
        }
        return;
    }
    let mut skeleton = skeleton_of(c);
    // Punctuation stays punctuation (the em dash is no katakana mark): a separator.
    if is_separator(c) && !skeleton.chars().all(is_separator) {
        skeleton = c.to_string();
    }
    let first: String = if classes {
        skeleton
            .chars()
            .map(|p| match p {
                'l' => '1',
                'O' | 'o' => '0',
                _ => p,
            })
            .collect()
    } else if skeleton.chars().count() > 1 {
        c.to_string()
    } else if skeleton == "l" && c != 'l' && c.is_uppercase() {
        "I".to_owned()
    } else {
        skeleton
    };
    let mut current = decomposed_folded(&first);
    for _ in 0..READING_ROUNDS {
        let mut next = String::with_capacity(current.len());
        for c in current.chars() {
            let skeleton = if c.is_ascii_digit() {
                None
            } else {
                Some(skeleton_of(c))
            };
            match skeleton {
                Some(s)
                    if s.chars().count() == 1
                        && s != "l"
                        && (!is_separator(c) || s.chars().all(is_separator)) =>
                {
                    next.push_str(&decomposed_folded(&s));
                }
                _ => next.push(c),
            }
        }
        if next == current {
            break;
        }
        current = next;
    }
    out.push_str(&current);
}

/// The UTS #39 skeleton of one character.
fn skeleton_of(c: char) -> String {
    let mut buffer = [0u8; 4];
    unicode_security::skeleton(c.encode_utf8(&mut buffer)).collect()
}

/// NFKD, then digits of any script as ASCII digits, invisible characters dropped, the rest
/// case folded.
fn decomposed_folded(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.nfkd() {
        if let Some(digit) = decimal_digit(c) {
            out.push(digit);
        } else if !is_invisible(c) {
            out.extend(fold_case(c));
        }
    }
    out
}

/// Step 4 on a [`reading`].
fn entity_key_of_reading(read: &str) -> String {
    number(read).unwrap_or_else(|| read.to_owned())
}

/// The letter/digit classes key of an id.
fn classes_key(id: &str) -> String {
    settled(&reading_of(id, true))
}

/// The leading-zeros key of a [`reading`]: a number as such, otherwise leading zeros
/// dropped from every run of digits; settled.
fn zeros_key(read: &str) -> String {
    if number(read).is_some() || grouped_number(read).is_some() {
        settled(read)
    } else {
        settled(&without_leading_zeros(read))
    }
}

/// What a loose key reads last (module docs): a number canonically, a number grouped by
/// thousands as that number, another id without a letter as written, an id with a letter
/// without its separators.
fn settled(text: &str) -> String {
    if let Some(canonical) = number(text) {
        return canonical;
    }
    if !text.chars().any(char::is_alphabetic) {
        return grouped_number(text).unwrap_or_else(|| text.to_owned());
    }
    text.chars().filter(|&c| !is_separator(c)).collect()
}

/// Punctuation (general category P): the separators an id with a letter drops in a loose
/// key.
fn is_separator(c: char) -> bool {
    matches!(
        c.general_category(),
        GeneralCategory::ConnectorPunctuation
            | GeneralCategory::DashPunctuation
            | GeneralCategory::OpenPunctuation
            | GeneralCategory::ClosePunctuation
            | GeneralCategory::InitialPunctuation
            | GeneralCategory::FinalPunctuation
            | GeneralCategory::OtherPunctuation
    )
}

/// The canonical number of `[+-]d{1,3}(Sd{3})+[.d+]` with one separator `S` of `,` `_`
/// `'` throughout (`1,000`, `1_000_000`, `12'345.5`); `None` otherwise.
fn grouped_number(text: &str) -> Option<String> {
    let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
    let (int, frac) = match unsigned.split_once('.') {
        Some((int, frac)) => (int, Some(frac)),
        None => (unsigned, None),
    };
    let separator = int.chars().find(|c| !c.is_ascii_digit())?;
    if ![',', '_', '\''].contains(&separator) {
        return None;
    }
    let mut groups = int.split(separator);
    let lead = groups.next()?;
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if lead.is_empty() || lead.len() > 3 || !digits(lead) {
        return None;
    }
    if !groups.all(|group| group.len() == 3 && digits(group)) {
        return None;
    }
    if frac.is_some_and(|frac| frac.is_empty() || !digits(frac)) {
        return None;
    }
    let sign = &text[..text.len() - unsigned.len()];
    let plain: String = int.chars().filter(|&c| c != separator).collect();
    number(&match frac {
        Some(frac) => format!("{sign}{plain}.{frac}"),
        None => format!("{sign}{plain}"),
    })
}

/// Most characters of an id that [`quoted`] shows.
const QUOTED_CHARS: usize = 80;

/// An id quoted for people, every character outside printable ASCII escaped as
/// `\u{…}`: two look-alike ids then show where they differ (`"c1\u{2010}p01"`). An id
/// longer than 80 characters shows its first 80 and how many more there are (a message
/// never repeats a megabyte cell).
pub fn quoted(id: &str) -> String {
    let mut out = String::with_capacity(id.len().min(4 * QUOTED_CHARS) + 2);
    out.push('"');
    let count = id.chars().count();
    for c in id.chars().take(QUOTED_CHARS) {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            ' '..='~' => out.push(c),
            _ => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
        }
    }
    out.push('"');
    if count > QUOTED_CHARS {
        out.push_str(&format!("… ({} more characters)", count - QUOTED_CHARS));
    }
    out
}

/// A character's case fold: the lower case of its upper case (`ß` → `SS` → `ss`).
fn fold_case(c: char) -> impl Iterator<Item = char> {
    c.to_uppercase().flat_map(char::to_lowercase)
}

/// The ASCII digit of a decimal digit of any script (general category Nd). Unicode
/// encodes each script's digits 0 to 9 as one contiguous run, runs back to back where a
/// script has several (mathematical digits): the value is the distance to the start of
/// the block of digits, modulo 10.
fn decimal_digit(c: char) -> Option<char> {
    if c.is_ascii_digit() {
        return Some(c);
    }
    if c.general_category() != GeneralCategory::DecimalNumber {
        return None;
    }
    let mut zero = u32::from(c);
    while let Some(before) = zero.checked_sub(1).and_then(char::from_u32) {
        if before.general_category() != GeneralCategory::DecimalNumber {
            break;
        }
        zero -= 1;
    }
    char::from_digit((u32::from(c) - zero) % 10, 10)
}

/// Whether a character is invisible in an id: white space, controls, format characters,
/// the other default-ignorable code points, and combining marks.
fn is_invisible(c: char) -> bool {
    if c.is_whitespace() || c.is_control() {
        return true;
    }
    match c.general_category() {
        GeneralCategory::Format
        | GeneralCategory::NonspacingMark
        | GeneralCategory::SpacingMark
        | GeneralCategory::EnclosingMark
        | GeneralCategory::SpaceSeparator
        | GeneralCategory::LineSeparator
        | GeneralCategory::ParagraphSeparator => true,
        // Default-ignorable code points that are not Cf or marks: the Hangul fillers, the
        // braille blank (drawn as nothing), and the reserved default-ignorable ranges.
        _ => matches!(
            u32::from(c),
            0x115F | 0x1160 | 0x2800 | 0x3164 | 0xFFA0 | 0x2065 | 0xFFF0..=0xFFF8 | 0xE0000..=0xE0FFF
        ),
    }
}

/// `p007-c01` → `p7-c1`: leading zeros dropped from every run of ASCII digits.
fn without_leading_zeros(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut digits = String::new();
    let flush = |digits: &mut String, out: &mut String| {
        if !digits.is_empty() {
            let kept = digits.trim_start_matches('0');
            out.push_str(if kept.is_empty() { "0" } else { kept });
            digits.clear();
        }
    };
    for c in text.chars() {
        if c.is_ascii_digit() {
            digits.push(c);
        } else {
            flush(&mut digits, &mut out);
            out.push(c);
        }
    }
    flush(&mut digits, &mut out);
    out
}

/// The canonical form of a decimal number written `[+-]digits[.digits][e[+-]digits]`
/// (at least one mantissa digit; lower case `e`, as after case folding): no sign for zero
/// or `+`, no leading or trailing zeros, no point for an integer, in full up to
/// 10^[`PLAIN_EXPONENT`] and as `d.ddde±N` beyond. `None` when the text is not such a
/// number. Exact on the text: `12345678901234567890` and `12345678901234567891` stay two
/// numbers (as floats they would be one).
fn number(text: &str) -> Option<String> {
    let (negative, unsigned) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let (mantissa, exponent) = match unsigned.split_once('e') {
        Some((m, e)) => (m, Some(e)),
        None => (unsigned, None),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if int.len() + frac.len() == 0 || !all_digits(int) || !all_digits(frac) {
        return None;
    }
    let exponent: i64 = match exponent {
        None => 0,
        Some(e) => {
            let (sign, digits) = match e.as_bytes().first()? {
                b'-' => (-1, &e[1..]),
                b'+' => (1, &e[1..]),
                _ => (1, e),
            };
            let digits = digits.trim_start_matches('0');
            if !all_digits(digits) || e.len() == usize::from(e.starts_with(['-', '+'])) {
                return None;
            }
            // Nine digits at most: a larger exponent is not a number anyone exported.
            if digits.len() > 9 {
                return None;
            }
            sign * digits.parse::<i64>().unwrap_or(0)
        }
    };
    let mut digits: Vec<u8> = int.bytes().chain(frac.bytes()).collect();
    // value = 0.digits × 10^point
    let mut point = int.len() as i64 + exponent;
    let leading = digits.iter().take_while(|&&d| d == b'0').count();
    digits.drain(..leading);
    point -= leading as i64;
    while digits.last() == Some(&b'0') {
        digits.pop();
    }
    if digits.is_empty() {
        return Some("0".to_owned());
    }
    let digits = String::from_utf8(digits).expect("ASCII digits");
    let n = digits.len() as i64;
    let body = if point >= n && point <= PLAIN_EXPONENT {
        format!("{digits}{}", "0".repeat((point - n) as usize))
    } else if point > 0 && point < n {
        format!(
            "{}.{}",
            &digits[..point as usize],
            &digits[point as usize..]
        )
    } else if point <= 0 && point > -PLAIN_EXPONENT {
        format!("0.{}{digits}", "0".repeat((-point) as usize))
    } else if n == 1 {
        format!("{digits}e{}", point - 1)
    } else {
        format!("{}.{}e{}", &digits[..1], &digits[1..], point - 1)
    };
    Some(if negative { format!("-{body}") } else { body })
}

#[cfg(test)]
mod tests {
    use super::{
        entity_key as key, grouped_number, look_alike, look_alike_groups, number, same_key_groups,
        Likeness,
    };

    /// Pairs written by hand, with the tier the module docs give them (the corpus in
    /// `tests/data/lookalike/` holds many more).
    #[test]
    fn spellings_of_one_id_look_alike_in_their_tier() {
        let same = [
            ("c1-p07", "C1-P07"),
            ("c1-p07", "\tc1-p07"),
            ("c1-p07", "c1-p07\u{A0}"),
            ("c1-p07", "c1\u{2010}p07"),               // hyphen
            ("c1-p07", "c1-\u{200B}p07"),              // zero-width space
            ("c1-p07", "c1-p\u{2060}07"),              // word joiner
            ("c1-p07", "\u{FEFF}c1-p07"),              // byte order mark
            ("c1-p07", "c1-\u{AD}p07"),                // soft hyphen
            ("c1-p07", "\u{441}1-p07"),                // Cyrillic es
            ("c1-p07", "c\u{FF11}-p\u{FF10}\u{FF17}"), // full-width digits
            ("c1-p07", "c\u{661}-p\u{660}\u{667}"),    // Arabic-Indic digits
            ("c1-p07", "c1 - p07"),
            ("c1-p07", "c1-p0\u{301}7"),  // a combining mark
            ("jos\u{E9}", "jose\u{301}"), // NFC and NFD
            ("jos\u{E9}", "JOSE"),
            ("stra\u{DF}e", "STRASSE"),
            ("B12", "\u{412}12"),     // Cyrillic capital ve
            ("b12", "\u{412}12"),     // … beside a lower-case b
            ("B12", "\u{392}12"),     // Greek capital beta
            ("H12", "\u{41D}12"),     // Cyrillic en
            ("C0001", "\u{3F9}0001"), // Greek lunate sigma
            ("I12", "i12"),
            ("ID-7", "id-7"),
            ("3.0", "3"),
            ("03", "3"),
            ("-0.50", "-.5"),
            ("1e3", "1000"),
            ("1.5E-7", "0.00000015"),
            ("-0", "0"),
        ];
        let possible = [
            ("c1-p07", "c1-p7"), // leading zeros
            ("c1-p07", "c\u{967}-p\u{96D}"),
            (" A012 ", "a12"),
            ("C0001", "COOO1"), // letter/digit classes
            ("C0001", "CO001"),
            ("C0001", "C000I"),
            ("C0001", "C000l"),
            ("C0001", "C\u{39F}\u{39F}\u{39F}1"), // Greek omicron
            ("C0001", "\u{421}\u{39F}\u{39F}\u{39F}1"), // Cyrillic es, Greek omicron
            ("I7", "17"),
            ("xO1", "x01"),
            ("I1", "11"),
            ("O1", "01"),
            ("l1", "11"),
            ("c1-pl", "c1-p1"),
            ("rn5", "m5"),
            ("1,000", "1000"), // digit groups
            ("1_000", "1000"),
            ("1'000", "1000"),
            ("1\u{2019}000", "1000"),
            ("-12,345.5", "-12345.50"),
            ("A-12", "A12"), // separators
            ("id_9", "id9"),
            ("MRN-00123", "MRN00123"),
            ("MRN-00123", "MRN123"), // separators with zeros
            ("a-b", "ab"),
        ];
        for (a, b) in same {
            assert_eq!(key(a), key(b), "{a:?} ~ {b:?}");
            assert_eq!(look_alike(a, b), Some(Likeness::Same), "{a:?} ~ {b:?}");
        }
        for (a, b) in possible {
            assert_ne!(key(a), key(b), "{a:?} ~ {b:?}");
            assert_eq!(look_alike(a, b), Some(Likeness::Possible), "{a:?} ~ {b:?}");
            assert_eq!(look_alike_groups([a, b]).len(), 1, "{a:?} ~ {b:?}");
        }
    }

    #[test]
    fn distinct_ids_stay_apart() {
        let distinct = [
            ("c1-p7", "c1-p70"),
            ("c10", "c1"),
            ("3.5", "35"),
            ("3.01", "3.1"),
            ("0.05", "0.5"),
            ("12345678901234567890", "12345678901234567891"),
            ("p1", "p2"),
            ("100", "1"),
            ("100", "1000"),
            ("1.000", "1000"),
            ("1,5", "15"),
            ("-3", "3"),
            ("1/2", "12"),
            ("cl7", "C0017"), // two ambiguities at once are not composed
            ("COOO1", "C1"),
            ("S5", "55"),
            ("L7", "I7"),
            ("L7", "17"),
            ("i7", "17"),
            ("i7", "l7"),
            ("M5", "rn5"),
            ("B8", "88"),
        ];
        for (a, b) in distinct {
            assert_eq!(look_alike(a, b), None, "{a:?} vs {b:?}");
            assert_eq!(
                look_alike_groups([a, b]),
                Vec::<Vec<&str>>::new(),
                "{a:?} vs {b:?}"
            );
        }
    }

    #[test]
    fn numbers_are_read_exactly_from_their_text() {
        let cases = [
            ("3", Some("3")),
            ("3.", Some("3")),
            ("+03.500", Some("3.5")),
            ("-0.0", Some("0")),
            (".25", Some("0.25")),
            ("2.5e2", Some("250")),
            ("1e40", Some("1e40")),
            ("-1.25e-40", Some("-1.25e-40")),
            ("1e", None),
            ("e5", None),
            (".", None),
            ("1.2.3", None),
            ("1e99999999999", None),
            ("0x10", None),
        ];
        for (text, canonical) in cases {
            assert_eq!(number(text).as_deref(), canonical, "{text:?}");
        }
        let grouped = [
            ("1,000", Some("1000")),
            ("-1_000_000.25", Some("-1000000.25")),
            ("12'345", Some("12345")),
            ("1,00", None),
            ("1,000_000", None),
            ("1234,567", None),
            (",000", None),
            ("1,000.", None),
        ];
        for (text, canonical) in grouped {
            assert_eq!(grouped_number(text).as_deref(), canonical, "{text:?}");
        }
    }

    #[test]
    fn quoted_ids_show_every_invisible_or_foreign_character() {
        assert_eq!(
            super::quoted("c1\u{2010}p\u{200B}01"),
            r#""c1\u{2010}p\u{200b}01""#
        );
        assert_eq!(super::quoted("a \"b\"\t"), r#""a \"b\"\u{9}""#);
    }

    #[test]
    fn groups_list_distinct_ids_in_byte_order() {
        let groups = look_alike_groups(["p1", "P01", "p2", "p1", "q", "\u{2060}q"]);
        assert_eq!(groups, vec![vec!["P01", "p1"], vec!["q", "\u{2060}q"]]);
        // One group per key: `C0001` is like `COOO1` by the classes and like `C1` by the
        // zeros, while `COOO1` and `C1` are not alike.
        let groups = look_alike_groups(["COOO1", "C1", "C0001", "x"]);
        assert_eq!(groups, vec![vec!["C0001", "C1"], vec!["C0001", "COOO1"]]);
        // A group inside the other key's group is listed once.
        let groups = look_alike_groups(["A-1", "a1", "A01"]);
        assert_eq!(groups, vec![vec!["A-1", "A01", "a1"]]);
        assert_eq!(
            same_key_groups(["A-1", "a1", "A01", "A1"]),
            vec![vec!["A1", "a1"]]
        );
    }
}
