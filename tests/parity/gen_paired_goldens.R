# Generate tests/parity/paired_goldens.json: pROC's paired DeLong comparison of two ROC
# AUCs computed on the same rows (DeLong, DeLong & Clarke-Pearson 1988).
#
# Run from the crate root, after installing R, pROC and jsonlite from the distribution:
#
#     apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
#         r-base-core r-cran-proc r-cran-jsonlite
#     Rscript tests/parity/gen_paired_goldens.R
#
# The checked-in goldens were produced with R 4.2.2 Patched (2022-11-10 r83330),
# pROC 1.18.0 and jsonlite 1.8.4 (Debian packages); the versions are also recorded in the
# JSON under "versions". The data are generated in R with set.seed() (RNG pinned to
# Mersenne-Twister / Inversion / Rejection), so a rerun with the same R reproduces the file
# byte for byte.
#
# Licence: pROC is GPL (>= 3). Only the numbers it computes are committed; none of its code
# and none of its bundled data sets are copied here or into the JSON. The data are synthetic.
#
# ---------------------------------------------------------------------------------------
# What pROC 1.18.0 computes (read from its R functions and its C++ delongPlacementsCpp):
#
#   r <- roc(y, s, levels = c(0, 1), direction = "<")
#     controls = s[y == 0] (n of them), cases = s[y == 1] (m of them), in row order.
#     direction "<" means controls are expected to score lower; it is fixed here, so an AUC
#     below 0.5 is reported as is (no automatic flipping).
#
#   DeLong placements (delongPlacementsCpp, one sort; ties count one half):
#     X_i = V10(case i)    = (#{controls < x_i} + #{controls == x_i}/2) / n,  i = 1..m
#     Y_j = V01(control j) = 1 - (#{cases < y_j} + #{cases == y_j}/2) / m
#                          = (#{cases > y_j} + #{cases == y_j}/2) / m,       j = 1..n
#     theta = (sum_i n*X_i) / m / n         (the Mann-Whitney AUC)
#   auc(r) itself is a trapezoid over the ROC points; pROC only checks it equals theta with
#   all.equal() (tolerance 1.5e-8), so auc1/auc2 and theta1/theta2 may differ in the last bit
#   (and either may be 1 ulp from the correctly rounded rational: theta divides twice).
#
#   Paired test, roc.test(r1, r2, method = "delong", paired = TRUE)
#   (delong.paired.calculations / delong.paired.test / ci.delong.paired):
#     S10[a,b] = sum_i (X_i^a - theta_a)(X_i^b - theta_b) / (m - 1)
#     S01[a,b] = sum_j (Y_j^a - theta_a)(Y_j^b - theta_b) / (n - 1)
#     S        = S10 / m + S01 / n                 (2 x 2)
#     sig      = sqrt(L' S L), L = (1, -1)  = sqrt(V1 + V2 - 2 C12)
#     d        = theta_1 - theta_2
#     z        = d / sig          (z := 0 when d == 0 and sig == 0, i.e. 0/0)
#     p        = 2 * pnorm(-|z|)  (two-sided, the default alternative)
#     conf.int = d -/+ qnorm(1 - (1 - conf.level)/2) * sig   (conf.level = 0.95; NOT clipped)
#   Note the centring on theta (from the placements), not on mean(X).
#
#   var(r, method = "delong")      = var(Y)/n + var(X)/m              (stats::var/cov, centred
#   cov(r1, r2, method = "delong") = cov(X2, X1)/m + cov(Y2, Y1)/n     on the sample means;
#                                                                      denominators m-1, n-1;
#                                                                      equal to S[1,1], S[2,2],
#                                                                      S[1,2] up to rounding)
#   ci.auc(r, method = "delong")   = qnorm(c(0.025, 0.5, 0.975), mean = theta,
#                                          sd = sqrt(V)), then clipped to [0, 1],
#     V = S10[a,a]/m + S01[a,a]/n as above (centred on theta, denominators m - 1, n - 1).
#   All of these need m >= 2 and n >= 2.
#
# Each case in the JSON: name, seed, n, n_pos, n_neg, y (0/1 ints; 1 = positive = case),
# s1, s2 (doubles written so that they parse back to the same bits), and pROC's auc1, auc2,
# theta1, theta2, z, p_value, ci ([low, high] for theta1 - theta2), se_diff (= sig), var1, var2,
# cov12, ci1, ci2 ([low, high] of ci.auc for each ROC). The script checks, for every case,
# an independent O(m*n) base-R computation of the same formulas against pROC (to 1e-12) and
# that re-reading the written JSON gives identical doubles.
# ---------------------------------------------------------------------------------------

suppressPackageStartupMessages({
  library(pROC)
  library(jsonlite)
})

RNGkind("Mersenne-Twister", "Inversion", "Rejection")
CONF_LEVEL <- 0.95
OUT <- file.path("tests", "parity", "paired_goldens.json")
if (!dir.exists(dirname(OUT))) {
  stop("run from the crate root: Rscript tests/parity/gen_paired_goldens.R")
}

# Labels with exactly round(n * prevalence) positives, shuffled.
labels <- function(n, prevalence) {
  k <- max(2L, as.integer(round(n * prevalence)))
  sample(rep(c(1L, 0L), c(k, n - k)))
}

# s1 = signal1*y + noise1 + shared, s2 = signal2*y + noise2 + shared.
correlated <- function(y, signal1, signal2, shared_sd = 1) {
  n <- length(y)
  shared <- rnorm(n, sd = shared_sd)
  list(s1 = signal1 * y + rnorm(n) + shared, s2 = signal2 * y + rnorm(n) + shared)
}

make_cases <- function() {
  cases <- list()
  add <- function(name, seed, build) {
    set.seed(seed)
    d <- build()
    cases[[length(cases) + 1L]] <<- c(list(name = name, seed = seed), d)
  }

  # Tiny, small-integer scores 0..3: ties within and across classes and between s1 and s2.
  add("n10_int0to3_ties", 101L, function() {
    y <- labels(10L, 0.4)
    s <- correlated(y, 1.2, 0.6, shared_sd = 0.8)
    list(y = y, s1 = pmin(pmax(round(s$s1 + 1.5), 0), 3), s2 = pmin(pmax(round(s$s2 + 1.5), 0), 3))
  })

  # Scores rounded to one decimal: many ties, including across the two classes.
  add("n40_round1_ties", 202L, function() {
    y <- labels(40L, 0.3)
    s <- correlated(y, 1.0, 0.8, shared_sd = 0.5)
    list(y = y, s1 = round(s$s1 * 0.4, 1), s2 = round(s$s2 * 0.4, 1))
  })

  # s2 = a monotone transform of s1 (logistic, rescaled), changed on ~10% of rows.
  add("n120_monotone_plus_change", 303L, function() {
    y <- labels(120L, 0.25)
    s1 <- 1.0 * y + rnorm(120L)
    s2 <- 10 * plogis(s1)
    idx <- sample.int(120L, 12L)
    s2[idx] <- s2[idx] + rnorm(12L, sd = 0.5)
    list(y = y, s1 = s1, s2 = s2)
  })

  # s2 an exact monotone transform of s1: identical placements, d = 0 and sig = 0,
  # pROC then reports z = 0 (its 0/0 special case), p = 1, CI = [0, 0].
  add("n60_exact_monotone", 404L, function() {
    y <- labels(60L, 0.5)
    s1 <- 0.8 * y + rnorm(60L)
    list(y = y, s1 = s1, s2 = exp(2 * s1) - 3)
  })

  # Nearly equal AUCs (same signal), strongly correlated through the shared component.
  add("n300_near_equal", 505L, function() {
    y <- labels(300L, 0.2)
    s <- correlated(y, 1.0, 1.0, shared_sd = 1.5)
    list(y = y, s1 = s$s1, s2 = s$s2)
  })

  # AUCs far apart; balanced classes.
  add("n500_big_difference", 606L, function() {
    y <- labels(500L, 0.5)
    s <- correlated(y, 2.5, 0.3, shared_sd = 0.7)
    list(y = y, s1 = s$s1, s2 = s$s2)
  })

  # s2 anti-informative: with direction "<" fixed, auc2 < 0.5 and is not flipped.
  add("n80_auc_below_half", 707L, function() {
    y <- labels(80L, 0.35)
    s <- correlated(y, 0.9, -0.7, shared_sd = 0.6)
    list(y = y, s1 = s$s1, s2 = s$s2)
  })

  # Larger tie-heavy case: integer scores 0..5, 15% prevalence.
  add("n800_int0to5_ties", 808L, function() {
    y <- labels(800L, 0.15)
    s <- correlated(y, 1.1, 0.8, shared_sd = 0.9)
    list(y = y, s1 = pmin(pmax(round(s$s1 + 2), 0), 5), s2 = pmin(pmax(round(s$s2 + 2), 0), 5))
  })

  # Large, rare positives (5%), continuous scores.
  add("n2000_prev5pct", 909L, function() {
    y <- labels(2000L, 0.05)
    s <- correlated(y, 1.3, 1.0, shared_sd = 1.0)
    list(y = y, s1 = s$s1, s2 = s$s2)
  })

  cases
}

# Independent O(m*n) check of the documented formulas (base R only, no pROC internals).
brute_force <- function(y, s1, s2) {
  placements <- function(s) {
    cases <- s[y == 1L]
    controls <- s[y == 0L]
    k <- outer(cases, controls, function(a, b) (a > b) + 0.5 * (a == b))
    list(X = rowMeans(k), Y = colMeans(k), theta = mean(k))
  }
  m <- sum(y == 1L)
  n <- sum(y == 0L)
  p1 <- placements(s1)
  p2 <- placements(s2)
  sxx <- function(a, b, ta, tb, df) sum((a - ta) * (b - tb)) / df
  v1 <- sxx(p1$X, p1$X, p1$theta, p1$theta, m - 1) / m + sxx(p1$Y, p1$Y, p1$theta, p1$theta, n - 1) / n
  v2 <- sxx(p2$X, p2$X, p2$theta, p2$theta, m - 1) / m + sxx(p2$Y, p2$Y, p2$theta, p2$theta, n - 1) / n
  c12 <- sxx(p1$X, p2$X, p1$theta, p2$theta, m - 1) / m + sxx(p1$Y, p2$Y, p1$theta, p2$theta, n - 1) / n
  sig <- sqrt(v1 + v2 - 2 * c12)
  d <- p1$theta - p2$theta
  z <- if (d == 0 && sig == 0) 0 else d / sig
  q <- qnorm(1 - (1 - CONF_LEVEL) / 2)
  list(theta1 = p1$theta, theta2 = p2$theta, var1 = v1, var2 = v2, cov12 = c12, sig = sig,
       z = z, p = 2 * pnorm(-abs(z)), ci = c(d - q * sig, d + q * sig),
       ci1 = pmin(pmax(p1$theta + c(-q, q) * sqrt(v1), 0), 1),
       ci2 = pmin(pmax(p2$theta + c(-q, q) * sqrt(v2), 0), 1))
}

compute <- function(case) {
  y <- case$y
  r1 <- roc(y, case$s1, levels = c(0, 1), direction = "<", quiet = TRUE)
  r2 <- roc(y, case$s2, levels = c(0, 1), direction = "<", quiet = TRUE)
  t <- roc.test(r1, r2, method = "delong", paired = TRUE, conf.level = CONF_LEVEL)
  stopifnot(t$method == "DeLong's test for two correlated ROC curves")
  calcs <- pROC:::delong.paired.calculations(r1, r2)
  ci1 <- as.numeric(ci.auc(r1, conf.level = CONF_LEVEL, method = "delong"))
  ci2 <- as.numeric(ci.auc(r2, conf.level = CONF_LEVEL, method = "delong"))
  out <- list(
    auc1 = as.numeric(auc(r1)),
    auc2 = as.numeric(auc(r2)),
    theta1 = pROC:::delongPlacements(r1)$theta,
    theta2 = pROC:::delongPlacements(r2)$theta,
    z = unname(as.numeric(t$statistic)),
    p_value = as.numeric(t$p.value),
    ci = as.numeric(t$conf.int),
    se_diff = as.numeric(calcs$sig),
    var1 = as.numeric(var(r1, method = "delong")),
    var2 = as.numeric(var(r2, method = "delong")),
    cov12 = as.numeric(cov(r1, r2, method = "delong")),
    ci1 = ci1[c(1, 3)],
    ci2 = ci2[c(1, 3)]
  )

  bf <- brute_force(y, case$s1, case$s2)
  check <- function(what, a, b) {
    if (any(abs(a - b) > 1e-12)) {
      stop(sprintf("%s: %s: pROC %s vs brute force %s", case$name, what,
                   paste(sprintf("%.17g", a), collapse = ","), paste(sprintf("%.17g", b), collapse = ",")))
    }
    max(abs(a - b))
  }
  dev <- c(
    check("auc1", out$auc1, bf$theta1), check("auc2", out$auc2, bf$theta2),
    check("theta1", out$theta1, bf$theta1), check("theta2", out$theta2, bf$theta2),
    check("var1", out$var1, bf$var1), check("var2", out$var2, bf$var2),
    check("cov12", out$cov12, bf$cov12), check("se_diff", out$se_diff, bf$sig),
    check("z", out$z, bf$z), check("p_value", out$p_value, bf$p),
    check("ci", out$ci, bf$ci), check("ci1", out$ci1, bf$ci1), check("ci2", out$ci2, bf$ci2)
  )
  message(sprintf("%-28s m=%4d n=%4d auc1=%.6f auc2=%.6f z=%+9.4f p=%.3e  max|pROC - brute| = %.2e",
                  case$name, sum(y == 1L), sum(y == 0L), out$auc1, out$auc2, out$z, out$p_value, max(dev)))
  out
}

# ---- JSON writing: every double as the shortest of %.15g/%.16g/%.17g that parses back
# ---- (with jsonlite's parser, i.e. C strtod) to the identical double.
num <- function(x) {
  stopifnot(is.numeric(x), all(is.finite(x)))
  out <- sprintf("%.17g", x)
  for (d in 16:15) {
    cand <- sprintf(paste0("%.", d, "g"), x)
    back <- fromJSON(paste0("[", paste(cand, collapse = ","), "]"))
    ok <- back == x
    out[ok] <- cand[ok]
  }
  out
}
num_array <- function(x) paste0("[", paste(num(x), collapse = ","), "]")
int_array <- function(x) paste0("[", paste(as.integer(x), collapse = ","), "]")
jstr <- function(x) as.character(toJSON(x, auto_unbox = TRUE))

cases <- make_cases()
results <- lapply(cases, compute)

versions <- list(
  R = paste(R.version$major, R.version$minor, sep = "."),
  R_version_string = R.version.string,
  pROC = as.character(packageVersion("pROC")),
  jsonlite = as.character(packageVersion("jsonlite"))
)

case_json <- mapply(function(case, r) {
  fields <- c(
    paste0('"name":', jstr(case$name)),
    paste0('"seed":', case$seed),
    paste0('"n":', length(case$y)),
    paste0('"n_pos":', sum(case$y == 1L)),
    paste0('"n_neg":', sum(case$y == 0L)),
    paste0('"y":', int_array(case$y)),
    paste0('"s1":', num_array(case$s1)),
    paste0('"s2":', num_array(case$s2)),
    paste0('"auc1":', num(r$auc1)),
    paste0('"auc2":', num(r$auc2)),
    paste0('"theta1":', num(r$theta1)),
    paste0('"theta2":', num(r$theta2)),
    paste0('"z":', num(r$z)),
    paste0('"p_value":', num(r$p_value)),
    paste0('"ci":', num_array(r$ci)),
    paste0('"se_diff":', num(r$se_diff)),
    paste0('"var1":', num(r$var1)),
    paste0('"var2":', num(r$var2)),
    paste0('"cov12":', num(r$cov12)),
    paste0('"ci1":', num_array(r$ci1)),
    paste0('"ci2":', num_array(r$ci2))
  )
  paste0("    {", paste(fields, collapse = ",\n     "), "}")
}, cases, results)

json <- paste0(
  "{\n",
  '  "generator": "tests/parity/gen_paired_goldens.R",\n',
  '  "versions": {',
  paste(sprintf("%s: %s", sapply(names(versions), jstr), sapply(versions, jstr)), collapse = ", "),
  "},\n",
  '  "conf_level": ', num(CONF_LEVEL), ",\n",
  '  "method": "roc.test(roc(y, s1, levels = c(0, 1), direction = \\"<\\"), roc(y, s2, ...), method = \\"delong\\", paired = TRUE)",\n',
  '  "cases": [\n',
  paste(case_json, collapse = ",\n"),
  "\n  ]\n}\n"
)
writeLines(json, OUT, sep = "")

# Re-read and check every double is bit-identical.
back <- fromJSON(OUT, simplifyVector = TRUE, simplifyDataFrame = FALSE)
stopifnot(identical(back$conf_level, CONF_LEVEL), length(back$cases) == length(cases))
for (i in seq_along(cases)) {
  b <- back$cases[[i]]
  c0 <- cases[[i]]
  r <- results[[i]]
  stopifnot(
    identical(as.integer(b$y), c0$y),
    identical(as.numeric(b$s1), as.numeric(c0$s1)),
    identical(as.numeric(b$s2), as.numeric(c0$s2))
  )
  for (k in names(r)) {
    if (!identical(as.numeric(b[[k]]), as.numeric(r[[k]]))) stop(sprintf("%s: %s does not round-trip", c0$name, k))
  }
}
message(sprintf("wrote %s (%d cases); all doubles round-trip exactly", OUT, length(cases)))
