//! The `counterlab` command: thin glue over the library (see `src/cli/`).

mod cli;

fn main() {
    std::process::exit(cli::main());
}
