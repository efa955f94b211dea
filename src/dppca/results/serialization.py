"""The JSON form of :class:`~dppca.results.pca.DPPCAResult`: plain dicts and lists, the ledger
with its components, the reference only on request."""

from __future__ import annotations

import math
from dataclasses import asdict
from typing import Any, cast

import numpy as np
import pandas as pd

from dppca.privacy.budget import Budget, LedgerEntry, PrivacyLedger
from dppca.privacy.composition import PrivacyLoss
from dppca.privacy.split import PARTS, PCASplit
from dppca.results.compared import ComparedMethods
from dppca.results.frame import Frame
from dppca.results.reference import NonPrivatePCA
from dppca.results.status import ReleaseStatus

FORMAT = "dppca.DPPCAResult"
FORMAT_VERSION = 8
#: Versions that can be read (4: no scales, three parts; 5: no privacy losses, basic ledgers;
#: 6: no status; 7: no compared methods).
READABLE_VERSIONS = (4, 5, 6, 7, 8)


def result_to_dict(result: Any, include_non_private: bool) -> dict[str, Any]:
    """The dict of :meth:`DPPCAResult.to_dict <dppca.results.pca.DPPCAResult.to_dict>`."""
    data: dict[str, Any] = {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "n_samples": result.n_samples,
        "feature_names": list(result.feature_names),
        "k": result.k,
        "axes": list(result.axes),
        "bins": list(result.bins),
        "directions": result.directions.tolist(),
        "kendall_eigenvalues": _optional_list(result.kendall_eigenvalues),
        "scales": _optional_list(result.scales),
        "scree": result.scree.tolist(),
        "pve": result.pve.tolist(),
        "frame": {
            "center": result.frame.center.tolist(),
            "half_width": result.frame.half_width,
            "distance_quantile": result.frame.distance_quantile,
            "inflate": result.frame.inflate,
            "distance_level": result.frame.distance_level,
            "scale": result.frame.scale,
        },
        "histogram": _table_to_dict(result.histogram),
        "groups": None
        if result.groups is None
        else [
            {
                "label": _json_label(label),
                "estimated_size": (result.group_sizes or {}).get(label),
                "histogram": _table_to_dict(table),
            }
            for label, table in result.groups.items()
        ],
        "budgets": {name: [b.epsilon, b.delta] for name, b in result.budgets.as_dict().items()},
        "settings": _jsonable(result.settings),
        "privacy": [
            {
                "name": e.name,
                "mechanism": e.mechanism,
                "epsilon": e.epsilon,
                "delta": e.delta,
                "component": e.component,
                "losses": [asdict(loss) for loss in e.losses],
            }
            for e in result.privacy
        ],
        "composition": {
            "rule": result.privacy.composition,
            "target_epsilon": result.privacy.target_epsilon,
        },
        "privacy_total": [result.privacy.total.epsilon, result.privacy.total.delta],
        "noise": _jsonable(result.noise),
        "notes": list(result.notes),
        "status": {name: status.to_dict() for name, status in result.status.items()},
        "compared": result.compared.to_dict(_table_to_dict, _json_label),
    }
    if include_non_private:
        if result.non_private is None:
            raise ValueError(
                "include_non_private=True, but no non-private reference was computed; run "
                "dp_pca(..., non_private=True)."
            )
        reference = result.non_private
        data["non_private"] = {
            "warning": "NOT differentially private: ordinary PCA of the raw data.",
            "directions": reference.directions.tolist(),
            "eigenvalues": reference.eigenvalues.tolist(),
            "pve": reference.pve.tolist(),
            "scores": {
                column: _json_values(reference.scores[column])
                for column in reference.scores.columns
            },
            "histogram": _table_to_dict(reference.histogram),
            "groups": None
            if reference.groups is None
            else [
                {"label": _json_label(label), "histogram": _table_to_dict(table)}
                for label, table in reference.groups.items()
            ],
            "variable_sd": reference.variable_sd.tolist(),
        }
    return cast("dict[str, Any]", _finite_or_none(data))


def _finite_or_none(value: Any) -> Any:
    """NaN (a value released as unusable) as None, so that the text is strict JSON."""
    if isinstance(value, dict):
        return {key: _finite_or_none(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_finite_or_none(item) for item in value]
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _number(value: Any) -> float:
    """A JSON number, None meaning NaN."""
    return math.nan if value is None else float(value)


def result_fields(data: dict[str, Any]) -> dict[str, Any]:
    """The fields of a result from :func:`result_to_dict` output (refused when it is not one)."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"data is not a {FORMAT} export.")
    if data.get("version") not in READABLE_VERSIONS:
        raise ValueError(f"Unsupported {FORMAT} version {data.get('version')!r}.")
    entries = [
        LedgerEntry(
            **{key: value for key, value in entry.items() if key != "losses"},
            losses=tuple(PrivacyLoss(**loss) for loss in entry.get("losses", [])),
        )
        for entry in data["privacy"]
    ]
    composition = data.get("composition", {"rule": "basic", "target_epsilon": None})
    ledger = PrivacyLedger(
        entries,
        composition=composition["rule"],
        target_epsilon=composition["target_epsilon"],
    )
    frame_ledger = ledger.select("score.frame")
    frame = Frame(
        center=np.array(data["frame"]["center"], dtype=float),
        half_width=_number(data["frame"]["half_width"]),
        distance_quantile=_number(data["frame"]["distance_quantile"]),
        inflate=data["frame"]["inflate"],
        distance_level=_number(data["frame"]["distance_level"]),
        scale=_number(data["frame"]["scale"]),
        privacy=frame_ledger,
    )
    groups = group_sizes = None
    if data["groups"] is not None:
        groups = {item["label"]: _table_from_dict(item["histogram"]) for item in data["groups"]}
        group_sizes = {item["label"]: item["estimated_size"] for item in data["groups"]}
    non_private = None
    if "non_private" in data:
        ref = data["non_private"]
        scores = pd.DataFrame(ref["scores"])
        if "group" in scores:
            scores["group"] = pd.Categorical(scores["group"], categories=list(groups or []))
        non_private = NonPrivatePCA(
            directions=np.array(ref["directions"]),
            eigenvalues=np.array(ref["eigenvalues"]),
            pve=np.array(ref["pve"]),
            scores=scores,
            histogram=_table_from_dict(ref["histogram"]),
            groups=None
            if ref["groups"] is None
            else {item["label"]: _table_from_dict(item["histogram"]) for item in ref["groups"]},
            variable_sd=np.array(ref["variable_sd"]),
        )
    return dict(
        directions=np.array(data["directions"], dtype=float),
        kendall_eigenvalues=_optional_array(data["kendall_eigenvalues"]),
        scree=np.array(data["scree"], dtype=float),
        pve=np.array(data["pve"], dtype=float),
        frame=frame,
        histogram=_table_from_dict(data["histogram"]),
        groups=groups,
        group_sizes=group_sizes,
        feature_names=list(data["feature_names"]),
        n_samples=data["n_samples"],
        k=data["k"],
        axes=tuple(data["axes"]),
        bins=tuple(data["bins"]),
        budgets=PCASplit(
            **{name: Budget(*data["budgets"].get(name, [0.0, 0.0])) for name in PARTS}
        ),
        settings=data["settings"],
        privacy=ledger,
        non_private=non_private,
        noise=data["noise"],
        notes=tuple(data["notes"]),
        scales=_optional_array(data.get("scales")),
        status={
            name: ReleaseStatus.from_dict(status) for name, status in data.get("status", {}).items()
        },
        compared=ComparedMethods.from_dict(data.get("compared", {}), _table_from_dict),
    )


def _optional_list(values: np.ndarray | None) -> list[float] | None:
    return None if values is None else values.tolist()


def _optional_array(values: list[float] | None) -> np.ndarray | None:
    return None if values is None else np.array(values, dtype=float)


def _table_to_dict(table: pd.DataFrame) -> dict[str, list[float]]:
    return {column: table[column].astype(float).tolist() for column in table.columns}


def _table_from_dict(data: dict[str, list[float]]) -> pd.DataFrame:
    return pd.DataFrame({column: np.array(values, dtype=float) for column, values in data.items()})


def _json_label(label: Any) -> Any:
    """A group label as a JSON value: strings, integers, floats and booleans stay as they are."""
    if isinstance(label, np.generic):
        label = label.item()
    return label if isinstance(label, str | int | float | bool) else str(label)


def _json_values(series: pd.Series) -> list[Any]:
    if isinstance(series.dtype, pd.CategoricalDtype):
        return [_json_label(value) for value in series]
    return series.astype(float).tolist()


def _jsonable(value: Any) -> Any:
    """Settings as plain JSON types (arrays to lists, tuples to lists)."""
    if isinstance(value, dict):
        return {str(key): _jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(item) for item in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value
