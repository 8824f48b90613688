//! The suspect-column rules measured (issue 42 item 8): how often each rule of
//! [`counterlab::suspect`] flags an honest column, and how often it finds the planted
//! column it is for, over simulated survey tables (docs/CALIBRATION.md, "Suspect
//! columns"); and the pattern of births in a Guatemalan survey (mothers as entities) as a
//! fast regular test.

use std::collections::BTreeSet;
use std::path::Path;

use counterlab::init::{scaffold, ColumnUse, InitOptions, Scaffold};
use counterlab::suspect::Suspicion;

use super::Draws;

/// The rules, in the order of the printed tables.
const RULES: [&str; 7] = [
    "label_levels",
    "label_auc",
    "label_pair",
    "unique_per_row",
    "entity_alias",
    "coarser_level",
    "time_like",
];

fn rule_of(suspicion: &Suspicion) -> usize {
    match suspicion {
        Suspicion::LabelLevels { .. } => 0,
        Suspicion::LabelAuc { .. } => 1,
        Suspicion::LabelPair { .. } => 2,
        Suspicion::UniquePerRow { .. } => 3,
        Suspicion::EntityAlias { .. } => 4,
        Suspicion::CoarserLevel { .. } => 5,
        Suspicion::TimeLike => 6,
    }
}

/// A simulated column: its name, what it is, and for a planted one the rules meant to
/// find it (`None`: an honest column, which no rule should flag).
struct Column {
    name: &'static str,
    what: &'static str,
    targets: Option<&'static [usize]>,
}

const fn honest(name: &'static str, what: &'static str) -> Column {
    Column {
        name,
        what,
        targets: None,
    }
}

const fn planted(name: &'static str, what: &'static str, targets: &'static [usize]) -> Column {
    Column {
        name,
        what,
        targets: Some(targets),
    }
}

/// The columns of every simulated table after the entity (`mother`) and the label (`y`).
const COLUMNS: &[Column] = &[
    honest("x", "birth: strong predictor, N(0, 1), coefficient 3"),
    honest("x_pos", "birth: binary predictor (0/1), coefficient 1.5"),
    honest(
        "n_prior",
        "birth: small count, Poisson(1.5), coefficient 0.4",
    ),
    honest("hour_of_day", "birth: whole numbers 0–23"),
    honest("days_stay", "birth: dense count, round(Exp(mean 10))"),
    honest(
        "amount",
        "birth: whole numbers with a wide range, round(e^N(ln 500, 1.2))",
    ),
    honest("age", "mother: years 15–49, coefficient 0.02"),
    honest("height_cm", "mother: round(N(158, 7))"),
    honest("age_months", "mother: months 180–600"),
    honest("income_k", "mother: dense count, round(e^N(ln 40, 0.6))"),
    honest("children", "mother: small count, Poisson(3)"),
    honest("emp", "mother: text category, 5 levels, with effects"),
    honest(
        "region",
        "community: text category, 3–7 levels, with effects",
    ),
    honest(
        "dist_km",
        "community: distance, round(Exp(mean 20)), coefficient −0.03",
    ),
    honest(
        "pct_ind",
        "community: share in (0, 1), 6 decimals, coefficient 0.5",
    ),
    planted("y_copy", "the label as yes/no", &[0]),
    planted("y_flip1", "the label, 1% of rows flipped", &[1]),
    planted("y_flip2", "the label, 2% of rows flipped", &[1]),
    planted("y_flip5", "the label, 5% of rows flipped", &[1]),
    planted("y_flip10", "the label, 10% of rows flipped", &[1]),
    planted("y_score", "y + N(0, 0.3²), 6 decimals", &[1]),
    planted("a_bit", "a random bit", &[2]),
    planted("b_bit", "y XOR a_bit", &[2]),
    planted("row_no", "row number 1…n in file order", &[3]),
    planted("row_code", "1000 + a shuffle of 1…n", &[3]),
    planted("row_key", "distinct random 9-digit numbers", &[3]),
    planted(
        "mother_no",
        "the mothers numbered 1…m in random order",
        &[4],
    ),
    planted(
        "mother_code",
        "the mothers as random text codes F-xxxxx",
        &[4],
    ),
    planted(
        "mother_key",
        "distinct random 6-digit numbers per mother",
        &[4],
    ),
    planted(
        "cluster",
        "the community id (numbers 1…G, numbers with gaps, or C001…)",
        &[5],
    ),
    planted(
        "mother_in_region",
        "the mothers numbered 1, 2, … within each region",
        &[5],
    ),
    planted(
        "week",
        "the birth's order within the mother under a clock's name",
        &[6],
    ),
    planted("year", "the birth year 1983–1987", &[6]),
];

/// How the mothers' ids relate to the communities: ids numbered community by community in
/// the communities' id order; community by community in a random order of the
/// communities; random; or `r<region>-m<k>`, numbered within each region.
const SCHEMES: [&str; 4] = [
    "ids along the communities, in their order",
    "ids along the communities, communities in random order",
    "random ids",
    "ids r<region>-m<k>, numbered within each region",
];

/// How the community id is written.
const CLUSTER_FORMATS: [&str; 3] = ["1…G", "G numbers of 1…1.6·G", "C001…"];

/// One simulated table: the entity and label cells and every column's cells, per row.
struct Table {
    mothers: Vec<String>,
    labels: Vec<u8>,
    cells: Vec<Vec<String>>,
    scheme: usize,
    cluster_format: usize,
}

impl Table {
    /// The CSV with the columns `keep` says to keep.
    fn csv(&self, keep: impl Fn(&Column) -> bool) -> String {
        let chosen: Vec<usize> = (0..COLUMNS.len()).filter(|&c| keep(&COLUMNS[c])).collect();
        let mut csv = String::from("mother,y");
        for &c in &chosen {
            csv += ",";
            csv += COLUMNS[c].name;
        }
        csv += "\n";
        for row in 0..self.labels.len() {
            csv += &format!("{},{}", self.mothers[row], self.labels[row]);
            for &c in &chosen {
                csv += ",";
                csv += &self.cells[c][row];
            }
            csv += "\n";
        }
        csv
    }
}

impl Draws {
    fn below(&mut self, n: usize) -> usize {
        counterlab::rng::below(&mut self.0, n as u64) as usize
    }

    fn poisson(&mut self, mean: f64) -> u64 {
        // Knuth's product of uniforms (means here are at most 3).
        let limit = libm::exp(-mean);
        let (mut k, mut product) = (0, self.uniform());
        while product > limit {
            k += 1;
            product *= self.uniform();
        }
        k
    }

    fn exponential(&mut self, mean: f64) -> f64 {
        -mean * libm::log(self.uniform())
    }

    /// `count` distinct numbers of `low..high`, in draw order.
    fn distinct(&mut self, count: usize, low: u64, high: u64) -> Vec<u64> {
        let mut seen = BTreeSet::new();
        let mut out = Vec::with_capacity(count);
        while out.len() < count {
            let value = low + self.below((high - low) as usize) as u64;
            if seen.insert(value) {
                out.push(value);
            }
        }
        out
    }
}

/// Table `seed`: 10–160 communities in 3–7 regions, 1–12 mothers per community, 1–4
/// births per mother; the label is a logistic function of the honest columns and of a
/// community and a mother effect.
fn simulate(seed: u64) -> Table {
    let mut d = Draws(counterlab::rng::stream(seed, "suspect-rules"));
    let scheme = (seed % 4) as usize;
    let cluster_format = ((seed / 4) % 3) as usize;
    let communities = 10 + d.below(151);
    let regions = 3 + d.below(5);
    // Communities are numbered region by region, as survey frames are.
    let mut region_of: Vec<usize> = (0..communities).map(|_| d.below(regions)).collect();
    region_of.sort_unstable();
    let region_effect: Vec<f64> = (0..regions).map(|_| 0.4 * d.normal()).collect();
    let community_effect: Vec<f64> = (0..communities).map(|_| 0.7 * d.normal()).collect();
    let dist: Vec<u64> = (0..communities)
        .map(|_| libm::round(d.exponential(20.0)) as u64)
        .collect();
    let pct: Vec<f64> = (0..communities).map(|_| d.uniform()).collect();
    let cluster_id: Vec<String> = match cluster_format {
        0 => (1..=communities).map(|c| c.to_string()).collect(),
        1 => {
            let frame = (communities as f64 * 1.6).round() as u64;
            let mut ids = d.distinct(communities, 1, frame + 1);
            ids.sort_unstable();
            ids.iter().map(u64::to_string).collect()
        }
        _ => (1..=communities).map(|c| format!("C{c:03}")).collect(),
    };
    // The mothers, community by community (in the scheme's order of the communities).
    let mut order: Vec<usize> = (0..communities).collect();
    if scheme == 1 {
        counterlab::rng::shuffle(&mut order, &mut d.0);
    }
    let mut community_of_mother = Vec::new();
    for &c in &order {
        for _ in 0..1 + d.below(12) {
            community_of_mother.push(c);
        }
    }
    let mothers = community_of_mother.len();
    // Numbered within each region in the order above.
    let mut in_region = vec![0usize; regions];
    let number_in_region: Vec<usize> = community_of_mother
        .iter()
        .map(|&c| {
            in_region[region_of[c]] += 1;
            in_region[region_of[c]]
        })
        .collect();
    let mother_id: Vec<String> = match scheme {
        0 | 1 => (1..=mothers).map(|m| format!("m{m:04}")).collect(),
        2 => d
            .distinct(mothers, 100_000, 1_000_000)
            .iter()
            .map(|v| format!("F{v}"))
            .collect(),
        _ => (0..mothers)
            .map(|m| {
                let region = region_of[community_of_mother[m]];
                format!("r{}-m{:03}", region + 1, number_in_region[m])
            })
            .collect(),
    };
    let employment = [
        "Unskilled",
        "Professional",
        "AgriSelf",
        "AgriEmpl",
        "Skilled",
    ];
    let employment_effect = [0.0, 0.6, -0.4, -0.2, 0.3];
    let mut mother_no: Vec<usize> = (1..=mothers).collect();
    counterlab::rng::shuffle(&mut mother_no, &mut d.0);
    let mother_code: Vec<u64> = d.distinct(mothers, 10_000, 100_000);
    let mother_key: Vec<u64> = d.distinct(mothers, 100_000, 1_000_000);

    let mut table = Table {
        mothers: Vec::new(),
        labels: Vec::new(),
        cells: vec![Vec::new(); COLUMNS.len()],
        scheme,
        cluster_format,
    };
    let column = |name: &str| COLUMNS.iter().position(|c| c.name == name).unwrap();
    let push = |table: &mut Table, name: &str, cell: String| {
        table.cells[column(name)].push(cell);
    };
    for m in 0..mothers {
        let c = community_of_mother[m];
        let effect = 0.5 * d.normal();
        let emp = d.below(employment.len());
        let age = 15 + d.below(35);
        let height = libm::round(158.0 + 7.0 * d.normal()) as i64;
        let age_months = 180 + d.below(421);
        let income = libm::round(libm::exp(libm::log(40.0) + 0.6 * d.normal())) as u64;
        let children = d.poisson(3.0);
        for birth in 1..=1 + d.below(4) {
            let x = d.normal();
            let x_pos = u8::from(d.normal() > 0.0);
            let n_prior = d.poisson(1.5);
            let eta = 3.0 * x
                + 1.5 * f64::from(x_pos)
                + 0.4 * n_prior as f64
                + community_effect[c]
                + region_effect[region_of[c]]
                + effect
                + employment_effect[emp]
                - 0.03 * (dist[c] as f64 - 20.0)
                + 0.5 * (pct[c] - 0.5)
                + 0.02 * (age as f64 - 32.0)
                - 1.6;
            let y = u8::from(d.uniform() < 1.0 / (1.0 + libm::exp(-eta)));
            table.mothers.push(mother_id[m].clone());
            table.labels.push(y);
            push(&mut table, "x", format!("{x:.6}"));
            push(&mut table, "x_pos", x_pos.to_string());
            push(&mut table, "n_prior", n_prior.to_string());
            push(&mut table, "hour_of_day", d.below(24).to_string());
            let stay = libm::round(d.exponential(10.0)) as u64;
            push(&mut table, "days_stay", stay.to_string());
            let amount = libm::round(libm::exp(libm::log(500.0) + 1.2 * d.normal())) as u64;
            push(&mut table, "amount", amount.to_string());
            push(&mut table, "age", age.to_string());
            push(&mut table, "height_cm", height.to_string());
            push(&mut table, "age_months", age_months.to_string());
            push(&mut table, "income_k", income.to_string());
            push(&mut table, "children", children.to_string());
            push(&mut table, "emp", employment[emp].to_owned());
            push(&mut table, "region", format!("Region{}", region_of[c] + 1));
            push(&mut table, "dist_km", dist[c].to_string());
            push(&mut table, "pct_ind", format!("{:.6}", pct[c]));
            push(
                &mut table,
                "y_copy",
                if y == 1 { "yes" } else { "no" }.into(),
            );
            push(&mut table, "a_bit", u8::from(d.uniform() < 0.5).to_string());
            push(&mut table, "mother_no", mother_no[m].to_string());
            push(&mut table, "mother_code", format!("F-{}", mother_code[m]));
            push(&mut table, "mother_key", mother_key[m].to_string());
            push(&mut table, "cluster", cluster_id[c].clone());
            let numbered = number_in_region[m].to_string();
            push(&mut table, "mother_in_region", numbered);
            push(&mut table, "week", birth.to_string());
            push(&mut table, "year", (1983 + d.below(5)).to_string());
        }
    }
    let rows = table.labels.len();
    for (name, share) in [
        ("y_flip1", 0.01),
        ("y_flip2", 0.02),
        ("y_flip5", 0.05),
        ("y_flip10", 0.10),
    ] {
        let mut flipped: Vec<usize> = (0..rows).collect();
        counterlab::rng::shuffle(&mut flipped, &mut d.0);
        let mut copy = table.labels.clone();
        for &row in &flipped[..(share * rows as f64).round() as usize] {
            copy[row] ^= 1;
        }
        table.cells[column(name)] = copy.iter().map(u8::to_string).collect();
    }
    let score: Vec<String> = (0..rows)
        .map(|r| format!("{:.6}", f64::from(table.labels[r]) + 0.3 * d.normal()))
        .collect();
    table.cells[column("y_score")] = score;
    let b_bit: Vec<String> = (0..rows)
        .map(|r| {
            let a = u8::from(table.cells[column("a_bit")][r] == "1");
            (a ^ table.labels[r]).to_string()
        })
        .collect();
    table.cells[column("b_bit")] = b_bit;
    table.cells[column("row_no")] = (1..=rows).map(|r| r.to_string()).collect();
    let mut codes: Vec<usize> = (1..=rows).map(|r| 1000 + r).collect();
    counterlab::rng::shuffle(&mut codes, &mut d.0);
    table.cells[column("row_code")] = codes.iter().map(usize::to_string).collect();
    let keys = d.distinct(rows, 100_000_000, 1_000_000_000);
    table.cells[column("row_key")] = keys.iter().map(u64::to_string).collect();
    table
}

/// What `init` (and so `pack check` and `audit`, which read the same findings) made of
/// each of [`COLUMNS`] in one CSV: the rules that flagged it, and whether it was left out.
struct Outcome {
    fired: Vec<[bool; 7]>,
    left_out: Vec<bool>,
    present: Vec<bool>,
}

fn outcome(csv: &str) -> Outcome {
    let options = InitOptions {
        entity: "mother".into(),
        label: "y".into(),
        positive: "1".into(),
        ..Default::default()
    };
    let scaffold: Scaffold = scaffold(
        Path::new("sim.csv"),
        csv.as_bytes(),
        &options,
        &counterlab::pack::LoadLimits::default(),
    )
    .expect("init takes every simulated table");
    let mut fired = vec![[false; 7]; COLUMNS.len()];
    let mut left_out = vec![false; COLUMNS.len()];
    let mut present = vec![false; COLUMNS.len()];
    for suspect in &scaffold.findings.suspects {
        let c = COLUMNS
            .iter()
            .position(|c| c.name == suspect.column)
            .expect("a simulated column");
        fired[c][rule_of(&suspect.suspicion)] = true;
    }
    for (name, column_use) in &scaffold.columns {
        if let Some(c) = COLUMNS.iter().position(|c| c.name == name) {
            present[c] = true;
            left_out[c] = matches!(column_use, ColumnUse::NotUsed(_));
        }
    }
    Outcome {
        fired,
        left_out,
        present,
    }
}

/// Per column, over the tables: how often each rule fired and how often init left the
/// column out; for `cluster` and `mother_in_region` also by id scheme.
#[derive(Default)]
struct Tally {
    tables: usize,
    fired: Vec<[usize; 7]>,
    left_out: Vec<usize>,
    /// Tables where the column has more than `MAX_LEVELS` distinct values.
    many: Vec<usize>,
    /// [column][scheme] = (tables, found by a target rule).
    by_scheme: Vec<[(usize, usize); 4]>,
    /// [cluster format] = (tables, coarser level found).
    by_format: [(usize, usize); 3],
}

fn wilson(hits: usize, n: usize) -> (f64, f64) {
    let (p, n) = (hits as f64 / n as f64, n as f64);
    let z = 1.959_963_984_540_054;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z * libm::sqrt(p * (1.0 - p) / n + z * z / (4.0 * n * n)) / (1.0 + z * z / n);
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

fn rate(hits: usize, n: usize) -> String {
    let (low, high) = wilson(hits, n);
    format!(
        "{hits}/{n} ({:.1}%, {:.1}–{:.1}%)",
        100.0 * hits as f64 / n as f64,
        100.0 * low,
        100.0 * high
    )
}

/// The simulation: `COUNTERLAB_SUSPECT_TABLES` tables (default 240: 60 per id scheme),
/// seeds 0…; each table's honest columns alone through `init` (the false flags: a user's
/// honest table holds no planted column), and the whole table (the hits). Prints the
/// tables of docs/CALIBRATION.md, "Suspect columns".
#[test]
#[ignore = "the calibration of the suspect-column rules: 240 tables through init, prints its tables"]
fn suspect_rules_simulation() {
    let tables: u64 = std::env::var("COUNTERLAB_SUSPECT_TABLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(240);
    let started = std::time::Instant::now();
    let mut tally = Tally {
        fired: vec![[0; 7]; COLUMNS.len()],
        left_out: vec![0; COLUMNS.len()],
        many: vec![0; COLUMNS.len()],
        by_scheme: vec![[(0, 0); 4]; COLUMNS.len()],
        ..Default::default()
    };
    let (mut rows, mut entities) = (Vec::new(), Vec::new());
    for seed in 0..tables {
        let table = simulate(seed);
        rows.push(table.labels.len());
        entities.push(table.mothers.iter().collect::<BTreeSet<_>>().len());
        let honest = outcome(&table.csv(|c| c.targets.is_none()));
        let whole = outcome(&table.csv(|_| true));
        tally.tables += 1;
        for (c, column) in COLUMNS.iter().enumerate() {
            let seen = if column.targets.is_none() {
                &honest
            } else {
                &whole
            };
            assert!(seen.present[c], "{} is a column of the CSV", column.name);
            for rule in 0..RULES.len() {
                tally.fired[c][rule] += usize::from(seen.fired[c][rule]);
            }
            tally.left_out[c] += usize::from(seen.left_out[c]);
            let distinct = table.cells[c].iter().collect::<BTreeSet<_>>().len();
            tally.many[c] += usize::from(distinct > counterlab::suspect::MAX_LEVELS);
            if let Some(targets) = column.targets {
                let found = targets.iter().any(|&t| seen.fired[c][t]);
                let slot = &mut tally.by_scheme[c][table.scheme];
                slot.0 += 1;
                slot.1 += usize::from(found);
                if column.name == "cluster" {
                    let slot = &mut tally.by_format[table.cluster_format];
                    slot.0 += 1;
                    slot.1 += usize::from(found);
                }
            }
        }
    }
    rows.sort_unstable();
    entities.sort_unstable();
    let n = tally.tables;
    println!(
        "{n} tables; rows {}–{} (median {}); mothers {}–{} (median {})\n",
        rows[0],
        rows[n - 1],
        rows[n / 2],
        entities[0],
        entities[n - 1],
        entities[n / 2]
    );
    println!(
        "| column | what | {} | left out by init | tables with > 50 values |",
        RULES.join(" | ")
    );
    println!("|---|---|{}---|---|", "---|".repeat(RULES.len()));
    for (c, column) in COLUMNS.iter().enumerate() {
        let cells: Vec<String> = (0..RULES.len())
            .map(|rule| {
                let count = tally.fired[c][rule];
                let target = column.targets.is_some_and(|t| t.contains(&rule));
                if target {
                    format!("**{count}**")
                } else {
                    count.to_string()
                }
            })
            .collect();
        let kind = if column.targets.is_some() {
            "planted"
        } else {
            "honest"
        };
        println!(
            "| `{}` ({kind}) | {} | {} | {} | {} |",
            column.name,
            column.what,
            cells.join(" | "),
            tally.left_out[c],
            tally.many[c]
        );
    }
    println!("\n| rule | false flags on honest columns (pooled) | worst honest column | hits on the planted columns it is for |");
    println!("|---|---|---|---|");
    for (rule, name) in RULES.iter().enumerate() {
        let honest: Vec<usize> = (0..COLUMNS.len())
            .filter(|&c| COLUMNS[c].targets.is_none())
            .collect();
        let false_flags: usize = honest.iter().map(|&c| tally.fired[c][rule]).sum();
        let worst = honest
            .iter()
            .max_by_key(|&&c| (tally.fired[c][rule], std::cmp::Reverse(c)))
            .copied()
            .unwrap();
        let targets: Vec<usize> = (0..COLUMNS.len())
            .filter(|&c| COLUMNS[c].targets.is_some_and(|t| t.contains(&rule)))
            .collect();
        let hits: usize = targets.iter().map(|&c| tally.fired[c][rule]).sum();
        println!(
            "| `{name}` | {} | `{}` {} | {} |",
            rate(false_flags, honest.len() * n),
            COLUMNS[worst].name,
            rate(tally.fired[worst][rule], n),
            rate(hits, targets.len() * n)
        );
    }
    println!("\n| planted column | {} |", SCHEMES.join(" | "));
    println!("|---|{}", "---|".repeat(SCHEMES.len()));
    for (c, column) in COLUMNS.iter().enumerate() {
        if column.targets.is_none() {
            continue;
        }
        let cells: Vec<String> = tally.by_scheme[c]
            .iter()
            .map(|&(n, found)| format!("{found}/{n}"))
            .collect();
        println!("| `{}` | {} |", column.name, cells.join(" | "));
    }
    println!("\n| `cluster` written as | found |\n|---|---|");
    for (format, &(n, found)) in CLUSTER_FORMATS.iter().zip(&tally.by_format) {
        println!("| {format} | {found}/{n} |");
    }
    println!("\n{:.0} s", started.elapsed().as_secs_f64());
}

/// Births in a Guatemalan survey, mothers as entities (the pattern of `mlmRev::guPrenat`),
/// 120 communities × 3 mothers × 1–3 births, written here so every finding is stated by
/// construction:
/// - `kid`: the birth, 1…n: a different whole number in every row;
/// - `cluster`: the community, 1…120; the mothers are numbered `m0001`… community by
///   community, so in the ids' order each community's mothers are consecutive — a
///   grouping, 120 values (more than a category has);
/// - `ssDist`: the community's distance to a clinic, d(c mod 60) km for community c =
///   0…119, where d is 0…59 in a fixed shuffled order (sorted by [`mix`]): whole numbers
///   0…59, all 60 taken (as dense as an id; the rule before issue 42 dropped it), each
///   shared by communities c and c + 60, so its mothers are not consecutive in the ids'
///   order, and in no rising order along them;
/// - `husEmpl`: the husband's employment, one of 5 texts per mother, (3·m + m / 7) mod 5;
/// - `pcInd81`: the community's indigenous share, continuous;
/// - `TV`: per birth, 3 texts.
///
/// The label mixes a pseudo-random bit of the row with the distance, so both classes
/// occur and no column copies it.
fn guatemala_csv() -> String {
    let employment = [
        "Unskilled",
        "Professional",
        "AgriSelf",
        "AgriEmpl",
        "Skilled",
    ];
    let tv = ["None", "NotDaily", "Daily"];
    let mut distance: Vec<u64> = (0..60).collect();
    distance.sort_by_key(|&k| mix(k));
    let mut csv = String::from("kid,mom,cluster,prenat,husEmpl,TV,pcInd81,ssDist\n");
    let mut kid = 0u64;
    for c in 0..120u64 {
        let dist = distance[(c % 60) as usize];
        let share = ((c * 37) % 101) as f64 / 101.0 + 0.0005;
        for k in 0..3u64 {
            let m = 3 * c + k;
            let emp = employment[((3 * m + m / 7) % 5) as usize];
            for _ in 0..1 + (m % 3) {
                kid += 1;
                let modern = u8::from((super::bit(kid, 9) == 1) ^ (dist > 40));
                csv += &format!(
                    "{kid},m{:04},{},{},{emp},{},{share:.4},{dist}\n",
                    m + 1,
                    c + 1,
                    if modern == 1 { "Modern" } else { "Traditional" },
                    tv[(kid % 3) as usize],
                );
            }
        }
    }
    csv
}

/// A fixed 64-bit mix of `k` (SplitMix64's finaliser).
fn mix(k: u64) -> u64 {
    let mut z = k.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Issue 42 item 8: on the pattern of births in a Guatemalan survey, only `cluster` is a
/// coarser level (left out: 120 values, with the audit to run); the community's distance
/// (`ssDist`, whole numbers as dense as an id) and the husband's employment (`husEmpl`,
/// 5 levels, one per mother) are covariates measured at the community's and the
/// mother's level: features, named in no note and no finding.
#[test]
fn a_community_id_is_a_coarser_level_and_community_and_mother_covariates_are_features() {
    use crate::common::{counterlab, output_json as json, output_text as text, path_arg as s};
    let dir = crate::common::TempDir::new("suspects-guatemala");
    let data = crate::common::write_file(&dir, "births.csv", &guatemala_csv());
    let out = dir.path().join("births");
    let init = counterlab(&[
        "init",
        s(&data),
        "--entity",
        "mom",
        "--label",
        "prenat",
        "--positive",
        "Modern",
        "--out",
        s(&out),
    ]);
    assert_eq!(init.status.code(), Some(0), "{}", text(&init));
    let manifest = std::fs::read_to_string(out.join("pack.toml")).unwrap();
    assert!(
        manifest
            .contains("features = [\n  \"husEmpl\",\n  \"TV\",\n  \"pcInd81\",\n  \"ssDist\",\n]"),
        "{manifest}"
    );
    assert!(
        manifest.contains("#   cluster: a coarser level (or an id that restarts within one): each of the 360 entities has one of its 120 values"),
        "{manifest}"
    );
    assert!(
        manifest.contains("#   kid: an identifier: a different value in each of the"),
        "{manifest}"
    );
    let printed = text(&init);
    assert!(
        printed.contains("note: \"cluster\" is a coarser level"),
        "{printed}"
    );
    assert!(
        printed.contains("audit with --entity mom,cluster"),
        "{printed}"
    );
    for covariate in ["ssDist", "husEmpl", "pcInd81", "TV"] {
        assert!(
            !printed.contains(&format!("\"{covariate}\" is a coarser level")),
            "{covariate}: {printed}"
        );
        assert!(
            !manifest.contains(&format!("#   {covariate}:")),
            "{covariate}: {manifest}"
        );
    }
    // pack check reads the same findings (the columns the manifest does not name, by
    // name): the one coarser level and the birth's number, no other suspect.
    let check = json(&counterlab(&["pack", "check", s(&out), "--json"]));
    let found: Vec<(String, String)> = check["suspect_columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["column"].as_str().unwrap().to_owned(),
                f["kind"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            ("cluster".to_owned(), "coarser_level".to_owned()),
            ("kid".to_owned(), "unique_per_row".to_owned()),
        ],
        "{check}"
    );
}
