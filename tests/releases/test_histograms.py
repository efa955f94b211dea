"""Histogram mechanisms, the grid and the binning."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

from dppca import PrivacyLedger
from dppca.exceptions import EmptyHistogramError
from dppca.privacy.histograms import (
    HistogramMechanism,
    stability_histogram,
    stability_parameters,
)
from dppca.privacy.mechanisms import Noise
from dppca.releases.histogram import cell_index, check_bins, grid_cells, private_probabilities
from dppca.results.frame import Frame

DRAWS = 400
CELLS = 50


def _sigma(epsilon, delta, calibration="analytic", sampler="continuous"):
    mechanism = HistogramMechanism("add", epsilon, delta, sampler, calibration)
    return mechanism.parameters["add_sigma"]


def _continuous(seed):
    return Noise("continuous", np.random.default_rng(seed))


def _frame(center=(0.0, 0.0), half_width=1.0):
    return Frame(np.array(center), half_width, half_width / 1.2, 0.2, PrivacyLedger())


def test_gaussian_sigma_values():
    assert _sigma(0.5, 1e-5, "classical") == pytest.approx(
        math.sqrt(2) * math.sqrt(2 * math.log(1.25 / 1e-5)) / 0.5, rel=1e-15
    )
    # Sensitivity sqrt 2: the analytic condition (Balle and Wang 2018) holds for sigma / sqrt 2.
    s = _sigma(2.0, 1e-6) / math.sqrt(2)
    exact = norm.cdf(1 / (2 * s) - 2.0 * s) - math.exp(2.0) * norm.cdf(-1 / (2 * s) - 2.0 * s)
    assert exact == pytest.approx(1e-6, rel=1e-6)


@pytest.mark.parametrize("calibration", ["analytic", "classical"])
def test_additive_noise_has_sigma_h(calibration):
    """sd of noisy - true over 20000 draws; relative sd of a sample sd is sqrt(1 / (2m))."""
    mechanism = HistogramMechanism("add", 0.5, 1e-6, "continuous", calibration)
    sigma = mechanism.parameters["add_sigma"]
    counts = np.full(CELLS, 1e4)  # far from 0: clipping never acts
    source = _continuous(0)
    noise = np.array([mechanism.randomise(counts, source) - counts for _ in range(DRAWS)])
    m = noise.size
    assert noise.std() / sigma == pytest.approx(1.0, abs=5 / math.sqrt(2 * m))
    assert abs(noise.mean()) < 5 * sigma / math.sqrt(m)


def test_additive_clips_negatives_and_thresholded_keeps_three_sd():
    for method, expected in (("add", 0.5), ("thresholded", norm.sf(3.0))):
        mechanism = HistogramMechanism(method, 0.5, 1e-6)
        noisy = mechanism.randomise(np.zeros(20000), _continuous(1))
        share = np.count_nonzero(noisy) / noisy.size
        assert noisy.min() == 0.0
        assert abs(share - expected) < 5 * math.sqrt(expected * (1 - expected) / noisy.size)


def test_sparse_noise_scale_and_threshold():
    scale, threshold = stability_parameters(0.5, 1e-6)
    assert scale == 4.0
    assert threshold == pytest.approx(1 + 2 * math.log(2e6) / 0.5, rel=1e-15)
    rng = _continuous(2)
    far = np.full(CELLS, 1e4)
    noise = np.array([stability_histogram(far, scale, threshold, rng) - far for _ in range(DRAWS)])
    m = noise.size
    # Laplace(b) has sd b sqrt(2); its sample sd has relative sd about sqrt(5 / (4 m)).
    assert noise.std() / (scale * math.sqrt(2)) == pytest.approx(1.0, abs=5 * math.sqrt(1.25 / m))
    # Cells 15 scales below the threshold pass with probability exp(-15) / 2 < 2e-7.
    below = np.full(CELLS, threshold - 15 * scale)
    assert all(np.all(stability_histogram(below, scale, threshold, rng) == 0) for _ in range(DRAWS))
    empty = np.zeros(CELLS)
    assert np.all(stability_histogram(empty, 1e-9, 0.0, rng) == 0)  # empty cells get no noise


def test_probabilities_sum_to_one_or_zero():
    rng = _continuous(3)
    counts = np.array([500.0, 300.0, 0.0, 200.0])
    for method in ("add", "sparse", "thresholded"):
        prob, total = private_probabilities(counts, HistogramMechanism(method, 1.0, 1e-6), rng)
        assert total > 0
        assert prob.sum() == pytest.approx(1.0, abs=1e-12) and prob.min() >= 0
    tiny = HistogramMechanism("sparse", 0.01, 1e-6)
    prob, total = private_probabilities(np.array([3.0, 2.0]), tiny, rng)
    assert total == 0
    assert np.array_equal(prob, np.zeros(2))


def test_all_zero_additive_histogram_raises():
    mechanism = HistogramMechanism("add", 1e-5, 1e-6)  # sigma about 5e5 counts
    rng = _continuous(0)
    raised = 0
    for _ in range(20):
        try:
            private_probabilities(np.array([1.0]), mechanism, rng, where=" of group 'a'")
        except EmptyHistogramError as error:
            assert "of group 'a' is all zero" in str(error) and "larger epsilon" in str(error)
            raised += 1
    assert 3 <= raised <= 17  # each draw is all zero with probability about 1/2


def test_grid_is_x_fastest_and_covers_the_frame():
    cells = grid_cells(_frame(center=(1.0, -2.0), half_width=2.0), (4, 2))
    assert list(cells.columns) == ["xmin", "xmax", "ymin", "ymax"]
    assert len(cells) == 8
    assert cells["xmin"].tolist()[:4] == [-1.0, 0.0, 1.0, 2.0]
    assert cells["ymin"].tolist() == [-4.0] * 4 + [-2.0] * 4
    assert cells["xmax"].iloc[-1] == 3.0 and cells["ymax"].iloc[-1] == 0.0


def test_binning_clamps_outside_scores_and_counts_sum_to_n():
    frame = _frame()
    scores = np.array(
        [
            [-1.0, -1.0],  # the lower-left corner: first cell (closed)
            [1e9, 0.1],  # far right: last column
            [-1e9, -1e9],  # far lower-left: first cell
            [0.0, 1e12],  # far above: top row; 0 is in the right-closed (-0.5, 0]
            [0.5, 0.5],  # inside: (0.5 right-closed in [0, 0.5]) -> bx = 2 with 4 bins
        ]
    )
    index = cell_index(scores, frame, (4, 4))
    assert index.tolist() == [0, 2 * 4 + 3, 0, 3 * 4 + 1, 2 * 4 + 2]
    rng = np.random.default_rng(0)
    many = rng.standard_normal((1000, 2)) * 10
    assert np.bincount(cell_index(many, frame, (7, 3)), minlength=21).sum() == 1000


@pytest.mark.parametrize(
    ("bins", "error", "message"),
    [
        (0, ValueError, "bins must be an integer >= 1"),
        ((3, 0), ValueError, "bins must be an integer >= 1"),
        ("10", TypeError, "bins must be a positive integer or a pair"),
        ((1, 2, 3), TypeError, "pair"),
        ((2.5, 3), TypeError, "bins must be an integer"),
        ((2000, 2000), ValueError, "at most 1000000 cells"),
    ],
)
def test_bins_errors(bins, error, message):
    with pytest.raises(error, match=message):
        check_bins(bins)


def test_bins_forms():
    assert check_bins(5) == (5, 5)
    assert check_bins((3, np.int64(4))) == (3, 4)
    assert check_bins([2, 7]) == (2, 7)
