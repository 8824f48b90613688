//! `counterlab transfer PACK --choice ID`: the fixed evaluator of a pack's transfer task.

use std::path::Path;

use counterlab::transfer;
use counterlab::RunOptions;

use super::{fail, fail_usage, load_pack, style, EXIT_DATA, EXIT_OK};

pub(crate) fn command(pack: &str, choice: &str, packs: Option<&Path>, json: bool) -> i32 {
    let pack = match load_pack(packs, pack) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let pack = &pack;
    if let Err(e) = transfer::check_choice(pack, choice) {
        return fail_usage(&e.to_string());
    }
    let evaluation = match transfer::evaluate(pack, Some(choice), RunOptions::default().threads) {
        Ok(e) => e,
        Err(e) => return fail(&e),
    };
    let correct = evaluation.answer.as_ref().is_some_and(|a| a.correct);
    if json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&evaluation).expect("an evaluation encodes")
        );
    } else {
        outln!("{}", style::bold(&style::safe(&evaluation.question)));
        outln!("rule: {}", evaluation.rule);
        for c in &evaluation.choices {
            let mark = if c.id == choice { "→" } else { " " };
            let validity = if c.valid {
                style::paint_stdout("32", "valid  ")
            } else {
                style::paint_stdout("31", "invalid")
            };
            outln!(
                "{mark} {:<18} {validity}  {}",
                style::safe(&c.id),
                style::safe(&c.text)
            );
            outln!("    {}", style::safe(&c.why));
        }
        let verdict = if correct {
            style::paint_stdout("1;32", "correct")
        } else {
            style::paint_stdout("1;31", "incorrect")
        };
        outln!(
            "your choice {}: {verdict} (valid: {})",
            style::safe(&format!("{choice:?}")),
            style::safe(&evaluation.valid_choices.join(", "))
        );
        outln!("result_hash {}", evaluation.result_hash);
    }
    if correct {
        EXIT_OK
    } else {
        EXIT_DATA
    }
}
