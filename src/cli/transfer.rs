//! `counterlab transfer PACK --choice ID`: the fixed evaluator of a pack's transfer task.

use counterlab::transfer::{self, TransferEvaluation};
use counterlab::RunOptions;

use super::{print_json, style, Exit, FixtureArgs, Outcome, PacksArgs, EXIT_DATA, EXIT_OK};

// Options of `transfer` as given on the command line (a plain comment: clap would read a
// doc comment as the command's description, which the `Transfer` variant gives).
#[derive(clap::Args)]
pub(crate) struct TransferArgs {
    /// The pack id.
    pack: String,
    /// The id of the chosen answer.
    #[arg(long)]
    choice: String,
    #[command(flatten)]
    packs: PacksArgs,
    #[command(flatten)]
    fixture: FixtureArgs,
    /// Print the evaluation as JSON (counterlab.transfer/1).
    #[arg(long)]
    json: bool,
}

pub(crate) fn command(args: &TransferArgs) -> Outcome {
    let choice = args.choice.as_str();
    let pack = args
        .packs
        .pack_within(&args.pack, &args.fixture.limits()?)?;
    transfer::check_choice(&pack, choice).map_err(|e| Exit::usage(&e.to_string()))?;
    let evaluation = transfer::evaluate(&pack, Some(choice), RunOptions::default().threads)?;
    let correct = evaluation.answer.as_ref().is_some_and(|a| a.correct);
    if args.json {
        print_json(&evaluation);
    } else {
        print_human(&evaluation, choice, correct);
    }
    Ok(if correct { EXIT_OK } else { EXIT_DATA })
}

fn print_human(evaluation: &TransferEvaluation, choice: &str, correct: bool) {
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
