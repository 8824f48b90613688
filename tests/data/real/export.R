#!/usr/bin/env Rscript
# Export five public datasets with repeated, nested or crossed entities bundled
# with R packages to CSV, for end-to-end tests of the "bring your own data" flow.
#
# Run from the repository root:
#   Rscript tests/data/real/export.R
#
# Requires the R packages MASS, geepack, lme4, mlmRev and plm (Debian: r-cran-mass,
# r-cran-geepack, r-cran-lme4, r-cran-mlmrev, r-cran-plm).
# See tests/data/real/README.md for provenance, licences and what is changed.

out_root <- file.path("tests", "data", "real")
if (!dir.exists(out_root)) {
  stop("run from the repository root: ", out_root, " not found")
}

# Make sure no numeric column is ever written in scientific or padded form.
options(scipen = 100)

# `fractional` names the numeric columns allowed to hold non-whole numbers;
# every other numeric column must hold whole numbers so it is written as `2`.
check_frame <- function(df, name, fractional = character()) {
  cat("==", name, "==\n")
  str(df)
  cat("dim:", dim(df), "\n")
  n_na <- sum(is.na(df))
  cat("NA cells:", n_na, "\n")
  for (col in names(df)) {
    x <- df[[col]]
    if (is.numeric(x) && !(col %in% fractional)) {
      stopifnot(all(is.na(x) | x == round(x)))
    }
  }
  invisible(n_na)
}

write_frame <- function(df, path) {
  dir.create(dirname(path), showWarnings = FALSE, recursive = TRUE)
  # Factors -> their level labels; whole-number doubles -> integers; other
  # doubles -> R's 15-significant-digit text, or 17 digits where 15 do not read
  # back as the very same double.
  for (col in names(df)) {
    x <- df[[col]]
    if (is.factor(x)) df[[col]] <- as.character(x)
    if (is.double(x)) {
      if (all(is.na(x) | x == round(x))) {
        df[[col]] <- as.integer(x)
      } else {
        text <- as.character(x)
        # 15 significant digits where they read back exactly, else 17 (always exact).
        inexact <- !is.na(x) & as.numeric(text) != x
        text[inexact] <- sprintf("%.17g", x[inexact])
        stopifnot(identical(as.numeric(text), x))
        df[[col]] <- text
      }
    }
  }
  # No cell may need quoting (commas, quotes or line breaks).
  for (col in names(df)) {
    if (is.character(df[[col]])) {
      stopifnot(!any(grepl("[,\"\r\n]", df[[col]])))
      # Nor start or end with white space (which a reader might trim).
      stopifnot(!any(grepl("^\\s|\\s$", df[[col]])))
    }
  }
  write.csv(df, path, row.names = FALSE, quote = FALSE, na = "", # a missing value is an empty cell, as the pack loader reads it
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

## lme4::VerbAgg ---------------------------------------------------------------
env <- new.env()
utils::data("VerbAgg", package = "lme4", envir = env)
verbagg <- env$VerbAgg
# 316 persons (`id`) crossed with 24 items (`item`): one row per pair.
stopifnot(identical(dim(verbagg), c(7584L, 9L)),
          nlevels(verbagg$id) == 316L, nlevels(verbagg$item) == 24L,
          all(table(verbagg$id, verbagg$item) == 1L),
          sum(is.na(verbagg)) == 0L,
          # `r2` is `resp` collapsed: "no" -> N, "perhaps"/"yes" -> Y.
          identical(as.character(verbagg$r2),
                    ifelse(verbagg$resp == "no", "N", "Y")))
check_frame(verbagg, "lme4::VerbAgg")
write_frame(verbagg, file.path(out_root, "verbagg", "verbagg.csv"))

## mlmRev::Contraception -------------------------------------------------------
env <- new.env()
utils::data("Contraception", package = "mlmRev", envir = env)
contraception <- env$Contraception
# 1934 women (`woman`, one row each) nested in 60 districts (`district`).
stopifnot(identical(dim(contraception), c(1934L, 6L)),
          nlevels(contraception$woman) == 1934L,
          nlevels(contraception$district) == 60L,
          sum(is.na(contraception)) == 0L)
check_frame(contraception, "mlmRev::Contraception", fractional = "age")
write_frame(contraception, file.path(out_root, "contraception", "contraception.csv"))

## plm::Males -------------------------------------------------------------------
env <- new.env()
utils::data("Males", package = "plm", envir = env)
males <- env$Males
# 545 young men (`nr`), each observed every year 1980-1987: a balanced panel.
stopifnot(identical(dim(males), c(4360L, 12L)),
          length(unique(males$nr)) == 545L,
          all(table(males$nr) == 8L),
          # Only `residence` has missing values.
          sum(is.na(males)) == sum(is.na(males$residence)))
# Three `occupation` labels hold a comma ("Professional, Technical_and_kindred"): written
# with a semicolon instead, so that no cell needs quoting. Nothing else is changed.
levels(males$occupation) <- gsub(", ", ";", levels(males$occupation), fixed = TRUE)
stopifnot(nlevels(males$occupation) == 9L)
check_frame(males, "plm::Males", fractional = "wage")
write_frame(males, file.path(out_root, "males", "males.csv"))
