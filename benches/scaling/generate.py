#!/usr/bin/env python3
"""A synthetic pack CSV for the scaling table (docs/PERFORMANCE.md, "Scaling").

ROWS rows of `entity,label,f1..f10`: entities of 5-15 rows (about 10), ten numeric
features with three decimals, a binary label with a modest signal (three features) and a
little entity effect (a per-entity offset of the log-odds that two features also carry,
so a row-level split leaks a little). Python's standard library only; the same ROWS and
--seed always give the same bytes.

    python3 benches/scaling/generate.py ROWS > data.csv
"""

import argparse
import math
import random
import sys


def rows(n_rows, seed):
    rng = random.Random(seed)
    entity = 0
    made = 0
    while made < n_rows:
        size = min(rng.randint(5, 15), n_rows - made)
        # What the entity's rows share: a log-odds offset, part of it visible in f4 and f5.
        offset = rng.gauss(0.0, 0.6)
        traits = [rng.gauss(0.0, 1.0) for _ in range(2)]
        for _ in range(size):
            x = [rng.gauss(0.0, 1.0) for _ in range(10)]
            x[3] = 0.6 * x[3] + 0.8 * (traits[0] + offset)
            x[4] = 0.6 * x[4] + 0.8 * traits[1]
            logit = -0.3 + 0.6 * x[0] - 0.4 * x[1] + 0.3 * x[2] + offset
            label = 1 if rng.random() < 1.0 / (1.0 + math.exp(-logit)) else 0
            yield "e%07d,%d,%s\n" % (entity, label, ",".join("%.3f" % v for v in x))
        entity += 1
        made += size


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", type=int)
    parser.add_argument("--seed", type=int, default=33)
    args = parser.parse_args()
    out = sys.stdout
    out.write("entity,label," + ",".join("f%d" % j for j in range(1, 11)) + "\n")
    out.writelines(rows(args.rows, args.seed))


if __name__ == "__main__":
    main()
