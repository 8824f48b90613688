//! `counterlab init`: writes a pack folder for a user's CSV (the library decides what
//! goes in it: `counterlab::init`).

use std::path::{Path, PathBuf};

use counterlab::init::{scaffold, ColumnUse, InitOptions, Scaffold};
use counterlab::pack::TimeKind;
use counterlab::pack_folder;
use counterlab::words::Budget;

use super::{
    pack::print_problems, read_input, style, Exit, FixtureArgs, Outcome, Roles, EXIT_OK, EXIT_USAGE,
};

/// Make a pack folder from your CSV: pack.toml with the fixture's hash, every usable
/// column as a feature (text columns categorical), and starter experiments.
#[derive(clap::Args)]
pub(crate) struct InitArgs {
    /// The CSV (with a header row).
    data: PathBuf,
    #[command(flatten)]
    roles: Roles,
    /// An integer time column (enables the temporal starter experiment).
    #[arg(long)]
    time: Option<String>,
    /// A 0/1 column marking your own test rows (a predefined split).
    #[arg(long)]
    test_column: Option<String>,
    /// The starter experiments' model: `logistic` (C = 1) or `gbdt` (gradient-boosted
    /// trees with scikit-learn's defaults, docs/MODELS.md).
    #[arg(long, value_parser = counterlab::experiment::ModelSpec::parse_family, default_value = "logistic")]
    model: counterlab::experiment::ModelSpec,
    /// What the time column means: `calendar` (one clock for all entities) or
    /// `order_within_entity` (a visit number). Default: guessed from its name, with a note.
    #[arg(long, value_parser = TimeKind::parse)]
    time_kind: Option<TimeKind>,
    /// Keep this column as a feature although init finds it suspect (a label proxy, an
    /// identifier, a clock); repeat the flag or separate names with commas.
    #[arg(long, value_delimiter = ',')]
    keep: Vec<String>,
    /// Leave this column out of the features; repeat the flag or separate with commas.
    #[arg(long, value_delimiter = ',')]
    drop: Vec<String>,
    /// Exactly these columns as features, in this order (comma-separated or repeated).
    #[arg(long, value_delimiter = ',')]
    features: Option<Vec<String>>,
    /// The texts read as a missing value besides the empty cell, comma-separated (e.g.
    /// `NA,,null`; `''` for the empty cell only). Default: NA, nan, NULL, N/A, <NA>, NaT,
    /// #N/A, in any case; `none` is a level unless listed here.
    #[arg(long, value_parser = counterlab::pack::MissingValues::parse)]
    missing_values: Option<counterlab::pack::MissingValues>,
    /// The pack id (default: from the file name).
    #[arg(long)]
    id: Option<String>,
    /// The folder to create (default: ./<id>); it must not exist or be empty.
    #[arg(long)]
    out: Option<PathBuf>,
    #[command(flatten)]
    fixture: FixtureArgs,
}

pub(crate) fn command(args: &InitArgs) -> Outcome {
    let options = InitOptions {
        entity: args.roles.entity.clone(),
        label: args.roles.label.clone(),
        positive: args.roles.positive.clone(),
        time: args.time.clone(),
        test_column: args.test_column.clone(),
        id: args.id.clone(),
        time_kind: args.time_kind,
        keep: args.keep.clone(),
        drop: args.drop.clone(),
        features: args.features.clone(),
        model: args.model.clone(),
        missing_values: args.missing_values.clone().unwrap_or_default(),
    };
    let limits = args.fixture.limits()?;
    let bytes = read_input(&args.data, limits.max_bytes, Budget::FixtureBytes)?;
    let scaffold = scaffold(&args.data, &bytes, &options, &limits)?;
    let out: PathBuf = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(&scaffold.id));
    let written = write_pack(&out, &scaffold, &bytes)?;
    print_summary(&scaffold, &written);
    print_next_steps(&out, &scaffold);
    Ok(EXIT_OK)
}

/// Writes the pack folder `out` (counterlab::pack_folder): a folder that is not free is a
/// usage error naming --out, and so is a file that cannot be written (exit 2).
fn write_pack(out: &Path, scaffold: &Scaffold, fixture: &[u8]) -> Result<Vec<PathBuf>, Exit> {
    if !pack_folder::is_free(out) {
        return Err(Exit::usage(&format!(
            "{} exists and is not an empty folder: pass --out with a new folder (init never overwrites), and --id with a new id if both packs go in one packs folder",
            out.display()
        )));
    }
    let written = pack_folder::write(out, scaffold, fixture)
        .map_err(|e| Exit::from(e).with_code(EXIT_USAGE))?;
    // Two packs of one CSV beside each other (another entity, the same model) share the
    // default id: `packs` and `verify --packs` on their folder would refuse both. Said
    // now, with the flag that fixes it; a folder used alone is fine.
    if let Some(sibling) = sibling_with_id(out, &scaffold.id) {
        print_problems(&[format!(
            "{} already has pack id {:?}: with both in one packs folder, `counterlab packs` and `verify --packs` refuse the two; run init again with --id and another id (e.g. --id {}-2)",
            sibling.join("pack.toml").display(),
            scaffold.id,
            scaffold.id
        )]);
    }
    Ok(written)
}

/// A pack folder beside `out` (in its parent folder, where `--packs` would discover both)
/// whose `pack.toml` has the id `id`. An unreadable `pack.toml` is left to `packs`.
fn sibling_with_id(out: &Path, id: &str) -> Option<PathBuf> {
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut siblings: Vec<PathBuf> = std::fs::read_dir(parent)
        .ok()?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.file_name() != out.file_name())
        .collect();
    siblings.sort();
    siblings.into_iter().find(|dir| {
        std::fs::read_to_string(dir.join("pack.toml"))
            .ok()
            .and_then(|text| text.parse::<toml::Table>().ok())
            .is_some_and(|t| t.get("id").and_then(toml::Value::as_str) == Some(id))
    })
}

/// What each column became, the notes and problems, and the files written.
fn print_summary(scaffold: &Scaffold, written: &[PathBuf]) {
    outln!("{}", style::bold(&format!("pack {}", scaffold.id)));
    for (name, column_use) in &scaffold.columns {
        let what = match column_use {
            ColumnUse::Role(role) => (*role).to_owned(),
            ColumnUse::Numeric => "feature (numeric)".to_owned(),
            ColumnUse::Categorical(levels) => {
                format!("feature (categorical, {} levels)", levels.len())
            }
            ColumnUse::NotUsed(why) => format!("not used: {}", why.render(&style::CliWords)),
        };
        outln!("  {:<24} {}", style::safe(name), style::safe(&what));
    }
    let features: Vec<&str> = scaffold
        .columns
        .iter()
        .filter(|(_, u)| matches!(u, ColumnUse::Numeric | ColumnUse::Categorical(_)))
        .map(|(n, _)| n.as_str())
        .collect();
    outln!(
        "features ({}): {}",
        features.len(),
        style::safe(&features.join(", "))
    );
    for note in &scaffold.notes {
        outln!("note: {}", style::safe(&note.render(&style::CliWords)));
    }
    print_problems(&scaffold.findings.problems());
    for path in written {
        outln!("wrote {}", path.display());
    }
}

/// The commands that check the pack and run and verify each starter experiment.
fn print_next_steps(out: &Path, scaffold: &Scaffold) {
    outln!("next:");
    for line in pack_folder::next_commands(out, scaffold) {
        outln!("  {line}");
    }
}
