"""The Elo fit and its intervals, in memory linear in deals and entrants.

The model (see :mod:`arena.stats.ratings`): a deal's design row ``x_d`` has
each entrant's share of the maker side minus its share of the opponents,
and a last entry 1 for the maker-side edge; ``P(maker side wins) =
sigmoid(K * x_d . theta)``. A row touches only the few entrants seated at
the deal, so it is kept sparse (:class:`Design`: ``cols`` and ``vals``, a
handful a deal), and Newton's method builds the gradient and the
``P x P`` Hessian by scattering those few entries (``np.bincount``): no
``deals x P`` nor ``deals x P^2`` array is ever made. A fit can start from
an earlier one (``start``): the optimum is the same, only sooner reached.

Intervals resample the duplicate groups (a group bootstrap). When the whole
bootstrap is small (:data:`EXACT_WORK`), every resample is refitted to
convergence, as it always was. Beyond that, each resample takes one Newton
step from the full fit with the full fit's Hessian (the one-step
bootstrap): the resample's score is a sum of per-group scores computed
once, and the Hessian is factored once, so a sample costs a pass over the
groups, never a refit. The two agree closely on data of a useful size
(``tests/arena/test_ratings.py`` holds them to a stated tolerance).

>>> import numpy as np
>>> cols = np.array([[0, 1, 2], [0, 1, 2]]); vals = np.array([[0.5, -0.5, 1.0], [-0.5, 0.5, 1.0]])
>>> des = Design(cols, vals, np.array([1.0, 0.0]), np.array([0, 1]), 2, np.array([0, 1]), 2,
...              np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1]))
>>> theta, ok = newton(des, np.ones(2), np.zeros(3), penalty(3, 1000.0))
>>> bool(ok), round(float(theta[0]), 1) > 100
(True, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from ..types import ArenaError
from .deals import DealTable, distinct

__all__ = ["K", "MAX_STEP", "TOL", "MAX_ITER", "CENTER", "EXACT_WORK", "Design", "design", "penalty",
           "newton", "fit_theta", "check_prior", "dense_rows", "boot_draws"]

#: Elo points to natural-log odds: ``10 ** (d / 400) == exp(K * d)``.
K = math.log(10.0) / 400.0
#: Largest change of any parameter in one Newton step, in Elo.
MAX_STEP = 400.0
#: A fit has converged when no parameter moved by more than this (Elo).
TOL = 1e-6
MAX_ITER = 100
#: Weight of the (Sum r)^2 term that pins the ratings' mean at 0. It is 0 at
#: the optimum, so its value only matters for numerics.
CENTER = 1e-4
#: Resamples x deals x parameters^2 up to which the bootstrap refits every
#: resample exactly (dense, batched); beyond, the one-step bootstrap.
EXACT_WORK = 2e9
#: Upper bound on the cells of a dense design (deals x parameters^2) ever made.
_DENSE_CELLS = 4_000_000
#: Upper bound on sample x deal cells held in memory at once by the exact bootstrap.
_CHUNK_CELLS = 4_000_000


@dataclass(frozen=True)
class Design:
    """The deals used by the fit, sparse.

    ``cols[d, k]`` / ``vals[d, k]``: the parameter indices (rated entrants'
    columns, then the edge, ``P - 1``) and their coefficients in deal
    ``d``'s row (unused slots: coefficient 0); ``y[d]`` whether the maker
    side won; ``group[d]`` indexes the distinct groups; ``rated`` the
    entrant behind each rating column; ``seen_group`` / ``seen_col`` each
    (group, rating column) where the entrant held a seat, once.
    """

    cols: np.ndarray
    vals: np.ndarray
    y: np.ndarray
    group: np.ndarray
    n_groups: int
    rated: np.ndarray
    n_entrants: int
    seen_group: np.ndarray
    seen_col: np.ndarray

    @property
    def params(self) -> int:
        """P: the rated entrants and the edge."""
        return len(self.rated) + 1

    @property
    def deals(self) -> int:
        """The deals used."""
        return len(self.y)


def design(table: DealTable) -> Design:
    """The sparse design of ``table``'s informative deals (a maker side that
    is neither empty nor every seat); an entrant holding several seats of a
    deal is one entry of the row."""
    real = table.seats >= 0
    n = real.sum(axis=1)
    m = (table.maker & real).sum(axis=1)
    keep = (m > 0) & (m < n)
    seats, maker, real = table.seats[keep], table.maker[keep], real[keep]
    n, m = n[keep].astype(float), m[keep].astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        coef = np.where(maker, 1.0 / m[:, None], -1.0 / (n - m)[:, None])
    coef = np.where(real & (seats >= 0), coef, 0.0)
    width = seats.shape[1]
    # fold an entrant's seats into its first one
    for s in range(1, width):
        for t in range(s):
            same = (seats[:, s] == seats[:, t]) & (coef[:, s] != 0) & real[:, t]
            coef[same, t] += coef[same, s]
            coef[same, s] = 0.0
    present = np.zeros(table.n_entrants, dtype=bool)
    present[seats[real]] = True
    rated = np.flatnonzero(present)
    column = np.full(table.n_entrants + 1, -1, dtype=np.int64)
    column[rated] = np.arange(len(rated))
    p = len(rated) + 1
    cols = np.where(seats >= 0, column[seats], p - 1)
    used = coef != 0
    k = int(used.sum(axis=1).max()) if len(coef) else 0
    order = np.argsort(~used, axis=1, kind="stable")[:, :k]          # the entries first
    cols = np.take_along_axis(cols, order, axis=1)
    vals = np.take_along_axis(coef, order, axis=1)
    cols = np.where(vals != 0, cols, p - 1)
    cols = np.hstack([cols, np.full((len(cols), 1), p - 1)])
    vals = np.hstack([vals, np.ones((len(vals), 1))])
    groups = table.group[keep]
    distinct_groups, index = np.unique(groups, return_inverse=True)
    at = np.nonzero(real)
    seen, _ = distinct(index[at[0]].astype(np.int64) * p + column[seats[at]], len(distinct_groups) * p)
    return Design(cols.astype(np.int64), vals, table.won[keep].astype(float), index.astype(np.intp),
                  len(distinct_groups), rated, table.n_entrants, seen // p, seen % p)


def check_prior(prior: Optional[float]) -> None:
    """Refuse a prior that is not a positive finite standard deviation."""
    if prior is not None and not (prior > 0 and math.isfinite(prior)):
        raise ArenaError(f"Elo prior: standard deviation {prior} is not a positive number")


def penalty(p: int, prior: Optional[float]) -> np.ndarray:
    """The negative Hessian of the log-prior (and the centring term), ``P x P``."""
    lam = 0.0 if prior is None else 1.0 / float(prior) ** 2
    center = np.zeros(p)
    center[:-1] = 1.0
    return lam * np.eye(p) + CENTER * np.outer(center, center)


def _eta(des: Design, theta: np.ndarray) -> np.ndarray:
    return (theta[des.cols] * des.vals).sum(axis=1)


def _prob(eta: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * K * eta))


def _hessian(des: Design, w: np.ndarray) -> np.ndarray:
    """``sum_d w_d x_d x_d^T``, scattered entry pair by entry pair."""
    p = des.params
    out = np.zeros(p * p)
    width = des.cols.shape[1]
    for a in range(width):
        base = des.cols[:, a] * p
        wa = w * des.vals[:, a]
        for b in range(width):
            out += np.bincount(base + des.cols[:, b], weights=wa * des.vals[:, b], minlength=p * p)
    return out.reshape(p, p)


def _scatter(des: Design, r: np.ndarray) -> np.ndarray:
    """``sum_d r_d x_d``."""
    return np.bincount(des.cols.ravel(), weights=(des.vals * r[:, None]).ravel(), minlength=des.params)


def _solve(h: np.ndarray, g: np.ndarray) -> np.ndarray:
    try:
        step = np.linalg.solve(h, g)
    except np.linalg.LinAlgError:
        step = np.full_like(g, np.nan)
    if not np.isfinite(step).all():
        step = np.linalg.pinv(h) @ g
    return np.asarray(step)


def newton(des: Design, w: np.ndarray, theta: np.ndarray, pen: np.ndarray) -> tuple[np.ndarray, bool]:
    """Maximise the penalised log-likelihood with deal weights ``w`` from
    ``theta``; the parameters and whether the last step was below the
    tolerance. Memory: a few arrays of the deals' entries and one ``P x P``."""
    theta = np.array(theta, dtype=float)
    big = math.inf
    wy = w * des.y
    for _ in range(MAX_ITER):
        prob = _prob(_eta(des, theta))
        grad = K * _scatter(des, wy - w * prob) - pen @ theta
        hess = (K * K) * _hessian(des, w * prob * (1.0 - prob)) + pen
        step = _solve(hess, grad)
        big = float(np.abs(step).max()) if len(step) else 0.0
        theta = theta + step * min(1.0, MAX_STEP / max(big, 1e-300))
        if big < TOL:
            break
    return theta, big < TOL


def fit_theta(des: Design, theta: np.ndarray, pen: np.ndarray) -> tuple[np.ndarray, bool]:
    """The penalised maximum-likelihood parameters from ``theta`` and whether
    Newton's method converged: dense (the arithmetic the fit always made)
    while ``deals x P^2`` is at most a few million cells, sparse
    (:func:`newton`) beyond; the two agree to about 1e-12 Elo."""
    if des.deals * des.params ** 2 <= _DENSE_CELLS:
        w = np.ones((1, des.deals))
        out, ok = _dense_newton(dense_rows(des), des.y, w, theta[None, :], pen, converged=True)
        return out[0], bool(ok[0])
    return newton(des, np.ones(des.deals), theta, pen)


def dense_rows(des: Design) -> np.ndarray:
    """The design as a dense ``deals x P`` array (small designs only: the
    exact bootstrap, and the tests' reference fit)."""
    out = np.zeros((des.deals, des.params))
    np.add.at(out, (np.repeat(np.arange(des.deals), des.cols.shape[1]), des.cols.ravel()), des.vals.ravel())
    return out


def _dense_newton(xt: np.ndarray, y: np.ndarray, w: np.ndarray, theta: np.ndarray,
                  pen: np.ndarray, converged: bool = False) -> Any:
    """Newton's method for S weightings at once on a dense design (``w``:
    S x D, ``theta``: S x P); the parameters (and, with ``converged``,
    whether each weighting's last step was below the tolerance)."""
    d, p = xt.shape
    big = np.full(len(theta), np.inf)
    outer = (xt[:, :, None] * xt[:, None, :]).reshape(d, p * p)
    wy = w * y
    for _ in range(MAX_ITER):
        prob = _prob(theta @ xt.T)
        grad = K * ((wy - w * prob) @ xt) - theta @ pen
        hess = (K * K) * ((w * prob * (1.0 - prob)) @ outer).reshape(-1, p, p) + pen
        try:
            step = np.linalg.solve(hess, grad[:, :, None])[:, :, 0]
        except np.linalg.LinAlgError:
            step = np.full_like(grad, np.nan)
        bad = ~np.isfinite(step).all(axis=1)
        if bad.any():
            step[bad] = (np.linalg.pinv(hess[bad]) @ grad[bad][:, :, None])[:, :, 0]
        big = np.abs(step).max(axis=1) if p else np.zeros(len(theta))
        theta = theta + step * np.minimum(1.0, MAX_STEP / np.maximum(big, 1e-300))[:, None]
        if (big < TOL).all():
            break
    return (theta, big < TOL) if converged else theta


def boot_draws(des: Design, theta: np.ndarray, pen: np.ndarray, samples: int, seed: int) -> np.ndarray:
    """``samples`` x P resampled parameters (NaN where a resample misses an
    entrant): groups drawn with replacement from ``seed``; refitted exactly
    when the work is at most :data:`EXACT_WORK`, else one Newton step each
    from ``theta`` with the full fit's Hessian."""
    rng = np.random.default_rng(seed)
    g, d, p = des.n_groups, des.deals, des.params
    pres_g, pres_c = des.seen_group, des.seen_col
    exact = d * p * p <= _DENSE_CELLS and samples * d * p * p <= EXACT_WORK
    dense = False
    if exact:
        xt = dense_rows(des)
        chunk = max(1, _CHUNK_CELLS // max(d, g))
    else:
        prob = _prob(_eta(des, theta))
        full_hess = (K * K) * _hessian(des, prob * (1.0 - prob)) + pen
        # per-group scores at the fit: sum over the group's deals of K (y - p) x_d
        r = K * (des.y - prob)
        keys = (des.group[:, None] * p + des.cols).ravel()
        uniq, inv = distinct(keys, g * p)
        score = np.bincount(inv, weights=(des.vals * r[:, None]).ravel())
        s_g, s_c = uniq // p, uniq % p
        chunk = max(1, _CHUNK_CELLS // max(len(uniq), g))
        dense = g * p <= _DENSE_CELLS * 4          # scores and presence as G x 2P: one product a chunk
        if dense:
            by_group = np.zeros((g, 2 * p))
            by_group[s_g, s_c] = score
            by_group[pres_g, p + pres_c] = 1.0
            chunk = max(1, _CHUNK_CELLS // g)
    draws = []
    for start in range(0, samples, chunk):
        s = min(chunk, samples - start)
        picks = rng.integers(0, g, size=(s, g))
        counts = np.bincount((picks + g * np.arange(s)[:, None]).ravel(), minlength=s * g).reshape(s, g)
        row = np.arange(s)[:, None]
        seen: np.ndarray
        if not exact and dense:
            both = counts @ by_group
            seen, grads = both[:, p:], both[:, :p] - by_group[:, :p].sum(axis=0)[None, :]
            th = theta[None, :] + _solve(full_hess, grads.T).T
        else:
            seen = np.bincount((row * p + pres_c[None, :]).ravel(), weights=counts[:, pres_g].ravel(),
                               minlength=s * p).reshape(s, p)
        if exact:
            th = _dense_newton(xt, des.y, counts[:, des.group].astype(float), np.repeat(theta[None, :], s, axis=0),
                               pen)
        elif not dense:
            grads = np.bincount((row * p + s_c[None, :]).ravel(),
                                weights=((counts[:, s_g] - 1.0) * score[None, :]).ravel(),
                                minlength=s * p).reshape(s, p)
            th = theta[None, :] + _solve(full_hess, grads.T).T
        th[:, :-1][seen[:, :-1] == 0] = np.nan         # entrant absent from the resample
        draws.append(th)
    return np.vstack(draws) if draws else np.zeros((0, p))
