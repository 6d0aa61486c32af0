"""Linear decompositions: PCA (named solvers, streaming, sparse), truncated SVD, random
projections, non-negative factorisations (batch and online), sparse PCA and
dictionary learning with sparse coding, probabilistic PCA and
factor analysis (with missing values), correspondence analysis of categories (CA, MCA)
and of mixed tables (FAMD), and helpers."""

from ._correspondence import chi_square_svd, supplementary_rows
from ._dictionary_learning import DictionaryLearning, MiniBatchDictionaryLearning
from ._factor_analysis import FactorAnalysis
from ._factorial import CA, FAMD, MCA, indicator_matrix
from ._fastica import FastICA
from ._incremental import IncrementalPCA
from ._kernel_functions import KERNELS, kernel_matrix, median_squared_distance
from ._kernel_pca import KernelPCA
from ._lda import LinearDiscriminantAnalysis
from ._minibatch_nmf import MiniBatchNMF
from ._nmf import NMF, MatrixFactorization
from ._nmf_function import non_negative_factorization
from ._pca import PCA
from ._pca_solvers import choose_solver
from ._ppca import ProbabilisticPCA
from ._principal_scores import principal_scores
from ._random_projection import GaussianRandomProjection, SparseRandomProjection, johnson_lindenstrauss_min_dim
from ._select_components import ComponentSelection, select_n_components
from ._sparse_coding import SparseCoder, sparse_encode
from ._sparse_pca import MiniBatchSparsePCA, SparsePCA
from ._truncated_svd import TruncatedSVD

__all__ = [
    "CA",
    "FAMD",
    "MCA",
    "chi_square_svd",
    "indicator_matrix",
    "supplementary_rows",
    "PCA",
    "TruncatedSVD",
    "GaussianRandomProjection",
    "SparseRandomProjection",
    "johnson_lindenstrauss_min_dim",
    "IncrementalPCA",
    "ProbabilisticPCA",
    "FactorAnalysis",
    "LinearDiscriminantAnalysis",
    "FastICA",
    "KernelPCA",
    "NMF",
    "MiniBatchNMF",
    "SparsePCA",
    "MiniBatchSparsePCA",
    "DictionaryLearning",
    "MiniBatchDictionaryLearning",
    "SparseCoder",
    "sparse_encode",
    "MatrixFactorization",
    "ComponentSelection",
    "select_n_components",
    "choose_solver",
    "principal_scores",
    "kernel_matrix",
    "median_squared_distance",
    "non_negative_factorization",
    "KERNELS",
]
