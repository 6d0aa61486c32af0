"""Face recognition with eigenfaces: one shared face space, or one subspace per person."""

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from .._validation import check_array
from ..decomposition import PCA
from ..neighbors import ExactIndex


class EigenfaceClassifier(ClassifierMixin, BaseEstimator):
    """Classify face images with principal components (Turk & Pentland's eigenfaces).

    Parameters
    ----------
    n_components : int, default=40
        Components of the shared face space, or at most this many per person (each
        person's subspace has at most its number of training images minus one).
    method : {'shared', 'per-class'}, default='shared'
        'shared': one PCA of all training faces, a new face takes the label of its
        nearest training face in component weights. 'per-class': one PCA per person, a
        new face takes the label of the subspace that reconstructs it best.

    Attributes
    ----------
    classes_ : ndarray
    pca_ : PCA (shared) or list of PCA (per class)

    Examples
    --------
    >>> from lowdim.datasets import load_orl_faces
    >>> images, person = load_orl_faces()
    >>> X = images.reshape(400, -1)
    >>> train = split_per_class(person, 5, random_state=0)
    >>> clf = EigenfaceClassifier(n_components=40).fit(X[train], person[train])
    >>> round(clf.score(X[~train], person[~train]), 2)
    0.95
    """

    def __init__(self, n_components=40, method="shared"):
        self.n_components = n_components
        self.method = method

    def fit(self, X, y):
        """Learn the face space(s) from rows of flattened images and their labels.

        Parameters
        ----------
        X : ndarray (n_images, n_pixels)
        y : array-like (n_images,)
            The person of every image.

        Returns
        -------
        self
        """
        if self.method not in ("shared", "per-class"):
            raise ValueError(f"method must be 'shared' or 'per-class'; got {self.method!r}.")
        X = check_array(X, estimator_name="EigenfaceClassifier")
        y = np.asarray(y)
        self.classes_, codes = np.unique(y, return_inverse=True)
        if self.method == "shared":
            self.pca_ = PCA(n_components=min(self.n_components, *X.shape)).fit(X)
            self._codes = codes
            self._index = ExactIndex().build(self.pca_.transform(X))
            return self
        self.pca_ = []
        with warnings.catch_warnings():
            # a few images of one person leave some pixels constant; expected, not actionable
            warnings.filterwarnings("ignore", message=".*zero variance")
            for c in range(self.classes_.size):
                rows = X[codes == c]
                k = max(1, min(self.n_components, rows.shape[0] - 1))
                self.pca_.append(PCA(n_components=min(k, *rows.shape)).fit(rows))
        return self

    def reconstruction_errors(self, X):
        """Distance of each face to each person's subspace, shape (n, n_classes) ('per-class')."""
        X = check_array(X, estimator_name="EigenfaceClassifier")
        errors = np.empty((X.shape[0], len(self.pca_)))
        for c, pca in enumerate(self.pca_):
            errors[:, c] = np.linalg.norm(X - pca.inverse_transform(pca.transform(X)), axis=1)
        return errors

    def predict(self, X):
        """The label of each face.

        Parameters
        ----------
        X : ndarray (n_images, n_pixels)

        Returns
        -------
        ndarray (n_images,)
            The predicted person.
        """
        if self.method == "shared":
            _, idx = self._index.query(self.pca_.transform(check_array(X)), 1)
            return self.classes_[self._codes[idx[:, 0]]]
        return self.classes_[np.argmin(self.reconstruction_errors(X), axis=1)]


def split_per_class(labels, n_train, random_state=0):
    """A boolean training mask with ``n_train`` random items of every class.

    Parameters
    ----------
    labels : array-like (n,)
    n_train : int
        Items per class in the training part.
    random_state : int, Generator or None, default=0

    Returns
    -------
    ndarray of bool (n,)

    Examples
    --------
    >>> int(split_per_class(np.array([0, 0, 0, 1, 1, 1]), 2).sum())
    4
    """
    labels = np.asarray(labels)
    rng = np.random.default_rng(random_state)
    mask = np.zeros(labels.size, dtype=bool)
    for label in np.unique(labels):
        members = np.flatnonzero(labels == label)
        if members.size <= n_train:
            raise ValueError(
                f"class {label!r} has {members.size} images; n_train={n_train} leaves none "
                "to test. Lower --train-per-person."
            )
        mask[rng.choice(members, n_train, replace=False)] = True
    return mask
