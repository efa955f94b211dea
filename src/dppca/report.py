"""Write a :class:`~dppca.DPPCAResult` to a folder: JSON, every panel as PNG and SVG, and one
self-contained HTML report (figures embedded). The non-private reference, when computed, is
written by :func:`write_non_private_report` into a folder of its own, never into the report."""

from __future__ import annotations

import base64
import html
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dppca._groups import label_texts
from dppca.plotting._style import pyplot
from dppca.plotting.export import compose_page, render_figure
from dppca.plotting.pages import PageDisplay, page_panels, page_title
from dppca.results.pca import DPPCAResult
from dppca.results.uncertainty import Uncertainty

#: The resolution of the PNG figures, in dots per inch (the SVG figures are vector).
PNG_DPI = 110

CITATION = (
    "Kim, M. and Jung, S. (2025). Robust and differentially private principal component "
    "analysis. Statistical Analysis and Data Mining. doi:10.1002/sam.70053."
)


def _save(images: dict[str, bytes], folder: Path, name: str) -> bytes:
    """Write a figure's PNG and SVG into ``folder``; return the PNG."""
    for extension, image in images.items():
        (folder / f"{name}.{extension}").write_bytes(image)
    return images["png"]


def page_images(
    result: DPPCAResult,
    *,
    non_private: bool = False,
    formats: tuple[str, ...] = ("png", "svg"),
    progress=None,
    **options: Any,
) -> tuple[dict[str, dict[str, bytes]], dict[str, bytes]]:
    """Every panel of a result's page drawn and rendered apart (PNG at :data:`PNG_DPI`, SVG),
    and the page composed of them: ``(panels, page)``, each image keyed by its format.
    ``options``: :func:`~dppca.plotting.pages.page_panels`'s."""
    resolutions = {name: {"png": PNG_DPI, "svg": None}[name] for name in formats}
    rendered = {}
    displays = page_panels(result, non_private=non_private, **options)
    try:
        for panel, display in displays.items():
            rendered[panel] = render_figure(display.figure_, resolutions)  # and closed
            if progress:
                progress()
    finally:  # the panels not rendered when one failed
        for panel, display in displays.items():
            if panel not in rendered:
                pyplot().close(display.figure_)
    return rendered, compose_page(rendered, page_title(result, non_private), dpi=PNG_DPI)


def write_figures(
    result: DPPCAResult,
    folder: Path,
    *,
    random_state: Any,
    uncertainty: Uncertainty | None = None,
    progress=None,
) -> dict[str, bytes]:
    """Every private panel and the private page as PNG and SVG (with noise intervals when
    ``uncertainty`` is given), and with several histogram methods their histograms side by
    side (``histograms``); returns the PNGs."""
    panels, page = page_images(
        result,
        non_private=False,
        progress=progress,
        random_state=random_state,
        uncertainty=uncertainty,
    )
    images = {panel: _save(rendered, folder, panel) for panel, rendered in panels.items()}
    images["page"] = _save(page, folder, "page")
    if len(result.histogram_methods) > 1:
        from dppca.plotting.grids import score_grid

        figure, _ = score_grid(result, panels=("histogram",), random_state=random_state)
        images["histograms"] = _save(
            render_figure(figure, {"png": PNG_DPI, "svg": None}), folder, "histograms"
        )
    return images


def _image(png: bytes, alt: str) -> str:
    data = base64.b64encode(png).decode("ascii")
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'


def _plain_language(result: DPPCAResult) -> str:
    total = result.privacy.total
    factor = math.exp(min(total.epsilon, 700.0))
    return (
        "<p>Every number and picture in the private part of this report was computed from noisy "
        "releases of the data and is <strong>differentially private</strong> with total "
        f"budget ε = {total.epsilon:.3g}, δ = {total.delta:.2g}. In plain words: had any one "
        "person's row been replaced by anyone else's, every possible report would have been "
        f"at most {factor:.3g} times (e<sup>ε</sup>) as likely as it is, apart from a "
        f"probability of at most {total.delta:.2g} (δ). {guarantee_strength(total.epsilon)} "
        "Smaller ε means stronger protection and more noise.</p>"
        + "<p>The number of rows, the column names and the set of group labels are treated as "
        "public. Which person has which label is protected: group sizes and weights are "
        "private estimates from the noisy counts, and no exact count of any group is shown. "
        "Drawing the figures and the synthetic points spends no further budget: they are "
        "computed from the released values only.</p>"
    )


def guarantee_strength(epsilon: float) -> str:
    """One sentence on what a total epsilon means for a single person.

    Examples
    --------
    >>> guarantee_strength(0.5).startswith("So the report reveals very little")
    True
    """
    if epsilon <= 1.0:
        return (
            "So the report reveals very little about any single person, whatever else an "
            "attacker knows."
        )
    if epsilon <= 3.0:
        return (
            "So the report limits what can be learned about any single person: an attacker's "
            "odds on any fact about one person can move by at most this factor."
        )
    if epsilon <= 10.0:
        return (
            "This is a moderate guarantee: an attacker's odds on a fact about one person can "
            "move by this large factor, so it bounds, but does not prevent, inference about "
            "individuals."
        )
    return (
        "This is a weak guarantee: a factor this large offers little protection for a single "
        "person; the report should be treated as close to non-private."
    )


def _notes(result: DPPCAResult) -> str:
    if not result.notes:
        return ""

    items = "".join(f"<li>{html.escape(note)}</li>" for note in result.notes)
    return f'<h2>Notes on noise and budget</h2><ul class="warning">{items}</ul>'


def method_paragraph(result: DPPCAResult, today: str | None = None) -> str:
    """What was done, in words, from the result's own settings: the directions' statistic,
    sensitivity and calibration (``mechanism="paper"`` says so), the sampler, the scree and
    score methods, the frame, the composition, the package version and the date.

    Examples
    --------
    >>> import numpy as np, dppca
    >>> X = np.random.default_rng(0).normal(size=(3000, 4)) * [3, 2, 1, 0.5]
    >>> result = dppca.dp_pca(X, 4.0, 1e-6, random_state=0)
    >>> print(method_paragraph(result, today="2026-01-01")[:94])
    Private directions: g-DPPCA (Kim and Jung 2025), the eigenvectors of the generalized Kendall's
    """
    from dppca import __version__

    settings = result.settings
    loading = settings.get("loading") or {}
    if loading.get("directions") == "given":
        directions = "Directions: given (no budget spent on them)."
    elif loading.get("statistic") == "sscm":
        centre = (
            "a public centre given by the analyst (nothing spent on locating it)"
            if loading.get("centre_given")
            else f"a private centre from {loading.get('centre_steps')} clipped mean steps "
            "scheduled by two private medians"
        )
        weights = (
            "radial weights adapted to the data's tails by a private median of the rows' "
            "distances from the centre"
            if loading.get("spread") is not None
            else "soft outlier weights"
        )
        directions = (
            "Private directions: the eigenvectors of the spatial sign covariance matrix "
            f"(Visuri, Koivunen and Oja 2000) with {weights}, Frobenius sensitivity "
            f"sqrt(2)/n, about {centre}."
        )
    else:
        paper = settings.get("mechanism") == "paper"
        pairs = "all pairs" if loading.get("pairs") == "all" else "an incomplete design of pairs"
        sensitivity = "the paper's" if paper else "the tight"
        directions = (
            "Private directions: g-DPPCA (Kim and Jung 2025), the eigenvectors of the "
            f"generalized Kendall's tau matrix of {loading.get('transform', 'spherical')} "
            f"spatial signs over {pairs}, with {sensitivity} Frobenius sensitivity and "
            f"{loading.get('calibration', 'analytic')} Gaussian calibration"
            + (" (the R package's mechanism)." if paper else ".")
        )
    sampler = settings.get("sampler", "discrete")
    noise = (
        "exact discrete noise on a secure stream, Gaussian parts accounted by zero-concentrated DP"
        if sampler == "discrete"
        else "continuous floating-point noise (for studies, not for publication)"
    )
    composition = settings.get("composition") or {}
    rule = composition.get("rule", "basic")
    factor = composition.get("factor", 1.0)
    combined = (
        "tight composition of the releases' privacy losses (each part got "
        f"{factor:.3g} times its share of epsilon)"
        if rule == "tight"
        else "basic composition (the parts' budgets add up)"
    )
    score = settings.get("score") or {}
    frame = (
        "public limits"
        if score.get("frame") == "public"
        else "a private centre (sign-and-magnitude, then a window) with the width of the "
        "private scree"
    )
    scale = (settings.get("scale") or {}).get("kind")
    scaled = {
        None: "",
        "private": " Variables divided by private robust scales.",
        "public": " Variables divided by given public scales.",
    }[scale]
    return (
        f"{directions} Scree: {_methods(result.scree_methods)} on random pairs. "
        f"Score plot: {_methods(result.histogram_methods, 'private histogram')} on {frame}. "
        f"Noise: {noise}; {combined}.{scaled} Computed with dppca {__version__} on "
        f"{today or _today()}."
    )


def _methods(methods: tuple[str, ...], what: str = "method") -> str:
    """The methods of a part, in words: "the clipped method", or several compared on equal
    shares of the part's budget."""
    if len(methods) == 1:
        return f"the {methods[0]} {what}"
    return (
        f"the {', '.join(methods[:-1])} and {methods[-1]} {what}s side by side, each on an "
        f"equal share of the part's budget (the {methods[0]} {what} feeds the other releases)"
    )


def _today() -> str:
    import datetime

    return datetime.date.today().isoformat()


def _noise_components(result: DPPCAResult) -> str:
    """The components whose released variance is within two noise sd of 0, named apart."""
    sd = result.noise.get("scree_sd")
    if sd is None or not len(result.scree):
        return ""
    within = [
        f"PC{j + 1}"
        for j, (value, noise) in enumerate(zip(result.scree, sd, strict=False))
        if value < 2.0 * noise
    ]
    if not within:
        return ""
    return (
        f'<p class="warning">Within two noise sd of 0, so mostly noise: {", ".join(within)} '
        "(their variances and proportions say little).</p>"
    )


def _status(result: DPPCAResult) -> str:
    """The status of each release (:mod:`dppca.results.status`): a table, with the releases
    that are not usable said first in words."""
    if not result.status:
        return ""
    rows = "".join(
        f"<tr><td>{html.escape(name)}</td><td>{html.escape(status.state)}</td>"
        f"<td>{'yes' if status.usable else 'no: released as NaN'}</td>"
        f"<td>{html.escape(status.reason)}</td></tr>"
        for name, status in result.status.items()
    )
    lost = [name for name, status in result.status.items() if not status.usable]
    lead = (
        f'<p class="warning">Not usable, and not shown as results: {", ".join(lost)}.</p>'
        if lost
        else ""
    )
    return (
        f'<h2>Status of the releases</h2>{lead}<table class="table"><tr><th>release</th>'
        f"<th>state</th><th>usable</th><th>why</th></tr>{rows}</table>"
    )


def _uncertainty_section(uncertainty: Uncertainty | None) -> str:
    if uncertainty is None:
        return ""
    table = uncertainty.pve[["value", "lower", "upper"]].join(uncertainty.stability)
    table.columns = [
        "PVE",
        "lower",
        "upper",
        "mean sin Θ to a redraw",
        "swaps with next",
        "separated from the noise",
    ]
    unstable = uncertainty.unstable()
    note = (
        "<p>Components whose direction is not determined under the noise: "
        + ", ".join(f"PC{j}" for j in unstable)
        + ".</p>"
        if unstable
        else "<p>Every component's direction is stable under the noise.</p>"
    )
    return (
        f"<h2>Uncertainty from the privacy noise</h2><p>{uncertainty.level:.0%} intervals "
        "from the noise's known distribution around the released values (no budget): the "
        "scree's and PVE's hold every noiseless value at once; a direction's loadings get "
        f"intervals from {uncertainty.draws} redraws when its eigenvalue is separated from the "
        "others beyond the noise, and the whole range [-1, 1] when it is not. They describe the "
        "privacy noise only, not the sampling error of the data.</p>"
        + table.to_html(float_format=lambda v: f"{v:.3g}", classes="table")
        + note
    )


STYLE = """<style>
body { font-family: system-ui, sans-serif; max-width: 1200px; margin: 2em auto; color: #222; }
img { max-width: 100%; }
.table { border-collapse: collapse; } .table td, .table th { border: 1px solid #ccc;
padding: 3px 8px; text-align: right; }
.ledger td:nth-child(-n+2) { text-align: left; }
.warning { color: #8a1c1c; font-weight: bold; }
pre { background: #f6f6f6; padding: 1em; overflow-x: auto; }
</style>"""


def write_release(
    result: DPPCAResult,
    folder: Path,
    *,
    uncertainty: Uncertainty,
    random_state: Any,
    title: str,
    source: str,
    on_step: Callable[[str], None] | None = None,
) -> Path:
    """Everything a private run publishes, into ``folder``: ``release.json`` (the release and
    its noise intervals), every panel and the page as PNG and SVG (synthetic points drawn with
    ``random_state``), and ``report.html``; ``on_step`` hears each stage's name."""
    release = result.to_dict()
    release["uncertainty"] = uncertainty.to_dict()
    (folder / "release.json").write_text(json.dumps(release, indent=1))
    if on_step:
        on_step("drawing figures")
    images = write_figures(result, folder, random_state=random_state, uncertainty=uncertainty)
    if on_step:
        on_step("writing the report")
    return write_report(result, folder, images, title=title, source=source, uncertainty=uncertainty)


def _compared_histograms(images: dict[str, bytes]) -> str:
    """The histogram methods side by side, when several were released."""
    if "histograms" not in images:
        return ""
    return (
        "<h2>Score histograms compared</h2>\n"
        + _image(images["histograms"], "The private score histogram of each method")
        + "\n<p>Each method's histogram is a release of its own on an equal share of the "
        "score histogram's budget (also saved as histograms.png and histograms.svg).</p>"
    )


def write_non_private_report(
    result: DPPCAResult, folder: Path, *, title: str, source: str, random_state: Any = None
) -> Path:
    """The non-private reference in its own folder: ``report.html`` (marked NOT private),
    ``reference.json`` and the reference page as PNG and SVG. Never part of the private report.
    """
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "reference.json").write_text(result.to_json(include_non_private=True, indent=1))
    _, images = page_images(result, non_private=True, random_state=random_state)
    png = _save(images, folder, "page")
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>NOT PRIVATE: reference for {html.escape(title)}</title>
{STYLE}</head><body>
<h1 class="warning">Non-private reference: NOT differentially private</h1>
<p class="warning">Ordinary PCA of the raw data ({html.escape(source)}), for the data holder's
own comparison with the private release. It is not protected and must never be published or
shared; keep this folder apart from the private report.</p>
{_image(png, "Non-private reference page")}
</body></html>
"""
    path = folder / "report.html"
    path.write_text(page, encoding="utf-8")
    return path


def write_report(
    result: DPPCAResult,
    folder: Path,
    images: dict[str, bytes],
    *,
    title: str,
    source: str,
    uncertainty: Uncertainty | None = None,
) -> Path:
    """One self-contained HTML page: figures, budget and importance tables, settings, notes,
    and (when given) the noise intervals and stability of the components."""
    summary = result.summary()
    budget = summary.budget.to_html(float_format=lambda v: f"{v:.4g}", classes="table")
    importance = summary.importance.to_html(float_format=lambda v: f"{v:.4g}", classes="table")
    ledger = "".join(
        f"<tr><td>{html.escape(str(row.name))}</td><td>{html.escape(str(row.mechanism))}</td>"
        f"<td>{row.epsilon:.4g}</td><td>{row.delta:.3g}</td>"
        f"<td>{html.escape(str(row.loss))}</td></tr>"
        for row in result.privacy.to_frame()
        .rename(columns={"privacy loss": "loss"})
        .itertuples(index=False)
    )
    composition = f"<p>{html.escape(summary.budget_note)}</p>" if summary.budget_note else ""
    settings = html.escape(
        json.dumps(
            {
                key: value
                for key, value in result.to_dict()["settings"].items()
                if key != "scree_details"
            },
            indent=2,
        )
    )
    groups = ""
    if result.group_sizes is not None:
        shown = label_texts(list(result.group_sizes)).values()
        groups = f"; group labels (public): {', '.join(shown)}"
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
{STYLE}</head><body>
<h1>{html.escape(title)}</h1>
<p>Data: {html.escape(source)}: {result.n_samples} rows x {len(result.feature_names)}
variables{html.escape(groups)}.</p>
<h2>What the guarantee means</h2>
{_plain_language(result)}
{_status(result)}
{_notes(result)}
<h2>Private results</h2>
{_image(images["page"], "Private PCA page")}
<p>Each panel is also saved on its own as PNG and SVG next to this report ({
        ", ".join(f"{name}.png" for name in PageDisplay.PANELS)
    }).</p>
{_compared_histograms(images)}
<h2>Importance of components (private)</h2>
{importance}
{_noise_components(result)}<p>Proportions are normalised over the {
        result.k
    } estimated components.</p>
{_uncertainty_section(uncertainty)}
<h2>Privacy budget</h2>
{budget}
{composition}
<details><summary>Every release (the full ledger)</summary>
<table class="table ledger"><tr><th>release</th><th>mechanism</th><th>ε</th><th>δ</th>
<th>privacy loss</th></tr>{ledger}</table></details>
<details><summary>Settings, as given and resolved</summary>
<pre>{settings}</pre></details>
<h2>Method and citation</h2>
<p>{html.escape(method_paragraph(result))}</p>
<p>{html.escape(CITATION)}</p>
</body></html>
"""
    path = folder / "report.html"
    path.write_text(page, encoding="utf-8")
    return path
