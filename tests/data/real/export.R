#!/usr/bin/env Rscript
# Export two public repeated-measures datasets bundled with R packages to CSV,
# for end-to-end tests of the "bring your own data" flow.
#
# Run from the repository root:
#   Rscript tests/data/real/export.R
#
# Requires the R packages MASS and geepack (Debian: r-cran-mass, r-cran-geepack).
# See tests/data/real/README.md for provenance, licences and what is changed.

out_root <- file.path("tests", "data", "real")
if (!dir.exists(out_root)) {
  stop("run from the repository root: ", out_root, " not found")
}

# Make sure no numeric column is ever written in scientific or padded form.
options(scipen = 100)

check_frame <- function(df, name) {
  cat("==", name, "==\n")
  str(df)
  cat("dim:", dim(df), "\n")
  n_na <- sum(is.na(df))
  cat("NA cells:", n_na, "\n")
  # Every numeric column must hold whole numbers so it is written as e.g. `2`.
  for (col in names(df)) {
    x <- df[[col]]
    if (is.numeric(x)) {
      stopifnot(all(is.na(x) | x == round(x)))
    }
  }
  invisible(n_na)
}

write_frame <- function(df, path) {
  dir.create(dirname(path), showWarnings = FALSE, recursive = TRUE)
  # Factors -> their level labels; whole-number doubles -> integers.
  for (col in names(df)) {
    x <- df[[col]]
    if (is.factor(x)) df[[col]] <- as.character(x)
    if (is.double(x)) df[[col]] <- as.integer(x)
  }
  # No cell may need quoting (commas, quotes or line breaks).
  for (col in names(df)) {
    if (is.character(df[[col]])) {
      stopifnot(!any(grepl("[,\"\r\n]", df[[col]])))
    }
  }
  write.csv(df, path, row.names = FALSE, quote = FALSE, na = "NA",
            fileEncoding = "UTF-8")
  cat("wrote", path, "\n")
}

## MASS::bacteria --------------------------------------------------------------
bacteria <- MASS::bacteria
stopifnot(identical(dim(bacteria), c(220L, 6L)),
          nlevels(bacteria$ID) == 50L)
check_frame(bacteria, "MASS::bacteria")
write_frame(bacteria, file.path(out_root, "bacteria", "bacteria.csv"))

## geepack::respiratory -------------------------------------------------------
env <- new.env()
utils::data("respiratory", package = "geepack", envir = env)
respiratory <- env$respiratory
stopifnot(identical(dim(respiratory), c(444L, 8L)))
# `id` restarts in each centre, so (center, id) identifies a patient.
# Add a globally unique key, keeping `center` and `id` unchanged.
respiratory$patient <- paste0("c", respiratory$center, "-p",
                              sprintf("%02d", as.integer(respiratory$id)))
stopifnot(length(unique(respiratory$patient)) == 111L)
check_frame(respiratory, "geepack::respiratory (+ patient)")
write_frame(respiratory, file.path(out_root, "respiratory", "respiratory.csv"))
