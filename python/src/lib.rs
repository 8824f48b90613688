//! `counterlab._native`: the counterlab crate for Python.
//!
//! A thin binding, like the CLI: every number comes from the counterlab library, through
//! the same functions the CLI calls (`counterlab::document::verify_document`,
//! `counterlab::metrics_report::metrics_json`, `counterlab::audit`, …), so a report from
//! Python has the same bytes and the same hash as the CLI's for the same input. Results
//! cross as JSON text (parsed by `counterlab/__init__.py`); errors as the exceptions of
//! one family, `counterlab.Error`, with the file, row, column or JSON path as attributes.
//! The GIL is released (`Python::detach`) while the kernel works: other Python threads
//! run, and a thread pool of verifications uses every core.

use std::path::{Path, PathBuf};

use pyo3::buffer::PyBuffer;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use serde_json::{json, Value};

use counterlab::audit::{audit as audit_split, AuditOptions};
use counterlab::capsule::BuildOptions;
use counterlab::document::{read_document, verify_document};
use counterlab::experiment::{ModelSpec, MAX_EXPERIMENT_BYTES};
use counterlab::init::{scaffold, ColumnUse, InitOptions, Scaffold};
use counterlab::metrics_report::{metrics_json, ColumnNames, Predictions};
use counterlab::pack::{LoadLimits, TimeKind};
use counterlab::pack_folder;
use counterlab::prediction::{Prediction, MAX_PREDICTION_BYTES};
use counterlab::verify::{Choices, VerifyOptions, MAX_PAYLOAD_BYTES_LIMIT};
use counterlab::words::{Budget, Opt, Words};
use counterlab::{ErrorKind, Experiment, Packs, RunOptions};

create_exception!(
    counterlab,
    Error,
    PyException,
    "Every error counterlab raises: the kernel could not even look (a file that cannot be read, an invalid pack, experiment or data). Verdicts are never errors: a malformed payload gets a REJECTED report. Attributes: path, row, column, json_path (None when they do not apply)."
);
create_exception!(
    counterlab,
    IoError,
    Error,
    "A file or folder could not be read or written."
);
create_exception!(
    counterlab,
    PackError,
    Error,
    "A pack's manifest or layout is invalid."
);
create_exception!(
    counterlab,
    DataError,
    Error,
    "A cell, row or column of a table could not be used (row is 1-based: the header is row 0)."
);
create_exception!(
    counterlab,
    ExperimentError,
    Error,
    "An experiment (or prediction) is invalid; json_path says where."
);
create_exception!(
    counterlab,
    UnknownPackError,
    Error,
    "No pack with this id was found in the packs folder."
);
create_exception!(
    counterlab,
    OverBudgetError,
    Error,
    "An input is larger than a budget allows; nothing past the budget was read."
);
create_exception!(
    counterlab,
    UsageError,
    Error,
    "An argument is out of its range or of the wrong kind."
);

/// The Python package's words for an option a library message names: its keyword
/// argument, with the value the message gives it (`keep=["x"]`, `test=`,
/// `max_fixture_bytes=41234567`). The library never spells a flag (`counterlab::words`).
struct PythonWords;

impl Words for PythonWords {
    fn option(&self, opt: Opt, value: Option<&str>) -> String {
        let name = match opt {
            Opt::TestColumn => "test",
            other => other.name(),
        };
        let quoted = |v: &str| serde_json::to_string(v).expect("a string encodes");
        let list = |v: &str| {
            let items: Vec<String> = v.split(',').map(quoted).collect();
            format!("[{}]", items.join(", "))
        };
        match value {
            None => format!("{name}="),
            Some(v) => match opt {
                Opt::Keep | Opt::Drop | Opt::Features | Opt::MissingValues => {
                    format!("{name}={}", list(v))
                }
                Opt::Entity if v.contains(',') => format!("{name}={}", list(v)),
                // Numbers, a placeholder (`DIR`) and a label already quoted: as they are.
                Opt::MaxFixtureBytes
                | Opt::MaxColumns
                | Opt::MaxRows
                | Opt::MaxPayloadBytes
                | Opt::MaxWork
                | Opt::MaxDesignBytes
                | Opt::MaxBytes
                | Opt::Margin
                | Opt::Packs
                | Opt::Positive => format!("{name}={v}"),
                _ => format!("{name}={}", quoted(v)),
            },
        }
    }
}

/// A counterlab error as the exception of its kind, with where it is as attributes; its
/// message names options as this package's keyword arguments ([`PythonWords`]).
fn raise(py: Python<'_>, error: &counterlab::Error) -> PyErr {
    let message = error.render(&PythonWords);
    let (err, path, row, column, json_path) = match error.kind() {
        ErrorKind::Io { path, .. } => (
            IoError::new_err(message),
            Some(path.clone()),
            None,
            None,
            None,
        ),
        ErrorKind::Pack { path, .. } => (
            PackError::new_err(message),
            Some(path.clone()),
            None,
            None,
            None,
        ),
        ErrorKind::Data {
            path, row, column, ..
        } => (
            DataError::new_err(message),
            Some(path.clone()),
            *row,
            column.clone(),
            None,
        ),
        ErrorKind::Experiment { path, .. } => (
            ExperimentError::new_err(message),
            None,
            None,
            None,
            Some(path.to_string()),
        ),
        ErrorKind::UnknownPack { .. } => {
            (UnknownPackError::new_err(message), None, None, None, None)
        }
        ErrorKind::OverBudget(over) => (
            OverBudgetError::new_err(message),
            Some(over.path.clone()),
            None,
            None,
            None,
        ),
        ErrorKind::NoPacksFolder { looked, .. } => (
            IoError::new_err(message),
            Some(looked.clone()),
            None,
            None,
            None,
        ),
        _ => (Error::new_err(message), None, None, None, None),
    };
    let value = err.value(py);
    let path = path.map(|p| p.display().to_string());
    // Setting attributes on a fresh exception instance cannot fail in practice; if it
    // did, the message still says everything.
    let _ = value.setattr("path", path);
    let _ = value.setattr("row", row);
    let _ = value.setattr("column", column);
    let _ = value.setattr("json_path", json_path);
    err
}

/// `raise` with the file the error is about named first (as the CLI's `fail_at`).
fn raise_at(py: Python<'_>, file: &str, error: &counterlab::Error) -> PyErr {
    let err = raise(py, error);
    let value = err.value(py);
    let message = format!("{file}: {}", error.render(&PythonWords));
    let _ = value.setattr("args", (message,));
    if matches!(error.kind(), ErrorKind::Experiment { .. }) {
        let _ = value.setattr("path", file);
    }
    err
}

/// Runs `work` with the GIL released (other Python threads run meanwhile); its error
/// becomes the exception of its kind.
fn kernel<T: Send>(
    py: Python<'_>,
    work: impl FnOnce() -> counterlab::Result<T> + Send,
) -> PyResult<T> {
    py.detach(work).map_err(|e| raise(py, &e))
}

fn usage(message: String) -> PyErr {
    UsageError::new_err(message)
}

/// A document given as bytes, or as a path to read within `budget` bytes.
enum Input {
    Bytes(Vec<u8>),
    Path(PathBuf),
}

impl Input {
    fn from(object: &Bound<'_, PyAny>) -> PyResult<Input> {
        if let Ok(bytes) = object.cast::<PyBytes>() {
            return Ok(Input::Bytes(bytes.as_bytes().to_vec()));
        }
        object.extract::<PathBuf>().map(Input::Path).map_err(|_| {
            usage(format!(
                "expected bytes or a path, found {}",
                object
                    .get_type()
                    .name()
                    .map_or_else(|_| "?".to_owned(), |n| n.to_string())
            ))
        })
    }

    /// How errors name it: the path, or `<bytes>`.
    fn name(&self) -> String {
        match self {
            Input::Bytes(_) => "<bytes>".to_owned(),
            Input::Path(p) => p.display().to_string(),
        }
    }

    /// The bytes, reading the file within `budget` of the kind `kind` (an error past it).
    fn read(self, budget: u64, kind: Budget) -> counterlab::Result<Vec<u8>> {
        match self {
            Input::Bytes(bytes) => Ok(bytes),
            Input::Path(path) => counterlab::input::read_within(&path, budget, kind),
        }
    }
}

fn threads_or_default(threads: Option<usize>) -> PyResult<usize> {
    match threads {
        Some(0) => Err(usage("threads must be at least 1".to_owned())),
        Some(t) => Ok(t),
        None => Ok(RunOptions::default().threads),
    }
}

fn text(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).expect("counterlab's results encode as JSON")
}

/// Runs an experiment (bytes or path) on its pack; returns (payload JSON, pack problems).
#[pyfunction]
#[pyo3(signature = (experiment, packs=None, threads=None, max_fixture_bytes=None, max_columns=None, max_rows=None))]
#[allow(clippy::too_many_arguments)]
fn run(
    py: Python<'_>,
    experiment: &Bound<'_, PyAny>,
    packs: Option<PathBuf>,
    threads: Option<usize>,
    max_fixture_bytes: Option<u64>,
    max_columns: Option<u64>,
    max_rows: Option<u64>,
) -> PyResult<(String, Vec<String>)> {
    let limits = limits(max_fixture_bytes, max_columns, max_rows)?;
    let input = Input::from(experiment)?;
    let name = input.name();
    let options = RunOptions {
        threads: threads_or_default(threads)?,
    };
    let outcome = py.detach(move || -> Result<_, (bool, counterlab::Error)> {
        let bytes = input
            .read(MAX_EXPERIMENT_BYTES, Budget::Fixed("an experiment file"))
            .map_err(|e| (false, e))?;
        let experiment = Experiment::from_json(&bytes).map_err(|e| (true, e))?;
        let pack =
            &one_pack(packs.as_deref(), &experiment.pack, &limits).map_err(|e| (false, e))?;
        let problems =
            counterlab::pack::check::Findings::of(pack.table(), &pack.manifest().data).problems();
        let payload = counterlab::run_with(pack, &experiment, &options).map_err(|e| (true, e))?;
        Ok((payload.to_json_pretty().map_err(|e| (false, e))?, problems))
    });
    outcome.map_err(|(at, e)| {
        if at {
            raise_at(py, &name, &e)
        } else {
            raise(py, &e)
        }
    })
}

/// The verify options, checked against their documented ranges (docs/VERDICTS.md).
fn verify_options(choices: Choices, threads: Option<usize>) -> PyResult<VerifyOptions> {
    let mut options = choices
        .checked(str::to_owned)
        .map_err(|e| usage(e.to_string()))?;
    options.threads = threads_or_default(threads)?;
    Ok(options)
}

/// Verifies a payload, boundary map or capsule (bytes or path); returns the report JSON.
#[pyfunction]
#[pyo3(signature = (document, packs=None, permutations=None, observe=false, seed=None, alpha=None, max_payload_bytes=None, max_work=None, threads=None, max_design_bytes=None, max_fixture_bytes=None, max_columns=None, max_rows=None))]
#[allow(clippy::too_many_arguments)]
fn verify(
    py: Python<'_>,
    document: &Bound<'_, PyAny>,
    packs: Option<PathBuf>,
    permutations: Option<usize>,
    observe: bool,
    seed: Option<u64>,
    alpha: Option<f64>,
    max_payload_bytes: Option<usize>,
    max_work: Option<u64>,
    threads: Option<usize>,
    max_design_bytes: Option<u64>,
    max_fixture_bytes: Option<u64>,
    max_columns: Option<u64>,
    max_rows: Option<u64>,
) -> PyResult<String> {
    let input = Input::from(document)?;
    let choices = Choices {
        permutations,
        observe,
        seed,
        alpha,
        max_payload_bytes,
        max_work,
        max_design_bytes,
    };
    let mut options = verify_options(choices, threads)?;
    let given = max_fixture_bytes.is_some() || max_columns.is_some() || max_rows.is_some();
    options.fixture = limits(max_fixture_bytes, max_columns, max_rows)?;
    // An option given beside a capsule is a UsageError, as any bad argument.
    let answer = kernel(py, move || {
        let bytes = match input {
            Input::Bytes(bytes) => bytes,
            Input::Path(path) => read_document(&path, &options)?,
        };
        if let Err(e) =
            counterlab::document::refuse_choices_for_capsule(&bytes, &choices, str::to_owned)
        {
            return Ok(Err(e.to_string()));
        }
        let verified = verify_document(&bytes, packs.as_deref(), &options)?;
        if given && matches!(verified, counterlab::document::Verified::Capsule(_)) {
            return Ok(Err("max_fixture_bytes, max_columns and max_rows cannot be given for a Proof Capsule: it is re-verified with the options it records ($.options); leave them out".to_owned()));
        }
        Ok(Ok(text(&verified.to_json())))
    })?;
    answer.map_err(usage)
}

/// Checks a revision chain (2 or 3 payloads); returns the revision report JSON.
#[pyfunction]
#[pyo3(signature = (payloads, packs=None, permutations=None, threads=None, max_fixture_bytes=None, max_columns=None, max_rows=None))]
#[allow(clippy::too_many_arguments)]
fn verify_revision(
    py: Python<'_>,
    payloads: Vec<Bound<'_, PyAny>>,
    packs: Option<PathBuf>,
    permutations: Option<usize>,
    threads: Option<usize>,
    max_fixture_bytes: Option<u64>,
    max_columns: Option<u64>,
    max_rows: Option<u64>,
) -> PyResult<String> {
    if !(2..=3).contains(&payloads.len()) {
        return Err(usage(format!(
            "a revision chain is 2 or 3 payloads (before, after[, after2]), found {}",
            payloads.len()
        )));
    }
    let inputs = payloads
        .iter()
        .map(|p| Input::from(p))
        .collect::<PyResult<Vec<_>>>()?;
    let choices = Choices {
        permutations,
        ..Choices::default()
    };
    let mut options = verify_options(choices, threads)?;
    options.fixture = limits(max_fixture_bytes, max_columns, max_rows)?;
    kernel(py, move || {
        let mut documents = Vec::with_capacity(inputs.len());
        for input in inputs {
            documents.push(match input {
                Input::Bytes(bytes) => bytes,
                Input::Path(path) => read_document(&path, &options)?,
            });
        }
        let last = documents.last().expect("2 or 3 payloads");
        let named = counterlab::document::named_packs(last, options.max_payload_bytes);
        let only: Vec<&str> = named.iter().map(String::as_str).collect();
        let packs = Packs::open_folder(packs.as_deref(), Some(&only), &options.fixture)?;
        let slices: Vec<&[u8]> = documents.iter().map(Vec::as_slice).collect();
        Ok(text(
            &counterlab::revision::verify_revision(&slices, &packs, &options).to_json(),
        ))
    })
}

/// A 1-D buffer of `T` (a numpy array of that dtype) copied out.
fn column<T: pyo3::buffer::Element + Copy>(
    py: Python<'_>,
    object: &Bound<'_, PyAny>,
    name: &str,
) -> PyResult<Vec<T>> {
    let buffer = PyBuffer::<T>::get(object)
        .map_err(|e| usage(format!("{name}: not a 1-D numeric array ({e})")))?;
    if buffer.dimensions() != 1 {
        return Err(usage(format!(
            "{name}: expected a 1-D array, found {} dimensions",
            buffer.dimensions()
        )));
    }
    buffer.to_vec(py)
}

/// Metrics of scored rows; returns the `counterlab metrics --json` object as JSON.
#[pyfunction]
#[pyo3(signature = (labels, scores, scores2, entities, threshold, positive))]
fn metrics(
    py: Python<'_>,
    labels: &Bound<'_, PyAny>,
    scores: &Bound<'_, PyAny>,
    scores2: Option<&Bound<'_, PyAny>>,
    entities: Option<Vec<String>>,
    threshold: f64,
    positive: String,
) -> PyResult<String> {
    if !threshold.is_finite() {
        return Err(usage("threshold must be a finite number".to_owned()));
    }
    let labels: Vec<bool> = column::<u8>(py, labels, "y_true")?
        .into_iter()
        .map(|l| l != 0)
        .collect();
    let scores = column::<f64>(py, scores, "y_score")?;
    let scores2 = scores2
        .map(|s| column::<f64>(py, s, "y_score2"))
        .transpose()?;
    py.detach(move || {
        let names = ColumnNames {
            label: "y_true",
            score: "y_score",
            score2: "y_score2",
            entity: "entity",
            positive: &positive,
        };
        // Every error here is about the arguments (lengths, non-finite scores).
        let predictions =
            Predictions::from_columns(labels, scores, scores2, entities.as_deref(), &names)
                .map_err(|e| e.to_string())?;
        Ok(text(&metrics_json(&predictions, threshold)))
    })
    .map_err(usage)
}

/// Audits the split of a CSV (its bytes, named `name` in messages, or a path read within
/// the fixture budget); returns `counterlab.audit/1`.
#[pyfunction]
#[pyo3(signature = (data, name, entity, label, positive, test, time=None, threads=None, out=None, seed=1, margin=None, time_kind=None, more_entities=Vec::new(), model=None, missing_values=None, max_fixture_bytes=None, max_columns=None, max_rows=None, keep=Vec::new(), drop=Vec::new(), features=None))]
#[allow(clippy::too_many_arguments)]
fn audit(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    name: String,
    entity: String,
    label: String,
    positive: String,
    test: String,
    time: Option<String>,
    threads: Option<usize>,
    out: Option<PathBuf>,
    seed: u64,
    margin: Option<f64>,
    time_kind: Option<String>,
    more_entities: Vec<String>,
    model: Option<String>,
    missing_values: Option<String>,
    max_fixture_bytes: Option<u64>,
    max_columns: Option<u64>,
    max_rows: Option<u64>,
    keep: Vec<String>,
    drop: Vec<String>,
    features: Option<Vec<String>>,
) -> PyResult<String> {
    let input = Input::from(data)?;
    let limits = limits(max_fixture_bytes, max_columns, max_rows)?;
    // The audit verifies its own payload within the table budgets it read the data with.
    let verify_options = VerifyOptions {
        threads: threads_or_default(threads)?,
        fixture: limits,
        ..VerifyOptions::default()
    };
    let options = AuditOptions {
        entity,
        label,
        positive,
        test_column: test.clone(),
        time,
        time_kind: time_kind.as_deref().map(parse_time_kind).transpose()?,
        more_entities,
        seed,
        margin,
        model: parse_model(model.as_deref())?,
        missing_values: parse_missing_values(missing_values.as_deref())?,
        keep,
        drop,
        features,
    };
    kernel(py, move || {
        let csv = read_csv(input, &name, &limits)?;
        let audit = audit_split(Path::new(&name), &csv, &options, &limits, &verify_options)?;
        if let Some(out) = &out {
            audit.write_pack(out, &csv)?;
        }
        Ok(text(&audit.to_json(&name, &test)))
    })
}

/// A CSV's bytes: given (a frame written as CSV, named `name`), or read from a path as the
/// CLI reads it (regular files only), within the fixture budget.
fn read_csv(input: Input, name: &str, limits: &LoadLimits) -> counterlab::Result<Vec<u8>> {
    match input {
        Input::Path(path) => {
            counterlab::input::read_within(&path, limits.max_bytes, Budget::FixtureBytes)
        }
        Input::Bytes(bytes) if bytes.len() as u64 > limits.max_bytes => {
            Err(counterlab::Error::over_budget(
                name,
                Budget::FixtureBytes,
                limits.max_bytes,
                Some(bytes.len() as u64),
            ))
        }
        Input::Bytes(bytes) => Ok(bytes),
    }
}

/// The table budgets (`max_fixture_bytes`, `max_columns`, `max_rows`, as the CLI's
/// `--max-fixture-bytes`, `--max-columns`, `--max-rows`): the defaults, with the ones
/// given; a value outside its range is a UsageError naming it.
fn limits(
    max_fixture_bytes: Option<u64>,
    max_columns: Option<u64>,
    max_rows: Option<u64>,
) -> PyResult<LoadLimits> {
    let within = |value: Option<u64>, name: &str, most: u64| match value {
        Some(v) if !(1..=most).contains(&v) => {
            Err(usage(format!("{name} must lie in 1..={most}, found {v}")))
        }
        other => Ok(other),
    };
    let mut limits = LoadLimits::default();
    if let Some(v) = within(
        max_fixture_bytes,
        "max_fixture_bytes",
        LoadLimits::MAX_BYTES_LIMIT,
    )? {
        limits.max_bytes = v;
    }
    if let Some(v) = within(
        max_columns,
        "max_columns",
        LoadLimits::MAX_COLUMNS_LIMIT as u64,
    )? {
        limits.max_columns = v as usize;
    }
    if let Some(v) = within(max_rows, "max_rows", LoadLimits::MAX_ROWS_LIMIT as u64)? {
        limits.max_rows = v as usize;
    }
    Ok(limits)
}

/// The texts read as missing (`missing_values`, comma-separated as the CLI's
/// `--missing-values`), or the default.
fn parse_missing_values(text: Option<&str>) -> PyResult<counterlab::pack::MissingValues> {
    text.map_or(Ok(Default::default()), |t| {
        counterlab::pack::MissingValues::parse(t)
            .map_err(|why| usage(format!("missing_values: {why}")))
    })
}

/// A model family by name (default logistic), as the CLI's model option reads it.
fn parse_model(name: Option<&str>) -> PyResult<ModelSpec> {
    ModelSpec::parse_family(name.unwrap_or("logistic"))
        .map_err(|why| usage(format!("model: {why}")))
}

/// `time_kind` as pack.toml spells it.
fn parse_time_kind(text: &str) -> PyResult<TimeKind> {
    TimeKind::parse(text).map_err(|why| usage(format!("time_kind: {why}")))
}

/// Writes a pack folder for a CSV (its bytes, named `name`: the fixture's file name, or a
/// path), as `counterlab init`; returns what was decided and written, as JSON.
#[pyfunction]
#[pyo3(signature = (data, name, entity, label, positive, out, time=None, time_kind=None, test=None, id=None, keep=Vec::new(), drop=Vec::new(), features=None, model=None, missing_values=None, max_fixture_bytes=None, max_columns=None, max_rows=None))]
#[allow(clippy::too_many_arguments)]
fn init(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    name: String,
    entity: String,
    label: String,
    positive: String,
    out: PathBuf,
    time: Option<String>,
    time_kind: Option<String>,
    test: Option<String>,
    id: Option<String>,
    keep: Vec<String>,
    drop: Vec<String>,
    features: Option<Vec<String>>,
    model: Option<String>,
    missing_values: Option<String>,
    max_fixture_bytes: Option<u64>,
    max_columns: Option<u64>,
    max_rows: Option<u64>,
) -> PyResult<String> {
    let input = Input::from(data)?;
    let limits = limits(max_fixture_bytes, max_columns, max_rows)?;
    let options = InitOptions {
        entity,
        label,
        positive,
        time,
        test_column: test,
        id,
        time_kind: time_kind.as_deref().map(parse_time_kind).transpose()?,
        keep,
        drop,
        features,
        model: parse_model(model.as_deref())?,
        missing_values: parse_missing_values(missing_values.as_deref())?,
    };
    kernel(py, move || {
        let path = match &input {
            Input::Path(path) => path.clone(),
            Input::Bytes(_) => PathBuf::from(&name),
        };
        let csv = read_csv(input, &name, &limits)?;
        let scaffold = scaffold(&path, &csv, &options, &limits)?;
        let written = pack_folder::write(&out, &scaffold, &csv)?;
        Ok(text(&init_json(&out, &scaffold, &written)))
    })
}

/// What `init` decided and wrote: each column's use, the notes and problems, the files
/// and the next steps (as the CLI prints them).
fn init_json(out: &Path, scaffold: &Scaffold, written: &[PathBuf]) -> Value {
    let shown = |p: &Path| p.display().to_string();
    let columns: Vec<Value> = scaffold
        .columns
        .iter()
        .map(|(name, column_use)| match column_use {
            ColumnUse::Role(role) => json!({ "name": name, "use": role }),
            ColumnUse::Numeric => json!({ "name": name, "use": "numeric" }),
            ColumnUse::Categorical(levels) => {
                json!({ "name": name, "use": "categorical", "levels": levels })
            }
            ColumnUse::NotUsed(why) => {
                json!({ "name": name, "use": "not used", "why": why.render(&PythonWords) })
            }
        })
        .collect();
    let steps: Vec<Value> = pack_folder::next_steps(out, scaffold)
        .iter()
        .map(|s| json!({ "experiment": shown(&s.experiment), "payload": shown(&s.payload) }))
        .collect();
    json!({
        "id": scaffold.id,
        "out": shown(out),
        "fixture_file": scaffold.fixture_file,
        "columns": columns,
        "notes": scaffold.notes.iter().map(|n| n.render(&PythonWords)).collect::<Vec<_>>(),
        "budgets": pack_folder::budgets_needed(scaffold)
            .into_iter()
            .map(|(opt, value)| (opt.name().to_owned(), json!(value)))
            .collect::<serde_json::Map<_, _>>(),
        "problems": scaffold.findings.problems(),
        "files": written.iter().map(|p| shown(p)).collect::<Vec<_>>(),
        "next_steps": steps,
        "cli": pack_folder::next_commands(out, scaffold),
    })
}

/// The one pack `id` of the packs folder, its fixture loaded within `limits` (as the
/// CLI's commands on one pack).
fn one_pack(
    packs: Option<&Path>,
    id: &str,
    limits: &LoadLimits,
) -> counterlab::Result<counterlab::Pack> {
    Packs::open_pack(packs, id, limits)
}

/// A pack's boundary map; returns `counterlab.boundary/1` JSON.
#[pyfunction]
#[pyo3(signature = (pack, packs=None, threads=None, max_fixture_bytes=None, max_columns=None, max_rows=None))]
fn boundary(
    py: Python<'_>,
    pack: String,
    packs: Option<PathBuf>,
    threads: Option<usize>,
    max_fixture_bytes: Option<u64>,
    max_columns: Option<u64>,
    max_rows: Option<u64>,
) -> PyResult<String> {
    let threads = threads_or_default(threads)?;
    let limits = limits(max_fixture_bytes, max_columns, max_rows)?;
    kernel(py, move || {
        let map =
            counterlab::boundary::compute(&one_pack(packs.as_deref(), &pack, &limits)?, threads)?;
        Ok(text(&map))
    })
}

/// Scores a choice in a pack's transfer task; returns `counterlab.transfer/1` JSON.
#[pyfunction]
#[pyo3(signature = (pack, choice, packs=None, threads=None, max_fixture_bytes=None, max_columns=None, max_rows=None))]
#[allow(clippy::too_many_arguments)]
fn transfer(
    py: Python<'_>,
    pack: String,
    choice: String,
    packs: Option<PathBuf>,
    threads: Option<usize>,
    max_fixture_bytes: Option<u64>,
    max_columns: Option<u64>,
    max_rows: Option<u64>,
) -> PyResult<String> {
    let threads = threads_or_default(threads)?;
    let limits = limits(max_fixture_bytes, max_columns, max_rows)?;
    kernel(py, move || {
        let pack = &one_pack(packs.as_deref(), &pack, &limits)?;
        counterlab::transfer::check_choice(pack, &choice)?;
        Ok(text(&counterlab::transfer::evaluate(
            pack,
            Some(&choice),
            threads,
        )?))
    })
}

/// Reads a prediction (bytes or path); its errors name the file.
fn read_prediction(py: Python<'_>, object: &Bound<'_, PyAny>) -> PyResult<Prediction> {
    let input = Input::from(object)?;
    let name = input.name();
    let bytes = input
        .read(MAX_PREDICTION_BYTES, Budget::Fixed("a prediction"))
        .map_err(|e| raise(py, &e))?;
    Prediction::from_json(&bytes).map_err(|e| raise_at(py, &name, &e))
}

/// The fixed selector; returns `counterlab.selection/1` JSON.
#[pyfunction]
#[pyo3(signature = (prediction, candidates, packs=None, max_fixture_bytes=None, max_columns=None, max_rows=None))]
fn select(
    py: Python<'_>,
    prediction: &Bound<'_, PyAny>,
    candidates: Vec<PathBuf>,
    packs: Option<PathBuf>,
    max_fixture_bytes: Option<u64>,
    max_columns: Option<u64>,
    max_rows: Option<u64>,
) -> PyResult<String> {
    let prediction = read_prediction(py, prediction)?;
    let limits = limits(max_fixture_bytes, max_columns, max_rows)?;
    kernel(py, move || {
        let pack = &one_pack(packs.as_deref(), &prediction.pack.id, &limits)?;
        let candidates = counterlab::select::read_candidates(pack, &candidates)?;
        Ok(text(
            &counterlab::select::select(pack, &prediction, &candidates).to_json(),
        ))
    })
}

/// Builds a Proof Capsule; returns `counterlab.capsule/1` JSON.
#[pyfunction]
#[pyo3(signature = (prediction, candidates, revisions, boundary, packs=None, threads=None, max_fixture_bytes=None, max_columns=None, max_rows=None))]
#[allow(clippy::too_many_arguments)]
fn build_capsule(
    py: Python<'_>,
    prediction: &Bound<'_, PyAny>,
    candidates: Vec<PathBuf>,
    revisions: Vec<Bound<'_, PyAny>>,
    boundary: bool,
    packs: Option<PathBuf>,
    threads: Option<usize>,
    max_fixture_bytes: Option<u64>,
    max_columns: Option<u64>,
    max_rows: Option<u64>,
) -> PyResult<String> {
    let limits = limits(max_fixture_bytes, max_columns, max_rows)?;
    let prediction = read_prediction(py, prediction)?;
    let revisions = revisions
        .iter()
        .map(|r| Input::from(r))
        .collect::<PyResult<Vec<_>>>()?;
    let threads = threads_or_default(threads)?;
    kernel(py, move || {
        let packs = Packs::open_folder(
            packs.as_deref(),
            Some(&[prediction.pack.id.as_str()]),
            &limits,
        )?;
        let pack = packs.get(&prediction.pack.id)?;
        let candidates = counterlab::select::read_candidates(pack, &candidates)?;
        let revisions = revisions
            .into_iter()
            .map(|r| {
                r.read(
                    MAX_PAYLOAD_BYTES_LIMIT as u64,
                    Budget::Fixed("a revision payload"),
                )
            })
            .collect::<counterlab::Result<Vec<_>>>()?;
        let options = BuildOptions {
            boundary,
            revisions,
            verify: VerifyOptions {
                threads,
                fixture: limits,
                ..VerifyOptions::default()
            },
        };
        let capsule: Value =
            counterlab::capsule::build(&packs, &prediction, &candidates, &options)?;
        Ok(text(&capsule))
    })
}

/// The extension module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    // Every instance has the four attributes (None unless its error sets them).
    let base = py.get_type::<Error>();
    for attribute in ["path", "row", "column", "json_path"] {
        base.setattr(attribute, py.None())?;
    }
    m.add("Error", base)?;
    m.add("IoError", py.get_type::<IoError>())?;
    m.add("PackError", py.get_type::<PackError>())?;
    m.add("DataError", py.get_type::<DataError>())?;
    m.add("ExperimentError", py.get_type::<ExperimentError>())?;
    m.add("UnknownPackError", py.get_type::<UnknownPackError>())?;
    m.add("OverBudgetError", py.get_type::<OverBudgetError>())?;
    m.add("UsageError", py.get_type::<UsageError>())?;
    m.add("KERNEL_VERSION", counterlab::run::KERNEL_VERSION)?;
    m.add("VERIFIER_VERSION", counterlab::verify::VERIFIER_VERSION)?;
    m.add("CRATE_VERSION", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(verify, m)?)?;
    m.add_function(wrap_pyfunction!(verify_revision, m)?)?;
    m.add_function(wrap_pyfunction!(metrics, m)?)?;
    m.add_function(wrap_pyfunction!(audit, m)?)?;
    m.add_function(wrap_pyfunction!(init, m)?)?;
    m.add_function(wrap_pyfunction!(boundary, m)?)?;
    m.add_function(wrap_pyfunction!(transfer, m)?)?;
    m.add_function(wrap_pyfunction!(select, m)?)?;
    m.add_function(wrap_pyfunction!(build_capsule, m)?)?;
    Ok(())
}
