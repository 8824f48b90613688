# Independent hand calculation (exact fractions, Python's fractions module) of the cluster-robust intervals of the
# accuracy-type metrics (tests in src/stats/intervals.rs): each metric's delta-method
# linearisation per row, summed per entity, Var = I/(I-1) * sum_k z_k^2.
from fractions import Fraction as F
import math
ENT = [2, 0, 1, 0, 2, 1]
LAB = [True, True, True, True, False, False]
S_H = [0.6, 0.9, 0.8, 0.4, 0.1, 0.7]
B_H = [False, True, False, True, True, False]
S_L = [0.3, 0.9, 0.2, 0.6, 0.4, 0.8]
B_L = [True, True, False, False, True, False]

def parts(scores, base, metric):
    n = len(LAB)
    c = [1 if (s >= 0.5) == l else 0 for s, l in zip(scores, LAB)]
    h = [1 if b == l else 0 for b, l in zip(base, LAB)]
    P = sum(LAB); N = n - P
    acc = F(sum(c), n); bas = F(sum(h), n)
    tpr = F(sum(x for x, p in zip(c, LAB) if p), P)
    tnr = F(sum(x for x, p in zip(c, LAB) if not p), N)
    if metric == 'accuracy':
        return acc, [(c[r] - acc) / n for r in range(n)]
    if metric == 'baseline':
        return bas, [(h[r] - bas) / n for r in range(n)]
    if metric == 'lift':
        v = acc - bas
        return v, [(c[r] - h[r] - v) / n for r in range(n)]
    if metric == 'ba':
        v = (tpr + tnr) / 2
        return v, [(c[r] - tpr) / (2 * P) if LAB[r] else (c[r] - tnr) / (2 * N) for r in range(n)]

def robust(infl, ents):
    ks = sorted(set(ents)); I = len(ks)
    z = [sum(u for u, e in zip(infl, ents) if e == k) for k in ks]
    return F(I, I - 1) * sum(x * x for x in z)

for ents, name in [(ENT, 'clustered'), (list(range(6)), 'independent')]:
    for m in ['accuracy', 'baseline', 'lift', 'ba']:
        v, u = parts(S_H, B_H, m)
        var = robust(u, ents)
        vl, ul = parts(S_L, B_L, m)
        dvar = robust(u + [-x for x in ul], ents + ents)
        print(name, m, 'value', v, 'var', var, 'se', repr(math.sqrt(var)), '| paired diff', v - vl, 'var', dvar, 'se', repr(math.sqrt(dvar)))
