//! Exit codes, and [`Exit`]: a command that stops early returns it through `?`, and
//! [`super::main`] prints it once, so no command prints its own error or matches on a code.

use std::path::Path;

use counterlab::Error;

use super::style;

/// Exit code: success.
pub(crate) const EXIT_OK: i32 = 0;
/// Exit code: a data error (bad CSV, missing column, invalid experiment).
pub(crate) const EXIT_DATA: i32 = 1;
/// Exit code: usage or I/O error.
pub(crate) const EXIT_USAGE: i32 = 2;

/// What a command returns: the exit code of its answer (a non-zero one is still an answer
/// printed on stdout: REJECTED, a leak found, an incorrect choice), or the [`Exit`] that
/// stopped it.
pub(crate) type Outcome = Result<i32, Exit>;

/// A command stopped by an error: the message `error:` introduces on stderr (made safe
/// for a terminal when it was built) and the exit code.
#[derive(Debug)]
pub(crate) struct Exit {
    code: i32,
    message: String,
}

impl Exit {
    /// A usage or I/O problem that is not a library error (exit 2).
    pub(crate) fn usage(message: &str) -> Exit {
        Exit {
            code: EXIT_USAGE,
            message: style::safe(message).into_owned(),
        }
    }

    /// A file that is not what it should be, in words the command composed (exit 1):
    /// every value in `message` that comes from the file went through [`style::safe`].
    pub(crate) fn data(message: String) -> Exit {
        Exit {
            code: EXIT_DATA,
            message,
        }
    }

    /// A library error with the file it is about named first.
    pub(crate) fn at(path: &Path, error: &Error) -> Exit {
        Exit {
            code: code_of(error),
            message: format!(
                "{}: {}",
                style::safe(&path.display().to_string()),
                style::error(error)
            ),
        }
    }

    /// The same message under another exit code (`audit`'s 1 means "leak found", so
    /// every error of an audit is 2).
    pub(crate) fn with_code(self, code: i32) -> Exit {
        Exit { code, ..self }
    }

    /// Prints the message on stderr and returns the exit code.
    pub(crate) fn print(self) -> i32 {
        eprintln!("{} {}", style::error_tag(), self.message);
        self.code
    }
}

/// A library error as it reads on a terminal (its own line breaks kept): exit 1 when the
/// data is at fault, 2 otherwise.
impl From<Error> for Exit {
    fn from(error: Error) -> Exit {
        Exit {
            code: code_of(&error),
            message: style::error(&error),
        }
    }
}

fn code_of(error: &Error) -> i32 {
    if error.is_data_error() {
        EXIT_DATA
    } else {
        EXIT_USAGE
    }
}
