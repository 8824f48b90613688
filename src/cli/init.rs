//! `counterlab init`: writes a pack folder for a user's CSV (the library decides what
//! goes in it: `counterlab::init`).

use std::path::PathBuf;

use counterlab::init::{scaffold, ColumnUse, InitOptions};
use counterlab::pack::LoadLimits;

use super::{fail, fail_usage, pack::print_problems, read_input, style, Roles, EXIT_OK};

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
    /// The pack id (default: from the file name).
    #[arg(long)]
    id: Option<String>,
    /// The folder to create (default: ./<id>); it must not exist or be empty.
    #[arg(long)]
    out: Option<PathBuf>,
}

pub(crate) fn command(args: &InitArgs) -> i32 {
    let options = InitOptions {
        entity: args.roles.entity.clone(),
        label: args.roles.label.clone(),
        positive: args.roles.positive.clone(),
        time: args.time.clone(),
        test_column: args.test_column.clone(),
        id: args.id.clone(),
    };
    let limits = LoadLimits::default();
    let bytes = match read_input(&args.data, limits.max_bytes, "") {
        Ok(b) => b,
        Err(code) => return code,
    };
    let scaffold = match scaffold(&args.data, &bytes, &options, &limits) {
        Ok(s) => s,
        Err(e) => return fail(&e),
    };
    let out: PathBuf = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(&scaffold.id));
    if out.exists() && std::fs::read_dir(&out).map_or(true, |mut entries| entries.next().is_some())
    {
        return fail_usage(&format!(
            "{} exists and is not an empty folder: pass --out with a new folder (init never overwrites)",
            out.display()
        ));
    }
    let write = |path: PathBuf, contents: &[u8]| -> Result<(), i32> {
        std::fs::write(&path, contents).map_err(|e| fail_usage(&format!("{}: {e}", path.display())))
    };
    if let Err(e) = std::fs::create_dir_all(out.join("experiments")) {
        return fail_usage(&format!("{}: {e}", out.display()));
    }
    let mut written = vec![out.join("pack.toml"), out.join(&scaffold.fixture_file)];
    if let Err(code) = write(out.join("pack.toml"), scaffold.manifest.as_bytes())
        .and_then(|()| write(out.join(&scaffold.fixture_file), &bytes))
    {
        return code;
    }
    for starter in &scaffold.experiments {
        let path = out.join("experiments").join(&starter.file_name);
        if let Err(code) = write(path.clone(), starter.json.as_bytes()) {
            return code;
        }
        written.push(path);
    }

    outln!("{}", style::bold(&format!("pack {}", scaffold.id)));
    for (name, column_use) in &scaffold.columns {
        let what = match column_use {
            ColumnUse::Role(role) => (*role).to_owned(),
            ColumnUse::Numeric => "feature (numeric)".to_owned(),
            ColumnUse::Categorical(levels) => {
                format!("feature (categorical, {} levels)", levels.len())
            }
            ColumnUse::NotUsed(why) => format!("not used: {why}"),
        };
        outln!("  {:<24} {}", style::safe(name), style::safe(&what));
    }
    for note in &scaffold.notes {
        outln!("note: {}", style::safe(note));
    }
    print_problems(&scaffold.findings.problems());
    for path in &written {
        outln!("wrote {}", path.display());
    }
    let packs = out.display();
    outln!("next:");
    outln!("  counterlab pack check {packs}");
    for name in scaffold.experiments.iter().map(|e| &e.file_name) {
        let stem = name.trim_end_matches(".json");
        outln!(
            "  counterlab run {packs}/experiments/{name} --packs {packs} --out {stem}.payload.json"
        );
        outln!("  counterlab verify {stem}.payload.json --packs {packs}");
    }
    EXIT_OK
}
