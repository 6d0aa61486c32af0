"""AnnData ``.h5ad`` files, read through the anndata package (the ``io`` extra).

anndata reads every layout it ever wrote, including the older ones still shipped as
examples (obs as a compound dataset, categories in ``uns/<column>_categories``, ``raw.X``
as an h5sparse group), so lowdim does not parse the HDF5 structure itself. The file is
opened backed: ``X`` and ``raw.X`` stay on disk until the chosen matrix is read, and its
size is checked against the memory limit before it is made dense.
"""

import os
import warnings

import numpy as np
import scipy.sparse as sp

from .._messages import listed
from ..exceptions import DataFileError
from ._binary import _check_declared, _check_numeric


def _anndata_module(path):
    try:
        import anndata
    except ImportError:
        raise DataFileError(
            f"{path}: reading .h5ad files needs the anndata package; install lowdim[io] (pip install 'lowdim[io]')."
        ) from None
    return anndata


def _chosen_matrix(path, adata, layer, use_raw, obsm):
    """``(matrix, feature_names, what)``: the matrix the options select, not yet in memory."""
    chosen = [
        name
        for name, on in (("--layer", layer is not None), ("--use-raw", use_raw), ("--obsm", obsm is not None))
        if on
    ]
    if len(chosen) > 1:
        raise DataFileError(f"{path}: {' and '.join(chosen)} each choose the matrix to read; pass one of them.")
    if obsm is not None:
        if obsm not in adata.obsm:
            raise DataFileError(f"{path}: obsm has no entry {obsm!r}; entries are {listed(adata.obsm.keys())}.")
        matrix = adata.obsm[obsm]
        if hasattr(matrix, "columns"):  # obsm may hold a data frame
            return matrix.to_numpy(), [str(c) for c in matrix.columns], f"obsm[{obsm!r}]"
        width = matrix.shape[1] if len(matrix.shape) == 2 else 1
        return matrix, [f"{obsm}_{j + 1}" for j in range(width)], f"obsm[{obsm!r}]"
    if layer is not None:
        if layer not in adata.layers:
            raise DataFileError(f"{path}: no layer {layer!r}; layers are {listed(adata.layers.keys())}.")
        return adata.layers[layer], list(map(str, adata.var_names)), f"layer {layer!r}"
    if use_raw:
        if adata.raw is None:
            raise DataFileError(f"{path}: the file has no raw matrix; drop --use-raw to read X.")
        return adata.raw.X, list(map(str, adata.raw.var_names)), "raw.X"
    if adata.X is None:
        raise DataFileError(
            f"{path}: X is empty; choose a matrix with --layer (layers: "
            f"{listed(adata.layers.keys())}) or --obsm (entries: {listed(adata.obsm.keys())})."
        )
    return adata.X, list(map(str, adata.var_names)), "X"


def _in_memory(path, matrix, max_bytes, columns=None):
    """The matrix (its ``columns`` only, when given) as a dense 2-D array, refused before
    reading when it would not fit; only the chosen columns are ever made dense."""
    shape = tuple(int(s) for s in matrix.shape)
    if len(shape) == 1:
        shape = (shape[0], 1)
    if columns is not None:
        shape = (shape[0], int(columns.size))
    dtype = np.dtype(matrix.dtype)
    _check_numeric(path, dtype)
    _check_declared(path, shape, dtype.itemsize, max_bytes)
    if hasattr(matrix, "to_memory"):  # a backed sparse matrix
        matrix = matrix.to_memory()
    elif not isinstance(matrix, np.ndarray) and not sp.issparse(matrix):
        matrix = matrix[()] if columns is None else matrix[:, columns]  # a backed h5py dataset
        columns = None
    if columns is not None:
        matrix = matrix[:, columns]
    dense = matrix.toarray() if sp.issparse(matrix) else np.asarray(matrix)
    return dense.reshape(shape)


def _gene_mask(path, var, mask_var, chosen):
    """The columns a boolean ``var`` column marks (scanpy's ``mask_var``), increasing;
    refused, with the fix, for a stored embedding or ``raw.X`` (whose genes ``var`` does
    not describe), a column that is missing or not boolean, or one that marks no gene."""
    if chosen.startswith("obsm") or chosen == "raw.X":
        option = "--obsm" if chosen.startswith("obsm") else "--use-raw"
        raise DataFileError(
            f"{path}: --mask-var picks genes by a column of adata.var, which describes X and its layers, not "
            f"{chosen} ({option}); drop one of the two options."
        )
    flags = [str(c) for c in var.columns if var[c].dtype == bool]
    if mask_var not in var.columns or var[mask_var].dtype != bool:
        what = "no column" if mask_var not in var.columns else f"a column of {var[mask_var].dtype}, not booleans,"
        raise DataFileError(
            f"{path}: adata.var has {what} {mask_var!r}; --mask-var takes a boolean column "
            f"({listed(flags) if flags else 'there is none: mark genes with scanpy.pp.highly_variable_genes'})."
        )
    columns = np.flatnonzero(var[mask_var].to_numpy())
    if columns.size == 0:
        raise DataFileError(f"{path}: adata.var[{mask_var!r}] marks no gene; choose another column or drop --mask-var.")
    return columns


def _labels(path, obs, column):
    """An obs column as text labels, categorical or not ('' where the value is missing)."""
    if column not in obs.columns and column.isdigit() and 1 <= int(column) <= obs.shape[1]:
        column = obs.columns[int(column) - 1]
    if column not in obs.columns:
        raise DataFileError(f"{path}: obs has no column {column!r}; columns are {listed(obs.columns)}.")
    values = obs[column]
    return np.where(values.isna().to_numpy(), "", values.astype(str).to_numpy()).astype(str)


def read_h5ad(path, *, label_column=None, layer=None, use_raw=False, obsm=None, mask_var=None, max_bytes=None):
    """``(X, feature_names, labels, row_ids, what)`` of an AnnData file.

    Parameters
    ----------
    path : str
    label_column : str, optional
        An obs column (name or 1-based number), categorical or not.
    layer : str, optional
        Read ``layers[layer]`` instead of ``X``.
    use_raw : bool
        Read ``raw.X`` (with ``raw.var_names``) instead of ``X``.
    obsm : str, optional
        Read a stored embedding such as ``'X_pca'`` or ``'X_umap'``.
    mask_var : str, optional
        A boolean column of ``adata.var`` (``'highly_variable'``): read the genes it
        marks only, as scanpy's ``mask_var``; of X or a layer.
    max_bytes : int, optional
        Refuse a matrix whose dense size is larger (counting the genes read);
        default 80% of available memory.

    Returns
    -------
    X : ndarray, feature_names : list of str, labels : ndarray of str or None,
    row_ids : ndarray of str (the obs names), what : str (the matrix read).

    Examples
    --------
    >>> import anndata, numpy as np, pandas as pd, tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "a.h5ad")
    >>> obs = pd.DataFrame({"cell": pd.Categorical(["T", "B", "T"])}, index=["c1", "c2", "c3"])
    >>> anndata.AnnData(np.ones((3, 2), dtype=np.float32), obs=obs).write_h5ad(p)
    >>> X, names, y, ids, what = read_h5ad(p, label_column="cell")
    >>> X.shape, y.tolist(), ids.tolist(), what
    ((3, 2), ['T', 'B', 'T'], ['c1', 'c2', 'c3'], 'X')
    """
    anndata = _anndata_module(path)
    adata = None
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            adata = anndata.read_h5ad(path, backed="r")
            matrix, names, what = _chosen_matrix(path, adata, layer, use_raw, obsm)
            columns = None if mask_var is None else _gene_mask(path, adata.var, mask_var, what)
            X = _in_memory(path, matrix, max_bytes, columns)
            if columns is not None:
                names = [names[j] for j in columns]
                what += f" (the {columns.size:,} of {adata.n_vars:,} genes adata.var[{mask_var!r}] marks)"
            elif obsm is None and not use_raw:
                what += _highly_variable_note(adata.var)
        labels = None if label_column is None else _labels(path, adata.obs, label_column)
        row_ids = np.asarray(adata.obs_names, dtype=str)
    except Exception as exc:  # noqa: BLE001 - h5py and anndata raise many types on damaged files
        if isinstance(exc, DataFileError):
            raise
        raise DataFileError(f"{path}: not a readable .h5ad file ({type(exc).__name__}: {exc}).") from None
    finally:
        if adata is not None and getattr(adata, "file", None) is not None:
            adata.file.close()
    if any(type(w.message).__name__ == "OldFormatWarning" for w in caught):
        what += " (an older anndata layout)"  # read correctly; nothing for the user to do
    return X, names, labels, row_ids, what


def _highly_variable_note(var):
    """What a reader of every gene should know when ``var`` marks some highly variable
    (``scanpy.pp.highly_variable_genes``): scanpy's pca reads those alone.

    Examples
    --------
    >>> import pandas as pd
    >>> _highly_variable_note(pd.DataFrame({"highly_variable": [True, False, False]}))[:48]
    ' (every gene: adata.var marks 1 of 3 as highly v'
    """
    marked = var.get("highly_variable")
    if marked is None or marked.dtype != bool or marked.all():
        return ""
    return (
        f" (every gene: adata.var marks {int(marked.sum()):,} of {marked.size:,} as highly variable, which scanpy's "
        "pca reads alone; --mask-var highly_variable reads those alone too)"
    )


def _refuse_repeated_gene(path, name, var_names, matrix):
    """A gene name that several columns carry would give a value per cell for each."""
    positions = np.flatnonzero(np.asarray(var_names) == name)
    if positions.size > 1:
        raise DataFileError(
            f"{path}: gene {name!r} names {positions.size} columns of {matrix} (columns "
            f"{', '.join(str(j + 1) for j in positions[:5])}); make the names unique with "
            "adata.var_names_make_unique()."
        )


def h5ad_columns(path, names):
    """Per-cell values of an ``.h5ad`` file by name, for colouring a map: an ``obs``
    column (categories as their names, numbers as numbers), else a gene (a column of
    ``X``, or of ``raw.X`` when ``X`` lacks it), read one column at a time from disk.

    Parameters
    ----------
    path : str
    names : sequence of str

    Returns
    -------
    dict
        ``{name: ndarray (n_obs,)}`` for the names found; the others are left out.

    Examples
    --------
    >>> import anndata, numpy as np, pandas as pd, tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "a.h5ad")
    >>> obs = pd.DataFrame({"n_genes": [3, 5]}, index=["c1", "c2"])
    >>> var = pd.DataFrame(index=["CD3D", "MS4A1"])
    >>> anndata.AnnData(np.array([[1.0, 0.0], [0.0, 2.0]], dtype=np.float32), obs=obs, var=var).write_h5ad(p)
    >>> {k: v.tolist() for k, v in h5ad_columns(p, ["n_genes", "MS4A1", "nope"]).items()}
    {'n_genes': [3, 5], 'MS4A1': [0.0, 2.0]}
    """
    anndata = _anndata_module(path)
    adata = anndata.read_h5ad(path, backed="r")
    try:
        found = {}
        for name in names:
            if name in adata.obs.columns:
                column = adata.obs[name]
                found[name] = np.asarray(column.astype(str) if column.dtype.kind not in "biuf" else column)
                continue
            for where in (adata, adata.raw):
                if where is not None and name in where.var_names:
                    _refuse_repeated_gene(path, name, where.var_names, "X" if where is adata else "raw.X")
                    values = where[:, name].X if where is adata else where.X[:, where.var_names.get_loc(name)]
                    values = values.toarray() if sp.issparse(values) else np.asarray(values)
                    found[name] = values.ravel().astype(np.float64)
                    break
        return found
    finally:
        adata.file.close()


def write_h5ad(
    path,
    key,
    values,
    *,
    kind="embedding",
    source=None,
    row_ids=None,
    labels=None,
    label_name="label",
    params=None,
    overwrite=False,
    overwrite_key=False,
    graph=None,
    extra=(),
):
    """Write a result into an ``.h5ad`` file as scanpy keeps it: an embedding in
    ``obsm[key]``, cluster labels as a categorical ``obs[key]``, a neighbour graph in
    ``obsp['distances']`` / ``obsp['connectivities']`` with ``uns['neighbors']``; the
    settings as text in ``uns['lowdim'][key]``. With ``source`` (an ``.h5ad`` input) the file is a copy of it
    with the result added (its own content kept; the source itself is never written),
    else a new AnnData of the rows (``row_ids`` as obs names, ``labels`` as an obs
    column). The file appears whole or not at all.

    Parameters
    ----------
    path : str
        The ``.h5ad`` file to write.
    key : str
        'X_umap', 'leiden', ...
    values : ndarray (n, k) or (n,)
    kind : {'embedding', 'clusters'}
    source : str, optional
        The input ``.h5ad`` file.
    row_ids, labels : array-like (n,), optional
        For a new file.
    label_name : str, default='label'
    params : dict, optional
    overwrite : bool, default=False
        Replace an existing file at ``path``.
    overwrite_key : bool, default=False
        Replace an entry ``key`` (or a neighbour graph) the source already holds.
    graph : tuple, optional
        ``(distances, connectivities, params)``: sparse (n, n) kNN distances and
        memberships, and scanpy's ``uns['neighbors']['params']`` ('n_neighbors', 'method',
        'metric').
    extra : sequence of (key, values, kind), optional
        More results written beside it (the embedding that clusters were found on).

    Examples
    --------
    >>> import numpy as np, tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "out.h5ad")
    >>> write_h5ad(p, "X_umap", np.zeros((3, 2)), row_ids=["a", "b", "c"])
    >>> import anndata
    >>> anndata.read_h5ad(p).obsm["X_umap"].shape
    (3, 2)
    """
    import json
    import os

    from ._atomic import atomic_path

    anndata = _anndata_module(path)
    if source is not None and os.path.exists(path) and os.path.samefile(path, source):
        raise DataFileError(f"{path}: is the input file; write the result to a new .h5ad file (the input is kept).")
    values = np.asarray(values)
    if source is not None:
        adata = anndata.read_h5ad(source)
    else:
        adata = _new_anndata(anndata, values.shape[0], row_ids, labels, label_name)
    for name, result, slot in [(key, values, kind), *extra]:
        _add_result(path, adata, name, np.asarray(result), slot, overwrite_key)
    if graph is not None:
        _add_graph(path, adata, graph, overwrite_key)
    lowdim_uns = dict(adata.uns.get("lowdim", {}))
    lowdim_uns[key] = json.dumps(params or {}, default=str, sort_keys=True)
    adata.uns["lowdim"] = lowdim_uns
    with atomic_path(path, overwrite=overwrite) as tmp:
        adata.write_h5ad(tmp)


def _new_anndata(anndata, n, row_ids, labels, label_name):
    """An AnnData of ``n`` rows: ``row_ids`` as obs names, ``labels`` as a categorical obs column."""
    import pandas as pd

    ids = [str(i) for i in (row_ids if row_ids is not None else range(n))]
    adata = anndata.AnnData(obs=pd.DataFrame(index=pd.Index(ids, dtype=str)))
    if labels is not None:
        adata.obs[label_name] = pd.Categorical(np.asarray(labels).astype(str))
    return adata


def _add_result(path, adata, key, values, kind, overwrite_key):
    """Put ``values`` under ``key`` (obsm or obs), refusing a clash unless ``overwrite_key``."""
    import pandas as pd

    if values.shape[0] != adata.n_obs:
        raise DataFileError(
            f"{path}: the result has {values.shape[0]} rows but the input .h5ad has {adata.n_obs} cells (rows were "
            "dropped by --missing drop?); write a table instead, or keep every cell."
        )
    slot = adata.obsm if kind == "embedding" else adata.obs
    where = f"obsm[{key!r}]" if kind == "embedding" else f"obs[{key!r}]"
    if key in slot and not overwrite_key:
        raise DataFileError(f"{path}: the input already holds {where}; pass --overwrite-key to replace it.")
    if kind == "embedding":
        adata.obsm[key] = values
    else:
        labels = values.astype(np.int64)
        adata.obs[key] = pd.Categorical(labels.astype(str), categories=[str(c) for c in np.unique(labels)])


def _add_graph(path, adata, graph, overwrite_key):
    """The neighbour graph under scanpy's default keys, refusing a held one unless ``overwrite_key``."""
    import scipy.sparse as sp

    distances, connectivities, params = graph
    if _holds_graph(adata) and not overwrite_key:
        raise DataFileError(f"{path}: the input already holds a neighbour graph; pass --overwrite-key to replace it.")
    adata.obsp["distances"] = sp.csr_matrix(distances, dtype=np.float64)
    adata.obsp["connectivities"] = sp.csr_matrix(connectivities, dtype=np.float32)
    adata.uns["neighbors"] = {
        "connectivities_key": "connectivities",
        "distances_key": "distances",
        "params": dict(params),
    }


def _holds_graph(adata):
    return "neighbors" in adata.uns or "distances" in adata.obsp or "connectivities" in adata.obsp


def check_h5ad_key(path, source, key, kind, overwrite_key, graph=False):
    """Before any work: refuse a result ``key`` the ``source`` .h5ad already holds (unless
    ``overwrite_key``). (An output that is the source itself is refused by the command
    line's output checks, and by ``write_h5ad``.)

    Parameters
    ----------
    path : str
        The output.
    source : str or None
        The input .h5ad file.
    key : str
    kind : {'embedding', 'clusters'}
    overwrite_key : bool
    graph : bool, default=False
        A neighbour graph will be written too (scanpy's ``obsp`` and ``uns['neighbors']``):
        refuse one the source holds.

    Returns
    -------
    bool
        Whether the source holds a neighbour graph.

    Examples
    --------
    >>> check_h5ad_key("out.h5ad", None, "X_umap", "embedding", False)
    False
    """
    if source is None or not os.path.isfile(source):  # a missing input: the reader names it, as for any file
        return False
    adata = _anndata_module(source).read_h5ad(source, backed="r")
    try:
        held = key in (adata.obsm if kind == "embedding" else adata.obs)
        holds_graph = _holds_graph(adata)
    finally:
        adata.file.close()
    held_graph = graph and holds_graph
    if held and not overwrite_key:
        where = f"obsm[{key!r}]" if kind == "embedding" else f"obs[{key!r}]"
        raise DataFileError(f"{source}: already holds {where}; pass --overwrite-key to replace it in the output.")
    if held_graph and not overwrite_key:
        raise DataFileError(
            f"{source}: already holds a neighbour graph (uns['neighbors'], obsp); pass --overwrite-key to replace it "
            "in the output."
        )
    return holds_graph
