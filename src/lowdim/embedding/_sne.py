"""SNE (Hinton & Roweis 2002): Gaussian output kernel, asymmetric (per-point
conditional distributions) or symmetric (one joint distribution), on t-SNE's machinery
with an exact O(n^2) gradient."""

import numpy as np

from .._params import Options
from ._base import SHARED_CONSTRAINTS, NeighborEmbedding
from ._gradients import attraction, entropy_term


class GaussianObjective:
    """SNE's KL objective: symmetric ``KL(P || Q)`` with ``q_ij`` proportional to
    ``exp(-d_ij^2)``, or asymmetric ``mean_i KL(P_i || Q_i)`` over the conditional
    distributions (``P`` then holds ``p(j | i) / n``).

    Parameters
    ----------
    P : scipy.sparse.csr_matrix (n, n)
        Input probabilities: joint (symmetric SNE) or conditional divided by n.
    symmetric : bool

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> P = sp.csr_matrix(np.array([[0.0, 0.5], [0.5, 0.0]]))
    >>> GaussianObjective(P, True).final(np.array([[0.0, 0.0], [1.0, 0.0]]))
    0.0
    """

    def __init__(self, P, symmetric):
        self.P, self.symmetric = P.tocsr(), symmetric
        self.p_log_p = entropy_term(P)
        rows = np.repeat(np.arange(P.shape[0]), np.diff(P.indptr))
        self._edges = rows, P.indices

    def gradient(self, Y, exaggeration):
        """``(gradient, log normalisers)``: log Z for the symmetric variant, log Z_i per
        point for the asymmetric one."""
        from .._kernels.sne import gaussian_repulsion

        log_norm = self._log_normalizers(Y)
        z, shift = self._rows
        R = np.empty_like(Y)
        gaussian_repulsion(Y, z, shift, float(log_norm) if self.symmetric else 0.0, self.symmetric, R)
        A = attraction(self.P, Y, np.inf)  # Gaussian: no kernel factor on the attraction
        if self.symmetric:
            return 4.0 * (exaggeration * A - R), log_norm
        A += attraction(self._transposed(), Y, np.inf)
        return 2.0 * (exaggeration * A - R / Y.shape[0]), log_norm

    def _log_normalizers(self, Y):
        from .._kernels.sne import gaussian_row_sums

        z, shift = np.empty(Y.shape[0]), np.empty(Y.shape[0])
        gaussian_row_sums(Y, z, shift)
        self._rows = z, shift
        log_rows = np.log(z) - shift
        if not self.symmetric:
            return log_rows
        top = log_rows.max()
        return top + np.log(np.exp(log_rows - top).sum())

    def _transposed(self):
        if not hasattr(self, "_PT"):
            self._PT = self.P.T.tocsr()
        return self._PT

    def value(self, Y, log_norm):
        """KL divergence given the log normalisers of the last gradient."""
        rows, cols = self._edges
        sq = np.einsum("ij,ij->i", Y[rows] - Y[cols], Y[rows] - Y[cols])
        spread = float(np.dot(self.P.data, sq))
        if self.symmetric:
            return float(max(self.p_log_p + spread + float(log_norm), 0.0))
        # P holds p(j|i) / n: the mean of the per-point divergences gains log n
        return float(max(self.p_log_p + np.log(Y.shape[0]) + spread + float(np.mean(log_norm)), 0.0))

    def final(self, Y):
        """KL divergence at ``Y``."""
        return self.value(Y, self._log_normalizers(Y))


class SNE(NeighborEmbedding):
    """Stochastic neighbour embedding with a Gaussian output kernel (Hinton & Roweis
    2002): the method t-SNE grew from, for small and medium data (the gradient is exact,
    O(n^2) per iteration).

    'asymmetric' is the original: each point's conditional distribution over its
    neighbours, p(j | i), matched by q(j | i) proportional to ``exp(-|y_i - y_j|^2)``; the
    objective is the mean over points of KL(P_i || Q_i). 'symmetric' matches the joint
    ``(p(j|i) + p(i|j)) / 2n`` with one joint Gaussian ``q_ij``. Affinities, initialisation
    and the optimiser are t-SNE's; the Gaussian tails crowd the embedding, which is what
    t-SNE's Student-t kernel was made to fix.

    Parameters
    ----------
    n_components : int, default=2
    perplexity : float, default=30.0
    variant : {'asymmetric', 'symmetric'}, default='asymmetric'
    early_exaggeration : float, default=4.0
    learning_rate : float or 'auto', default='auto'
        'auto' is ``max(n / early_exaggeration / 4, 50)``.
    max_iter : int, default=1000
    n_iter_without_progress : int, default=300
    min_grad_norm : float, default=1e-7
    metric : str, default='euclidean'
        As TSNE's.
    metric_params : dict, optional
        As TSNE's.
    init : {'pca', 'spectral', 'random'} or ndarray, default='pca'
    verbose : int, default=0
        1: progress bars with an ETA (the kNN search where there is one, the
        iterations); 2: also the KL divergence every 50 iterations (as scikit-learn's
        levels).
    random_state : None, int or Generator
    early_exaggeration_iter : int, default=250
    neighbors_algorithm : {'auto', 'exact', 'approximate'} or KNNIndex, default='auto'
        Or a ``KNNIndex`` instance: your own neighbour search (``lowdim.neighbors.KNNIndex``).
    callbacks : sequence of callables, optional
        As TSNE's.

    Attributes
    ----------
    embedding_ : ndarray (n_samples, n_components)
    kl_divergence_ : float
    n_iter_ : int
    learning_rate_ : float
    perplexity_ : float
    affinities_ : sparse (n_samples, n_samples)
        The input affinities (conditionals p(j | i), rows summing to one).
    n_features_in_ : int
        Number of features seen in ``fit``.
    X_fit_ : ndarray (n_samples, n_features)
        The training data, kept for ``transform``.
    n_components_ : int
        Dimension of the embedding.
    method_ : str
        'exact' (SNE's gradient is exact).
    column_names_, kinds_, categories_ : list
        Only after a fit with ``metric='gower'`` on a table with text, category,
        boolean or date columns, which the fit codes as ``mixed_codes`` does: each
        column's name, kind ('numeric', 'categorical', 'ordinal') and levels (None for
        numbers); new tables are coded by them.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> X = load_iris().data
    >>> SNE(perplexity=10, random_state=0, max_iter=300).fit_transform(X).shape
    (150, 2)
    """

    # its Gaussian output kernel has many local optima of unequal quality: on the common
    # suite's 60 points, trustworthiness(5) over row orders spans 0.84-0.91 (t-SNE 0.976-0.981)
    _parameter_constraints = {**SHARED_CONSTRAINTS, "variant": [Options({"asymmetric", "symmetric"})]}

    def __init__(
        self,
        n_components=2,
        *,
        perplexity=30.0,
        variant="asymmetric",
        early_exaggeration=4.0,
        learning_rate="auto",
        max_iter=1000,
        n_iter_without_progress=300,
        min_grad_norm=1e-7,
        metric="euclidean",
        metric_params=None,
        init="pca",
        verbose=0,
        random_state=None,
        early_exaggeration_iter=250,
        neighbors_algorithm="auto",
        callbacks=None,
    ):
        self.n_components = n_components
        self.perplexity = perplexity
        self.variant = variant
        self.early_exaggeration = early_exaggeration
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.n_iter_without_progress = n_iter_without_progress
        self.min_grad_norm = min_grad_norm
        self.metric = metric
        self.metric_params = metric_params
        self.init = init
        self.verbose = verbose
        self.random_state = random_state
        self.early_exaggeration_iter = early_exaggeration_iter
        self.neighbors_algorithm = neighbors_algorithm
        self.callbacks = callbacks

    def _n_neighbors(self, n):
        return min(n - 1, int(3 * self.perplexity_ + 1))

    @property
    def _joint(self):
        return self.variant == "symmetric"

    def _objective_factory(self, n):
        self.method_ = "exact"
        if self._joint:
            return lambda P: GaussianObjective(P, True)
        return lambda P: GaussianObjective(P / n, False)
