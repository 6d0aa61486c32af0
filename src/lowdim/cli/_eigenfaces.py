"""``lowdim eigenfaces``: mean face, eigenfaces, reconstructions and recognition accuracy."""

import os

import numpy as np

from ._common import UsageError, add_run_arguments, check_outputs, emit_json, positive_int
from ._fitting import progress

HELP = "eigenfaces of a folder of face images (one sub-folder per person) or an .npz; default ORL faces"


def add_arguments(parser):
    parser.add_argument(
        "input",
        nargs="?",
        help="folder with one sub-folder per person, or .npz with "
        "'images' (n, H, W) and 'labels'; default: the ORL faces",
    )
    parser.add_argument("-k", "--n-components", type=positive_int, default=40, help="components (default 40)")
    parser.add_argument(
        "--train-per-person",
        type=int,
        default=5,
        help="training images per person for the recognition test (default 5)",
    )
    parser.add_argument("-o", "--output", default="eigenfaces", help="output folder (default eigenfaces)")
    add_run_arguments(parser)


def load_faces(path, output=None):
    """``(images, labels)`` from a folder (but for the images in ``output``, where an
    earlier run wrote its figures), an .npz archive, or the built-in ORL faces."""
    from ..exceptions import DataFileError

    if path is None:
        from ..datasets import load_orl_faces

        return load_orl_faces()
    if os.path.isdir(path):
        from ..io import read_image_folder

        return read_image_folder(path, skip=[output] if output else ())
    if path.endswith(".npz"):
        images = np.load(path, allow_pickle=False)
        if "images" not in images or images["images"].ndim != 3:
            raise DataFileError(f"{path}: needs an array 'images' of shape (n, H, W).")
        labels = images["labels"] if "labels" in images else None
        return np.asarray(images["images"], dtype=float), labels
    raise UsageError(f"{path}: pass a folder of images or an .npz archive.")


def run(args, say):
    from ..decomposition import PCA
    from ..plot import image_grid

    names = ("mean_face.png", "eigenfaces.png", "reconstructions.png")
    paths = [os.path.join(args.output, n) for n in names]
    check_outputs(args, *paths)
    images, labels = load_faces(args.input, args.output)
    n, h, w = images.shape
    X = images.reshape(n, -1)
    k = min(args.n_components, n - 1)
    pca = PCA(n_components=k, random_state=args.seed).fit(X)
    say(f"{n} faces of {h} x {w} pixels; {k} eigenfaces explain {pca.explained_variance_ratio_.sum():.1%}")
    image_grid(pca.mean_[None], (h, w), paths[0], normalize=False, title="mean face", overwrite=args.overwrite)
    image_grid(
        pca.components_[:16],
        (h, w),
        paths[1],
        titles=[f"{i + 1}" for i in range(min(16, k))],
        title="eigenfaces",
        overwrite=args.overwrite,
    )
    _reconstructions(pca, X, (h, w), paths[2], args.overwrite)
    skip, accuracy = _why_no_recognition(labels, args.input), {}
    if skip:
        say(f"recognition skipped: {skip}")
    else:
        with progress(None, args, "recognition"):
            accuracy = _recognition(X, labels, args)
    if accuracy:
        say(f"recognition, {args.train_per_person} training images per person, {accuracy['n_test']} test images:")
        say(f"  one face space for all, nearest neighbour on weights: {accuracy['shared']:.3f}")
        say(f"  one subspace per person, best reconstruction:        {accuracy['per-class']:.3f}")
    say(f"wrote {', '.join(paths)}")
    emit_json(
        args,
        {
            "command": "eigenfaces",
            "n_images": n,
            "image_shape": [h, w],
            "n_components": k,
            "explained_variance": float(pca.explained_variance_ratio_.sum()),
            "accuracy": accuracy,
            "recognition_skipped": skip,
            "files": paths,
        },
    )
    return 0


def _reconstructions(pca, X, shape, path, overwrite):
    from ..plot import image_grid

    ks = [k for k in (1, 5, 10, 20, 40, 80, 160) if k <= pca.n_components_] or [pca.n_components_]
    faces = X[:4]
    weights = pca.transform(faces)
    rows = []
    for face, w in zip(faces, weights):
        rows.append(face)
        rows.extend(w[:k] @ pca.components_[:k] + pca.mean_ for k in ks)
    titles = (["original"] + [f"k={k}" for k in ks]) * len(faces)
    image_grid(
        np.array(rows),
        shape,
        path,
        titles=titles,
        n_cols=len(ks) + 1,
        normalize=False,
        title="reconstructions from the leading eigenfaces",
        overwrite=overwrite,
    )


def _why_no_recognition(labels, source):
    """Why the recognition test cannot be run on these labels (None when it can): it
    needs two people or more, and a folder's loose images belong to nobody."""
    if labels is None:
        return f"{source} holds no 'labels' array naming the person of each image."
    people = np.unique(labels)
    if people.size < 2:
        return (
            f"the images of {source} are of a single person (no sub-folders); recognition tells people apart: "
            "put each person's images in a sub-folder of their own."
        )
    if "" in people.tolist():
        return f"{source} holds images outside the person sub-folders; move them into the folder of their person."
    return None


def _recognition(X, labels, args):
    from ..images import EigenfaceClassifier, split_per_class

    train = split_per_class(labels, args.train_per_person, random_state=args.seed)
    accuracy = {}
    for method in ("shared", "per-class"):
        model = EigenfaceClassifier(n_components=args.n_components, method=method).fit(X[train], labels[train])
        accuracy[method] = float(model.score(X[~train], labels[~train]))
    accuracy["n_test"] = int((~train).sum())
    return accuracy
