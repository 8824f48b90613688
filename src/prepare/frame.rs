//! One fold's preparation: an arm's steps run, in order, on the fold's rows, and the
//! model's training and test matrices out.
//!
//! The working frame holds the rows the steps need in canonical table order — the
//! fold's training and test rows, plus every other row of the table when a step is fitted
//! on all rows — then the new rows an oversampling step adds, which always train and are
//! never scored. A step fitted on the training rows reads the real training rows (in
//! order) and the new rows; one fitted on all rows reads every frame row. Every step then
//! transforms every frame row. Fitting on all rows reads the rows in canonical order, so
//! each fold of a cross-validation gets the same bits from it whenever no earlier step was
//! fitted per fold: the preparation is "done once before the split", as the leak is.

use super::{
    impute, oversample, select_k_best, standardize, target_encode, FitOn, OversampleMethod, Step,
    DEFAULT_K_NEIGHBORS,
};
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::model::Matrix;
use crate::split::numpy_random::RandomState;
use crate::table::Table;

/// A fold's rows: its training and test rows, each ascending in canonical order.
#[derive(Debug, Clone, Copy)]
pub struct FoldRows<'a> {
    /// The rows the model is fitted on.
    pub train: &'a [usize],
    /// The rows it scores.
    pub test: &'a [usize],
}

/// What a fold's preparation gives the model.
#[derive(Debug, Clone, PartialEq)]
pub struct PreparedRows {
    /// The training rows (in order), then the new rows of any oversampling, in the order
    /// they were made.
    pub train: Matrix,
    /// The test rows, in order.
    pub test: Matrix,
    /// The model columns' names: a numeric feature's, `feature=level` for a one-hot
    /// column, a target-encoded feature's own name.
    pub columns: Vec<String>,
    /// The labels of the new rows (after the training rows' own in `train`).
    pub new_labels: Vec<bool>,
    /// Test rows that a new training row was made from (a copy's source, or either end
    /// of a SMOTE segment, followed back through new rows made from new rows): rows the
    /// model has seen a copy or a neighbour-blend of. Zero unless an oversampling step is
    /// fitted on all rows.
    pub test_rows_with_kin: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Train,
    Test,
    Other,
}

/// A feature set resolved to the table's model columns once (its names looked up once, not
/// in every fold of every labelling): the columns' indices, names and, for a one-hot
/// column, its categorical feature.
#[derive(Debug, Clone)]
pub struct ModelColumns {
    indices: Vec<usize>,
    names: Vec<Arc<str>>,
    sources: Vec<Option<Arc<str>>>,
}

impl ModelColumns {
    /// The model columns of the source features `features` of `table`, in order (names an
    /// experiment was checked against).
    pub fn of(table: &Table, features: &[String]) -> ModelColumns {
        let layout = table.layout();
        let index: std::collections::BTreeMap<&str, usize> = layout
            .sources()
            .iter()
            .enumerate()
            .map(|(k, s)| (s.as_str(), k))
            .collect();
        let mut out = ModelColumns {
            indices: Vec::new(),
            names: Vec::new(),
            sources: Vec::new(),
        };
        for feature in features {
            let k = index[feature.as_str()];
            let source: Option<Arc<str>> =
                (!layout.levels(k).is_empty()).then(|| Arc::from(feature.as_str()));
            for column in layout.range(k) {
                out.indices.push(column);
                out.names.push(Arc::from(layout.columns()[column].as_str()));
                out.sources.push(source.clone());
            }
        }
        out
    }
}

/// One model column of the frame.
struct Column {
    name: Arc<str>,
    /// Per frame row.
    values: Vec<f64>,
    /// The categorical feature a one-hot column belongs to.
    source: Option<Arc<str>>,
}

struct Frame {
    /// Per real frame row, its table row (ascending).
    table_row: Vec<usize>,
    /// Per real frame row, its role in the fold.
    role: Vec<Role>,
    columns: Vec<Column>,
    /// Per frame row (real, then new).
    labels: Vec<bool>,
    /// Per new row, the frame rows it was made from.
    parents: Vec<[usize; 2]>,
}

/// Runs `steps` on the fold `rows` of `table` over the source features `features`, under
/// `labels` (one per table row); `seed` seeds the oversampling draws (numpy's
/// `RandomState(seed)`, the same in every fold, as a pipeline cloned per fold with one
/// `random_state` draws). Errors name the step (`prepare[i] (name)`); the caller names the
/// arm and fold.
pub fn prepare_fold(
    table: &Table,
    features: &[String],
    rows: FoldRows<'_>,
    labels: &[bool],
    steps: &[Step],
    seed: u64,
) -> Result<PreparedRows> {
    prepare_columns(
        table,
        &ModelColumns::of(table, features),
        rows,
        labels,
        steps,
        seed,
    )
}

/// [`prepare_fold`] over a feature set resolved once ([`ModelColumns::of`]).
pub fn prepare_columns(
    table: &Table,
    columns: &ModelColumns,
    rows: FoldRows<'_>,
    labels: &[bool],
    steps: &[Step],
    seed: u64,
) -> Result<PreparedRows> {
    let mut frame = Frame::new(table, columns, rows, labels, steps);
    for (i, step) in steps.iter().enumerate() {
        frame
            .apply(table, step, seed)
            .map_err(|e| Error::invalid(format!("prepare[{i}] ({}): {e}", step.name())))?;
    }
    Ok(frame.into_prepared())
}

impl Frame {
    fn new(
        table: &Table,
        model_columns: &ModelColumns,
        rows: FoldRows<'_>,
        labels: &[bool],
        steps: &[Step],
    ) -> Frame {
        let with_all = steps.iter().any(|s| s.fit_on() == FitOn::AllRows);
        let mut role_of = vec![Role::Other; table.n_rows()];
        rows.train.iter().for_each(|&r| role_of[r] = Role::Train);
        rows.test.iter().for_each(|&r| role_of[r] = Role::Test);
        let table_row: Vec<usize> = (0..table.n_rows())
            .filter(|&r| with_all || role_of[r] != Role::Other)
            .collect();
        let role = table_row.iter().map(|&r| role_of[r]).collect();
        let columns = model_columns
            .indices
            .iter()
            .zip(&model_columns.names)
            .zip(&model_columns.sources)
            .map(|((&k, name), source)| {
                let column = &table.features[k];
                Column {
                    name: name.clone(),
                    values: table_row.iter().map(|&r| column[r]).collect(),
                    source: source.clone(),
                }
            })
            .collect();
        Frame {
            labels: table_row.iter().map(|&r| labels[r]).collect(),
            table_row,
            role,
            columns,
            parents: Vec::new(),
        }
    }

    fn real_rows(&self) -> usize {
        self.table_row.len()
    }

    /// The frame rows a step fitted on `fit_on` reads, in order.
    fn fit_rows(&self, fit_on: FitOn) -> Vec<usize> {
        let new = self.real_rows()..self.labels.len();
        match fit_on {
            FitOn::AllRows => (0..self.labels.len()).collect(),
            FitOn::TrainingRows => (0..self.real_rows())
                .filter(|&i| self.role[i] == Role::Train)
                .chain(new)
                .collect(),
        }
    }

    fn apply(&mut self, table: &Table, step: &Step, seed: u64) -> Result<()> {
        let rows = self.fit_rows(step.fit_on());
        if rows.is_empty() {
            return Err(Error::invalid("no rows to fit on"));
        }
        match step {
            Step::Standardize { .. } => {
                for column in &mut self.columns {
                    if let Some(fitted) = standardize::fit(&column.values, &rows) {
                        standardize::apply(&mut column.values, fitted);
                    }
                }
            }
            Step::Impute { strategy, .. } => {
                for column in &mut self.columns {
                    if !column.values.iter().any(|v| v.is_nan()) {
                        continue;
                    }
                    let statistic = impute::fit(&column.values, &rows, *strategy).ok_or_else(|| {
                        Error::invalid(format!(
                            "column {:?} has no value among the {} rows it is fitted on, so there is nothing to impute from",
                            column.name,
                            rows.len()
                        ))
                    })?;
                    impute::apply(&mut column.values, statistic);
                }
            }
            Step::TargetEncode { column, smooth, .. } => {
                self.target_encode(table, column, *smooth, &rows)
            }
            Step::SelectKBest { k, .. } => {
                self.both_classes(&rows)?;
                let scores: Vec<f64> = self
                    .columns
                    .iter()
                    .map(|c| select_k_best::f_statistic(&c.values, &self.labels, &rows))
                    .collect();
                let keep = select_k_best::keep(&scores, *k as usize);
                let mut kept = keep.into_iter().peekable();
                let mut index = 0;
                self.columns.retain(|_| {
                    let keep_this = kept.peek() == Some(&index);
                    if keep_this {
                        kept.next();
                    }
                    index += 1;
                    keep_this
                });
            }
            Step::Oversample {
                method,
                k_neighbors,
                ..
            } => self.oversample(*method, *k_neighbors, &rows, seed)?,
        }
        Ok(())
    }

    /// Both classes among `rows`: what a statistic against the label needs.
    fn both_classes(&self, rows: &[usize]) -> Result<()> {
        let positives = rows.iter().filter(|&&r| self.labels[r]).count();
        if positives == 0 || positives == rows.len() {
            return Err(Error::invalid(format!(
                "the {} rows it is fitted on hold one class only",
                rows.len()
            )));
        }
        Ok(())
    }

    /// The one-hot columns of `feature` replaced, where the first of them stood, by one
    /// column of each row's level encoding. A feature the frame does not hold (an
    /// ablation dropped it) is left alone. Runs before any oversampling (checked), so
    /// every frame row is a table row whose level the table knows.
    fn target_encode(&mut self, table: &Table, feature: &str, smooth: f64, rows: &[usize]) {
        let Some(first) = self
            .columns
            .iter()
            .position(|c| c.source.as_deref() == Some(feature))
        else {
            return;
        };
        let one_hot = table.feature_columns(&[feature.to_owned()]);
        let level_of: Vec<u32> = self
            .table_row
            .iter()
            .map(|&r| {
                one_hot
                    .iter()
                    .position(|column| column[r] == 1.0)
                    .expect("a categorical row has one level") as u32
            })
            .collect();
        let encoding = target_encode::fit(&level_of, &self.labels, rows, one_hot.len(), smooth)
            .expect("fit rows are not empty");
        let values = level_of.iter().map(|&l| encoding[l as usize]).collect();
        self.columns
            .retain(|c| c.source.as_deref() != Some(feature));
        self.columns.insert(
            first,
            Column {
                name: Arc::from(feature),
                values,
                source: None,
            },
        );
    }

    /// New minority rows (the class with fewer of `rows`; none when the classes are
    /// even) until it matches the majority among `rows`.
    fn oversample(
        &mut self,
        method: OversampleMethod,
        k_neighbors: Option<u32>,
        rows: &[usize],
        seed: u64,
    ) -> Result<()> {
        self.both_classes(rows)?;
        let positives = rows.iter().filter(|&&r| self.labels[r]).count();
        let minority_label = positives * 2 < rows.len();
        let minority: Vec<usize> = rows
            .iter()
            .copied()
            .filter(|&r| self.labels[r] == minority_label)
            .collect();
        let n_new = rows.len() - 2 * minority.len();
        if n_new == 0 {
            return Ok(());
        }
        let mut rng = RandomState::from_seed(seed).map_err(|_| {
            Error::invalid(format!(
                "oversampling draws as imbalanced-learn does, from numpy's RandomState(seed), whose seed must be below 2**32; the experiment's seed {seed} is not: choose a smaller one"
            ))
        })?;
        let made = match method {
            OversampleMethod::Random => oversample::random(&minority, n_new, &mut rng),
            OversampleMethod::Smote => {
                let k = k_neighbors.unwrap_or(DEFAULT_K_NEIGHBORS) as usize;
                let values: Vec<Vec<f64>> = self.columns.iter().map(|c| c.values.clone()).collect();
                oversample::smote(&values, &minority, n_new, k, &mut rng).ok_or_else(|| {
                    Error::invalid(format!(
                        "SMOTE with k_neighbors = {k} needs more than {k} minority rows among the rows it is fitted on, found {}: lower k_neighbors",
                        minority.len()
                    ))
                })?
            }
        };
        if made.values.is_empty() {
            for column in &mut self.columns {
                let copies: Vec<f64> = made.parents.iter().map(|p| column.values[p[0]]).collect();
                column.values.extend(copies);
            }
        } else {
            for (column, new) in self.columns.iter_mut().zip(made.values) {
                column.values.extend(new);
            }
        }
        self.labels
            .extend(std::iter::repeat_n(minority_label, made.parents.len()));
        self.parents.extend(made.parents);
        Ok(())
    }

    /// The real frame rows (table rows) a frame row was made from: itself when real, its
    /// parents' origins when new.
    fn origins(&self, row: usize, out: &mut Vec<usize>) {
        if row < self.real_rows() {
            out.push(row);
        } else {
            for &parent in &self.parents[row - self.real_rows()] {
                self.origins(parent, out);
            }
        }
    }

    fn into_prepared(self) -> PreparedRows {
        let real = self.real_rows();
        let train_rows: Vec<usize> = (0..real)
            .filter(|&i| self.role[i] == Role::Train)
            .chain(real..self.labels.len())
            .collect();
        let test_rows: Vec<usize> = (0..real).filter(|&i| self.role[i] == Role::Test).collect();
        let matrix = |rows: &[usize]| {
            let mut data = Vec::with_capacity(rows.len() * self.columns.len());
            for &r in rows {
                data.extend(self.columns.iter().map(|c| c.values[r]));
            }
            Matrix::from_row_major(rows.len(), self.columns.len(), data)
        };
        let mut kin = vec![false; real];
        let mut origins = Vec::new();
        for new in real..self.labels.len() {
            origins.clear();
            self.origins(new, &mut origins);
            for &o in &origins {
                kin[o] = true;
            }
        }
        let test_rows_with_kin = test_rows.iter().filter(|&&r| kin[r]).count() as u64;
        PreparedRows {
            train: matrix(&train_rows),
            test: matrix(&test_rows),
            columns: self.columns.iter().map(|c| c.name.to_string()).collect(),
            new_labels: self.labels[real..].to_vec(),
            test_rows_with_kin,
        }
    }
}
