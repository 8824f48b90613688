//! Which usable columns become features: the user's requests (`drop`, `features`, `keep`)
//! and the suspect columns ([`crate::suspect`]) that `init` leaves out unless kept.
//!
//! A requested name that is not a column, is a role, or cannot be a feature is an error
//! naming it and why, never ignored. Columns listed in `features` are taken as asked
//! (in that order) and, like `keep`, recorded in `[data] kept` when they are suspect, so
//! that `pack check` reports them as kept on purpose rather than as problems.

use super::{ColumnUse, InitOptions};
use crate::error::{Error, Result};
use crate::suspect::Suspect;
use crate::words::{Opt, Text};

/// The features decided so far, in model order, and the columns kept on purpose.
pub(super) struct FeaturePlan {
    /// Feature names in model order.
    pub(super) features: Vec<String>,
    /// Columns the user asked for by name (`keep`, `features`): never left out.
    asked: Vec<String>,
    /// Whether the user gave the feature list (then nothing is left out by suspicion).
    listed: bool,
}

impl FeaturePlan {
    /// The plan for `columns` under the user's requests: `drop` marks columns not used,
    /// `features` takes exactly those (in that order). Errors name the request.
    pub(super) fn new(
        columns: &mut [(String, ColumnUse)],
        options: &InitOptions,
    ) -> Result<FeaturePlan> {
        for (request, names) in [
            ("drop", &options.drop),
            ("keep", &options.keep),
            ("features", &options.features.clone().unwrap_or_default()),
        ] {
            for name in names {
                check_name(columns, request, name)?;
            }
        }
        let asked = |d: &String| options.features.iter().flatten().any(|f| f == d);
        if let Some(both) = options
            .drop
            .iter()
            .find(|d| asked(d) || options.keep.contains(d))
        {
            return Err(Error::invalid(format!(
                "column {both:?} is both dropped and asked for (features or keep): name it once"
            )));
        }
        for (name, column_use) in columns.iter_mut() {
            if options.drop.contains(name) && is_feature(column_use) {
                *column_use = ColumnUse::NotUsed(
                    Text::plain("left out on request (")
                        .then(Text::opt(Opt::Drop))
                        .then(")"),
                );
            }
        }
        let features = match &options.features {
            Some(listed) => {
                for (name, column_use) in columns.iter_mut() {
                    if is_feature(column_use) && !listed.contains(name) {
                        *column_use = ColumnUse::NotUsed(
                            Text::plain("not in the features asked for (")
                                .then(Text::opt(Opt::Features))
                                .then(")"),
                        );
                    }
                }
                listed.clone()
            }
            None => columns
                .iter()
                .filter(|(_, u)| is_feature(u))
                .map(|(n, _)| n.clone())
                .collect(),
        };
        let mut asked = options.keep.clone();
        asked.extend(options.features.iter().flatten().cloned());
        Ok(FeaturePlan {
            features,
            asked,
            listed: options.features.is_some(),
        })
    }

    /// Leaves out the features that `suspects` says to, unless asked for by name. Each
    /// left-out column's use says why and how to keep it.
    pub(super) fn leave_out(&mut self, columns: &mut [(String, ColumnUse)], suspects: &[Suspect]) {
        for suspect in suspects.iter().filter(|s| s.feature && s.leaves_out()) {
            if self.listed || self.asked.contains(&suspect.column) {
                continue;
            }
            let Some((_, column_use)) = columns.iter_mut().find(|(n, _)| *n == suspect.column)
            else {
                continue;
            };
            if is_feature(column_use) {
                *column_use = ColumnUse::NotUsed(
                    Text::from(format!(
                        "{}; to use it anyway, keep it (",
                        suspect.evidence()
                    ))
                    .then(Text::opt_value(Opt::Keep, suspect.column.clone()))
                    .then(")"),
                );
                self.features.retain(|f| *f != suspect.column);
            }
        }
    }

    /// The suspect columns that are features because the user asked for them: recorded in
    /// `[data] kept`.
    pub(super) fn kept(&self, suspects: &[Suspect]) -> Vec<String> {
        let mut kept: Vec<String> = self
            .features
            .iter()
            .filter(|f| {
                self.asked.contains(f)
                    && suspects
                        .iter()
                        .any(|s| s.column == **f && s.feature && s.leaves_out())
            })
            .cloned()
            .collect();
        kept.dedup();
        kept
    }
}

fn is_feature(column_use: &ColumnUse) -> bool {
    matches!(column_use, ColumnUse::Numeric | ColumnUse::Categorical(_))
}

/// A requested column exists, has no role, and (unless dropped) can be a feature.
fn check_name(columns: &[(String, ColumnUse)], request: &str, name: &str) -> Result<()> {
    let refuse = |why: String| Err(Error::invalid(format!("{request}: column {name:?} {why}")));
    match columns.iter().find(|(n, _)| n == name) {
        None => {
            let names: Vec<&str> = columns.iter().map(|(n, _)| n.as_str()).collect();
            refuse(format!(
                "is not a column of the file (its columns: {})",
                names.join(", ")
            ))
        }
        Some((_, ColumnUse::Role(role))) => {
            refuse(format!("is the {role}; a role is never a feature"))
        }
        Some((_, ColumnUse::NotUsed(why))) if request != "drop" => Err(Error::invalid(
            Text::from(format!("{request}: column {name:?} cannot be a feature: "))
                .then(why.clone()),
        )),
        Some(_) => Ok(()),
    }
}
