#!/usr/bin/env python3
"""Derives the polynomial and rational coefficients of include/fusedsl/core/vector_math.hpp.

Method: a discrete Remez exchange in multiple precision (mpmath, 40 digits).
For each kernel it finds the polynomial sum_k c_k v^k that minimizes the
maximum *weighted* error  max |w(v) (f(v) - p(v))|  over a dense Chebyshev
grid of the reduced interval, where f and w are chosen so that the weighted
error is the relative error that the kernel contributes to the final result
(see each entry below). The coefficients are then rounded to float / double
one at a time, lowest degree first, the remaining ones refitted each time,
and the weighted error is re-evaluated with the rounded coefficients (in
exact arithmetic: the rounding of the evaluation itself is not included; the
C++ tests measure the total). Rationals N/D (rational_fits, below) are
fitted for their relative error by rational_fit and rounded by
rational_fit_rounded.

Run:  python3 bench/math/fit_coefficients.py [name ...]  (needs only mpmath; ~15 minutes,
      most of it the degree-25 double erfc fit; names: exp_f, exp_d, erfc_d, ...)
It prints C++ hex-float literals, which were pasted into vector_math.hpp.
"""
import struct
import sys

from mpmath import mp, mpf

mp.dps = 40


def to_f32(x):
    return struct.unpack("f", struct.pack("f", float(x)))[0]


def hexf(x, single):
    if single:
        h = float.hex(to_f32(x))
        return h + "f"
    return float.hex(float(x))


def chebyshev_grid(a, b, npts):
    """npts Chebyshev nodes of [a, b] (denser near the ends), in increasing order."""
    return [a + (b - a) * (1 - mp.cos(mp.pi * (i + mpf(0.5)) / npts)) / 2 for i in range(npts)]


def remez(f, w, a, b, degrees, npts=1600, iters=60):
    """Minimax weighted polynomial approximation with monomials v^degrees[k]."""
    n = len(degrees)
    grid = [a] + chebyshev_grid(a, b, npts) + [b]
    # A weight of 0 (the error vanishes there anyway) is replaced by a tiny one.
    grid = [x if w(x) != 0 else x + (b - a) * mpf("1e-12") for x in grid]
    fv = [f(x) for x in grid]
    wv = [w(x) for x in grid]
    # Initial reference: n+1 points spread like Chebyshev extrema.
    m = len(grid)
    ref = [int(round((m - 1) * (1 - mp.cos(mp.pi * i / n)) / 2)) for i in range(n + 1)]
    ref = sorted(set(ref))
    coef = None
    if iters == 0:
        return None, None, grid, fv, wv
    for _ in range(iters):
        A = mp.matrix(n + 1, n + 1)
        rhs = mp.matrix(n + 1, 1)
        for i, gi in enumerate(ref):
            x = grid[gi]
            for k, d in enumerate(degrees):
                A[i, k] = x ** d
            A[i, n] = (-1) ** i / wv[gi]
            rhs[i] = fv[gi]
        sol = mp.lu_solve(A, rhs)
        coef = [sol[k] for k in range(n)]
        err = [wv[i] * (fv[i] - sum(c * grid[i] ** d for c, d in zip(coef, degrees))) for i in range(m)]
        # Alternating extrema: the largest |err| of each run of one sign.
        ext = []
        i = 0
        while i < m:
            j = i
            best = i
            while j < m and (err[j] >= 0) == (err[i] >= 0):
                if abs(err[j]) > abs(err[best]):
                    best = j
                j += 1
            ext.append(best)
            i = j
        while len(ext) > n + 1:
            k = min(range(len(ext)), key=lambda q: abs(err[ext[q]]))
            if k == 0 or k == len(ext) - 1 or len(ext) - (n + 1) < 2:
                if abs(err[ext[0]]) < abs(err[ext[-1]]):
                    ext.pop(0)
                else:
                    ext.pop()
            else:
                lo, hi = ext[k - 1], ext[k + 1]
                drop = k - 1 if abs(err[lo]) < abs(err[hi]) else k + 1
                for q in sorted([k, drop], reverse=True):
                    ext.pop(q)
        emax = max(abs(e) for e in err)
        if len(ext) < n + 1:
            break
        emin = min(abs(err[q]) for q in ext)
        ref = ext
        if emax <= emin * (1 + mpf("1e-4")):
            break
    return coef, emax, grid, fv, wv


def weighted_error(coef, degrees, grid, fv, wv):
    return max(abs(wv[i] * (fv[i] - sum(mpf(c) * grid[i] ** d for c, d in zip(coef, degrees)))) for i in range(len(grid)))


def small(x, series, exact):
    return series(x) if abs(x) < mpf("1e-6") else exact(x)


# ---- the reduced functions -------------------------------------------------
# exp / expm1: e^r = 1 + r + r^2 Q(r) on |r| <= ln2/2 (a hair more for the rounding of n).
Q = lambda r: small(r, lambda r: mpf(1) / 2 + r / 6 + r * r / 24 + r ** 3 / 120, lambda r: (mp.expm1(r) - r) / r ** 2)
# log / log1p: log(1+f) = f - f^2/2 + s (f^2/2 + z P(z)), s = f/(2+f), z = s^2:
# z P(z) = (2 atanh(s) - 2 s)/s, so P(z) = (2 atanh(s)/s - 2)/z.
P_log = lambda z: small(z, lambda z: mpf(2) / 3 + 2 * z / 5 + 2 * z * z / 7, lambda z: (2 * mp.atanh(mp.sqrt(z)) / mp.sqrt(z) - 2) / z)
# erf, small |x|: erf(x) = x E(x^2) = x + x (E(x^2) - 1); the fitted piece is
# E - 1 (so that 2/sqrt(pi) is not rounded to a float: x + x*(E-1) keeps it exact).
E_erf = lambda v: small(v, lambda v: 2 / mp.sqrt(mp.pi) * (1 - v / 3 + v * v / 10), lambda v: mp.erf(mp.sqrt(v)) / mp.sqrt(v))
Em1_erf = lambda v: E_erf(v) - 1
# erfc, large |x|: erfc(x) = exp(-x^2) t G(t), t = 3/(3+x), G(t) = erfc(x) e^{x^2} / t, fitted in
# the centred u = t - TC (relative error). G varies only 4-fold over the range (erfc e^{x^2} itself
# 30-fold), so that its evaluation cancels little. (t is computed to twice the working precision
# in the C++, since the slope of G would amplify its rounding about 2.4 times near x = 1.)
TSCALE = mpf(3)
def G_erfc(t):
    x = TSCALE / t - TSCALE
    return mp.erfc(x) * mp.exp(x * x) / t
TC_F = mpf("0.6")
TC_D = mpf("0.48")
def erfc_fit(tc, xmax, xmin=mpf("0.45")):
    a = TSCALE / (TSCALE + xmax) - tc
    b = TSCALE / (TSCALE + xmin) - tc
    return (lambda u: G_erfc(u + tc)), (lambda u: 1 / G_erfc(u + tc)), a, b


# float gelu_erf: erfc(a/sqrt 2) e^{a^2/2} = N(a)/D(a), 0 <= a = |x| <= 14.5 (gelu's tail rounds
# to -0 beyond 14.3), a rational fitted for its relative error (rational_fit below).
R_gelu = lambda a: mp.erfc(a / mp.sqrt(2)) * mp.exp(a * a / 2)
# and e^(s/2) = 1 + s W(s), s = 2r, |s| <= 0.75 (r reduced by ln2 from -x^2/2 plus up to 0.026 of x^2's low part)
W_half = lambda s: small(s, lambda s: mpf(1) / 2 + s / 8 + s * s / 48, lambda s: mp.expm1(s / 2) / s)

# sin / cos on |r| <= pi/4 (fit to 0.786): sin r = r + r^3 S(r^2), cos r = 1 - r^2/2 + r^4 C(r^2).
S_sin = lambda z: small(z, lambda z: -mpf(1) / 6 + z / 120 - z * z / 5040, lambda z: (mp.sin(mp.sqrt(z)) - mp.sqrt(z)) / mp.sqrt(z) ** 3)
C_cos = lambda z: small(z, lambda z: mpf(1) / 24 - z / 720 + z * z / 40320, lambda z: (mp.cos(mp.sqrt(z)) - 1 + z / 2) / z ** 2)

RH = mpf("0.3468")          # ln2/2 = 0.34657...
SMAX = (mp.sqrt(2) - 1) / (mp.sqrt(2) + 1)
RT = mpf("0.7854") ** 2     # (pi/4)^2, pi/4 = 0.78539816...

# (name, single?, f, weight, a, b, degrees[, wide]): weights turn the error of the
# fitted piece into the relative error of the final result; the first `wide`
# coefficients of a float fit are doubles.
fits = [
    ("exp_f", True, Q, lambda r: r * r / mp.exp(r), -RH, RH, range(0, 5)),
    ("exp_d", False, Q, lambda r: r * r / mp.exp(r), -RH, RH, range(0, 10)),
    ("expm1_f", True, Q, lambda r: abs(r) if r == 0 else r * r / abs(mp.expm1(r)), -RH, RH, range(0, 6)),
    ("expm1_d", False, Q, lambda r: abs(r) if r == 0 else r * r / abs(mp.expm1(r)), -RH, RH, range(0, 10)),
    ("log_f", True, P_log, lambda z: z / 2, 0, SMAX ** 2 * mpf("1.0001"), range(0, 4)),
    ("log_d", False, P_log, lambda z: z / 2, 0, SMAX ** 2 * mpf("1.0001"), range(0, 7)),
    ("erf_f", True, Em1_erf, lambda v: 1 / E_erf(v), 0, mpf("0.9") ** 2, range(0, 7)),
    ("erf_d", False, Em1_erf, lambda v: 1 / E_erf(v), 0, mpf("0.9") ** 2, range(0, 11)),
    # float: erfc for x in [0, 10.1] (gelu's tail underflows past 10.1 sqrt 2; gelu uses it
    # down to 0), G = g0 + u (g1 + u G2(u)) with g0, g1 doubles (those two steps are taken in double)
    ("erfc_f", True, *erfc_fit(TC_F, mpf("10.1"), xmin=mpf(0)), range(0, 10), 2),
    ("exp_half_f", True, W_half, lambda s: abs(s) / mp.exp(s / 2), mpf("-0.75"), mpf("0.75"), range(0, 6)),
    # double: x in [0.45, 27.3]
    ("erfc_d", False, *erfc_fit(TC_D, mpf("27.3")), range(0, 26)),
    # float sin/cos are evaluated in double: fit for ~2^-30 in double coefficients
    ("sin_f", False, S_sin, lambda z: z, 0, RT, range(0, 4)),
    ("cos_f", False, C_cos, lambda z: z * z, 0, RT, range(0, 4)),
    ("sin_d", False, S_sin, lambda z: z, 0, RT, range(0, 6)),
    ("cos_d", False, C_cos, lambda z: z * z, 0, RT, range(0, 6)),
]

# (name, f, a, b, numerator degree, denominator degree): float rationals N/D,
# D(0) = 1, fitted for their relative error by rational_fit.
rational_fits = [
    ("gelu_r_f", R_gelu, 0, mpf("14.5"), 4, 5),
]


def rational_errors(coef, m, grid, fv):
    """P/Q / f - 1 at each grid point, for coefficients p0..pm, q1..qn (q0 = 1)."""
    p, q = coef[: m + 1], [mpf(1)] + coef[m + 1 :]
    return [mp.polyval(p[::-1], x) / mp.polyval(q[::-1], x) / fx - 1 for x, fx in zip(grid, fv)]


def rational_fit(f, a, b, m, n, fixed=(), npts=300, iters=40):
    """P/Q, P of degree m and Q of degree n with Q(0) = 1, that minimizes the
    maximum relative error |P/Q - f| / f over a Chebyshev grid of [a, b]:
    Loeb's linearization (least squares of (P - f Q) / (f Q_previous)) with
    Lawson's reweighting (weights grow where the error is large), which
    converges to the minimax fit. Coefficients are numbered p0..pm, then
    q1..qn; `fixed` maps some of them to values held fixed. Returns the
    coefficients, p's then q's (q0 = 1 left out), and the maximum error."""
    grid = chebyshev_grid(a, b, npts) + [a, b]
    fv = [f(x) for x in grid]
    basis = lambda x, fx: [x ** j for j in range(m + 1)] + [-fx * x ** j for j in range(1, n + 1)]
    fixed = dict(fixed)
    free = [k for k in range(m + 1 + n) if k not in fixed]
    weights = [mpf(1)] * len(grid)
    q_previous = [mpf(1)] * len(grid)
    best = None
    for _ in range(iters):
        A = mp.matrix(len(free), len(free))
        rhs = mp.matrix(len(free), 1)
        for x, fx, wt, qp in zip(grid, fv, weights, q_previous):
            row = basis(x, fx)
            scale = wt / (fx * qp) ** 2
            target = fx - sum(row[k] * c for k, c in fixed.items())  # P - f (Q - 1) = f
            for i, ki in enumerate(free):
                rhs[i] += scale * row[ki] * target
                for j, kj in enumerate(free):
                    A[i, j] += scale * row[ki] * row[kj]
        sol = mp.lu_solve(A, rhs)
        coef = [fixed[k] if k in fixed else sol[free.index(k)] for k in range(m + 1 + n)]
        q = [mpf(1)] + coef[m + 1 :]
        q_previous = [mp.polyval(q[::-1], x) for x in grid]  # Loeb's weights for the next step
        errors = rational_errors(coef, m, grid, fv)
        emax = max(abs(e) for e in errors)
        if best is None or emax < best[1]:
            best = (coef, emax)
        weights = [wt * mp.sqrt(abs(e)) for wt, e in zip(weights, errors)]
        total = sum(weights)
        weights = [wt / total for wt in weights]
    return best


def float_neighbour(x, step):
    """The float `step` ulps from float x != 0 (away from zero for step > 0)."""
    bits = struct.unpack("I", struct.pack("f", float(x)))[0]
    return mpf(struct.unpack("f", struct.pack("I", bits + step))[0])


def rational_fit_rounded(f, a, b, m, n):
    """rational_fit, then each coefficient rounded to float in turn, the rest
    refitted: highest degree first, since a coefficient's rounding shows
    where its term dominates and the lower terms can still absorb it there.
    Last, a descent over the rounded coefficients one ulp at a time while
    that lowers the error (measured on a uniform grid, finer than the fit's)."""
    order = [k for d in range(max(m, n), -1, -1) for k in ([m + d] if 1 <= d <= n else []) + ([d] if d <= m else [])]
    coef, emax0 = rational_fit(f, a, b, m, n)
    fixed = {}
    for k in order:
        fixed[k] = mpf(to_f32(coef[k]))
        if len(fixed) < len(order):
            coef, _ = rational_fit(f, a, b, m, n, fixed=fixed)
    grid = [a + (b - a) * i / 2000 for i in range(2001)]
    fv = [f(x) for x in grid]

    def error(c):
        return max(abs(e) for e in rational_errors(c, m, grid, fv))

    rounded = [fixed[k] for k in range(m + 1 + n)]
    erounded = error(rounded)
    improved = True
    while improved:
        improved = False
        for k in range(1, m + 1 + n):  # p0 = f(0) = 1 is exact
            for step in (1, -1):
                trial = rounded[:k] + [float_neighbour(rounded[k], step)] + rounded[k + 1 :]
                etrial = error(trial)
                if etrial < erounded:
                    rounded, erounded, improved = trial, etrial, True
    return rounded, emax0, erounded


def fit_rounded(f, w, a, b, degrees, single, wide=0):
    """Remez fit, then rounding one coefficient at a time (lowest degree
    first), refitting the remaining ones with the rounded ones held fixed, so
    that the later coefficients absorb the rounding of the earlier ones. The
    first `wide` coefficients are rounded to double even for a float fit."""
    fixed = []
    emax0 = None
    previous = None
    for k in range(len(degrees)):
        rest = degrees[k:]
        g = lambda v, fixed=tuple(fixed): f(v) - sum(mpf(c) * v ** d for c, d in fixed)
        coef, emax, grid, fv, wv = remez(g, w, a, b, rest)
        # The exchange can fail to converge on the last few monomials (the error jumps by
        # orders of magnitude): the previous fit's remaining coefficients are then kept.
        if previous is not None and emax > 2 * previous[1]:
            coef, emax = previous[0][1:], previous[1]
        previous = (coef, emax)
        if emax0 is None:
            emax0 = emax
        rnd = to_f32 if single and k >= wide else float
        fixed.append((rnd(coef[0]), rest[0]))
    rounded = [c for c, _ in fixed]
    _, _, grid, fv, wv = remez(f, w, a, b, degrees, iters=0)
    return rounded, emax0, weighted_error(rounded, degrees, grid, fv, wv)


if __name__ == "__main__":
    only = sys.argv[1:]
    for name, single, f, w, a, b, degrees, *wide in fits:
        if only and name not in only:
            continue
        degrees = list(degrees)
        wide = wide[0] if wide else 0
        rounded, emax, erounded = fit_rounded(f, w, mpf(a), mpf(b), degrees, single, wide)
        print(f"// {name}: degree {degrees[-1]} on [{mp.nstr(a, 6)}, {mp.nstr(b, 6)}]: "
              f"minimax weighted error {mp.nstr(emax, 3)} (2^{mp.nstr(mp.log(emax, 2), 4)}), "
              f"with rounded coefficients {mp.nstr(erounded, 3)} (2^{mp.nstr(mp.log(erounded, 2), 4)})")
        print("  " + ", ".join(hexf(c, single and k >= wide) for k, c in enumerate(rounded)))
        sys.stdout.flush()
    for name, f, a, b, m, n in rational_fits:
        if only and name not in only:
            continue
        rounded, emax, erounded = rational_fit_rounded(f, mpf(a), mpf(b), m, n)
        print(f"// {name}: degrees {m}/{n} on [{mp.nstr(a, 6)}, {mp.nstr(b, 6)}]: "
              f"minimax relative error {mp.nstr(emax, 3)} (2^{mp.nstr(mp.log(emax, 2), 4)}), "
              f"with rounded coefficients {mp.nstr(erounded, 3)} (2^{mp.nstr(mp.log(erounded, 2), 4)})")
        print("  N: " + ", ".join(hexf(c, True) for c in rounded[: m + 1]))
        print("  D: 0x1p+0f, " + ", ".join(hexf(c, True) for c in rounded[m + 1 :]))
        sys.stdout.flush()
