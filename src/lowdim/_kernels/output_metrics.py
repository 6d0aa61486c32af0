"""Distances of UMAP's output space and their gradients in the moving point: for
layouts in other spaces than the Euclidean plane (a sphere by ``haversine``, the
hyperbolic plane by ``hyperboloid``, the L1 or L-infinity plane, angles).

``distance_grad(code, x, y, p, grad)`` returns d(x, y) and writes dd/dx into ``grad``;
where the gradient is undefined (coincident points, zero vectors) it is 0. The
formulas are derived in each function's comment.
"""

import numpy as np
from numba import njit

from .output_spaces import CHEBYSHEV, CORRELATION, COSINE, HAVERSINE, HYPERBOLOID, MANHATTAN, MINKOWSKI


@njit(cache=True)
def _manhattan(x, y, grad):
    # d = sum |x - y|; dd/dx_i = sign(x_i - y_i)
    d = 0.0
    for i in range(x.shape[0]):
        diff = np.float64(x[i]) - y[i]
        d += abs(diff)
        grad[i] = np.sign(diff)
    return d


@njit(cache=True)
def _chebyshev(x, y, grad):
    # d = max |x_i - y_i|; the gradient is the sign on the largest coordinate only
    d, at = -1.0, 0
    for i in range(x.shape[0]):
        grad[i] = 0.0
        diff = abs(np.float64(x[i]) - y[i])
        if diff > d:
            d, at = diff, i
    grad[at] = np.sign(np.float64(x[at]) - y[at])
    return d


@njit(cache=True)
def _minkowski(x, y, p, grad):
    # d = (sum |D_i|^p)^(1/p); dd/dx_i = sign(D_i) |D_i|^(p-1) d^(1-p)
    total = 0.0
    for i in range(x.shape[0]):
        total += abs(np.float64(x[i]) - y[i]) ** p
    d = total ** (1.0 / p)
    for i in range(x.shape[0]):
        diff = np.float64(x[i]) - y[i]
        grad[i] = np.sign(diff) * abs(diff) ** (p - 1.0) * d ** (1.0 - p) if d > 0.0 else 0.0
    return d


@njit(cache=True)
def _cosine(x, y, grad, centre):
    # d = 1 - <u, v> / (|u| |v|), u, v = x, y (centred for correlation);
    # dd/du = -(v / (|u| |v|) - <u, v> u / (|u|^3 |v|)); centring projects the gradient
    # onto vectors of zero mean
    n = x.shape[0]
    mx = my = 0.0
    if centre:
        for i in range(n):
            mx += x[i]
            my += y[i]
        mx, my = mx / n, my / n
    uu = vv = uv = 0.0
    for i in range(n):
        u, v = x[i] - mx, y[i] - my
        uu += u * u
        vv += v * v
        uv += u * v
    if uu == 0.0 or vv == 0.0:
        for i in range(n):
            grad[i] = 0.0
        return 0.0 if uu == vv else 1.0
    nu, nv = np.sqrt(uu), np.sqrt(vv)
    mean_grad = 0.0
    for i in range(n):
        grad[i] = -((y[i] - my) / (nu * nv) - uv * (x[i] - mx) / (uu * nu * nv))
        mean_grad += grad[i]
    if centre:
        for i in range(n):
            grad[i] -= mean_grad / n
    return 1.0 - uv / (nu * nv)


@njit(cache=True)
def _haversine(x, y, grad):
    # Great-circle distance on the unit sphere with x = (colatitude t, longitude l), as
    # umap-learn lays out: h = sin^2(dt/2) + sin t1 sin t2 sin^2(dl/2), d = 2 asin(sqrt h);
    # dh/dt1 = sin(dt)/2 + cos t1 sin t2 sin^2(dl/2), dh/dl1 = sin t1 sin t2 sin(dl)/2,
    # dd/dh = 1 / sqrt(h (1 - h))
    dt, dl = np.float64(x[0]) - y[0], np.float64(x[1]) - y[1]
    s1, s2 = np.sin(np.float64(x[0])), np.sin(np.float64(y[0]))
    half = np.sin(0.5 * dl) ** 2
    h = min(max(np.sin(0.5 * dt) ** 2 + s1 * s2 * half, 0.0), 1.0)
    d = 2.0 * np.arcsin(np.sqrt(h))
    scale = np.sqrt(h * (1.0 - h))
    if scale <= 1e-12:  # coincident or antipodal: no direction to move along
        grad[0] = grad[1] = 0.0
        return d
    grad[0] = (0.5 * np.sin(dt) + np.cos(np.float64(x[0])) * s2 * half) / scale
    grad[1] = 0.5 * s1 * s2 * np.sin(dl) / scale
    return d


@njit(cache=True)
def _hyperboloid(x, y, grad):
    # Points of R^k lifted to the hyperboloid z = sqrt(1 + |x|^2); d = acosh(B),
    # B = z_x z_y - <x, y>; dB/dx_i = x_i z_y / z_x - y_i, dd/dB = 1 / sqrt(B^2 - 1)
    xx = yy = xy = 0.0
    for i in range(x.shape[0]):
        xx += np.float64(x[i]) * x[i]
        yy += np.float64(y[i]) * y[i]
        xy += np.float64(x[i]) * y[i]
    zx, zy = np.sqrt(1.0 + xx), np.sqrt(1.0 + yy)
    B = max(zx * zy - xy, 1.0)
    d = np.arccosh(B)
    scale = np.sqrt(B * B - 1.0)
    for i in range(x.shape[0]):
        grad[i] = (x[i] * zy / zx - y[i]) / scale if scale > 1e-12 else 0.0
    return d


@njit(cache=True)
def distance_grad(code, x, y, p, grad):
    """d(x, y) in the output space ``code`` (``p``: Minkowski's exponent); dd/dx is
    written into ``grad``."""
    if code == MANHATTAN:
        return _manhattan(x, y, grad)
    if code == CHEBYSHEV:
        return _chebyshev(x, y, grad)
    if code == MINKOWSKI:
        return _minkowski(x, y, p, grad)
    if code == COSINE or code == CORRELATION:
        return _cosine(x, y, grad, code == CORRELATION)
    if code == HAVERSINE:
        return _haversine(x, y, grad)
    if code == HYPERBOLOID:
        return _hyperboloid(x, y, grad)
    d = 0.0  # Euclidean (the layout has a faster path of its own)
    for i in range(x.shape[0]):
        d += (np.float64(x[i]) - y[i]) ** 2
    d = np.sqrt(d)
    for i in range(x.shape[0]):
        grad[i] = (x[i] - y[i]) / d if d > 0.0 else 0.0
    return d
