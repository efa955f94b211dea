"""Pinned releases: the same seeds must give the same values (re-pinned when the frame moved to
a sign-and-magnitude search, the grid quantiles to tie-aware utilities, the clip levels to
the positive values, and the random orders of pairs and designs to a keyed permutation).

``python tests/pinned.py`` rewrites ``tests/data/pinned_releases.json`` (only when a change of
the releases is intended); ``tests/test_pinned_releases.py`` compares against it.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np

import dppca
from dppca.datasets import load_1kg_aisnps

PATH = Path(__file__).parent / "data" / "pinned_releases.json"


def releases() -> dict[str, list[float]]:
    genotypes, labels = load_1kg_aisnps("kidd")
    X = genotypes.to_numpy(dtype=np.float64)
    groups = labels["superpopulation"].to_numpy()
    small = np.random.default_rng(0).standard_normal((400, 4)) * [3.0, 2.0, 1.0, 0.5] + 2.0
    out: dict[str, list[float]] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pca = dppca.dp_pca(
            X,
            4.0,
            1e-7,
            groups=groups,
            random_state=11,
            on_weak="release",
            scree={"k": 10},
            noise={"composition": "basic"},
        )
        out["dp_pca directions"] = pca.directions[:, :3].ravel().tolist()
        out["dp_pca scree"] = pca.scree.tolist()
        out["dp_pca frame"] = [*pca.frame.center.tolist(), pca.frame.half_width]
        out["dp_pca histogram"] = pca.histogram["prob"].tolist()
        out["dp_pca group sizes"] = [float(v) for v in pca.group_sizes.values()]
        loading = dppca.dp_loading(
            small,
            1.0,
            1e-6,
            transform="winsorized",
            radius="auto",
            random_state=5,
            on_weak="release",
        )
        out["dp_loading winsorized auto"] = [*loading.kendall.ravel().tolist(), loading.radius]
        continuous = dppca.dp_loading(
            small, 1.0, 1e-6, random_state=5, sampler="continuous", on_weak="release"
        )
        out["dp_loading continuous"] = continuous.kendall.ravel().tolist()
        for method, control in (
            ("pmwm", {"a": 0.0, "b": 100.0, "trim_const": 5, "eta": 0.05}),
            ("huber", None),
        ):
            scree = dppca.dp_scree(
                small,
                3,
                2.0,
                1e-6,
                method=method,
                control=control,
                directions=np.eye(4),
                random_state=6,
                on_weak="release",
            )
            out[f"dp_scree {method}"] = scree.values[method].tolist()
        score = dppca.dp_score(
            small,
            2.0,
            1e-6,
            bins=5,
            method=("thresholded", "sparse"),
            directions=np.eye(4),
            random_state=7,
            composition="basic",
            on_weak="release",
        )
        out["dp_score"] = [
            *score.histograms["thresholded"]["prob"],
            *score.histograms["sparse"]["prob"],
        ]
        out["dp_quantile"] = [dppca.dp_quantile(small[:, 0], 0.5, 1.0, random_state=8).value]
        model = dppca.DPPCA(
            2,
            epsilon=4.0,
            delta=1e-6,
            scree="clipped",
            scree_share=0.5,
            random_state=9,
            composition="basic",
            on_weak="release",
        ).fit(small)
        out["DPPCA"] = [*model.components_.ravel().tolist(), *model.explained_variance_.tolist()]
    return out


if __name__ == "__main__":
    PATH.parent.mkdir(exist_ok=True)
    PATH.write_text(json.dumps(releases(), indent=1) + "\n")
