"""The ranker's loss: the softmax cross-entropy over each quotation's candidates."""

import numpy as np

from litlens.attribution.ranker import candidate_softmax_loss


def _loss(y_true: np.ndarray, y_pred: np.ndarray, group: np.ndarray) -> float:
    total, start = 0.0, 0
    for n in group:
        z = y_pred[start : start + n]
        logp = z - np.log(np.exp(z - z.max()).sum()) - z.max()
        total -= float(logp[y_true[start : start + n] == 1].sum())
        start += n
    return total


def test_gradient_matches_finite_differences_of_the_per_quotation_loss():
    rng = np.random.default_rng(0)
    group = np.array([3, 1, 5, 2])
    y_true = np.zeros(group.sum())
    for k, start in enumerate(np.concatenate([[0], np.cumsum(group)[:-1]])):
        y_true[start + rng.integers(group[k])] = 1
    y_pred = rng.normal(size=group.sum()) * 3
    grad, hess = candidate_softmax_loss(y_true, y_pred, None, group)
    eps = 1e-6
    for i in range(len(y_pred)):
        up, down = y_pred.copy(), y_pred.copy()
        up[i] += eps
        down[i] -= eps
        assert abs((_loss(y_true, up, group) - _loss(y_true, down, group)) / (2 * eps) - grad[i]) < 1e-5
    assert np.all(hess > 0)
    assert grad[3] == 0.0  # a quotation with one candidate: nothing to learn


def test_each_quotation_is_normalised_on_its_own():
    # shifting one quotation's scores by a constant leaves every gradient unchanged
    group = np.array([2, 3])
    y_true = np.array([1, 0, 0, 0, 1], dtype=float)
    y_pred = np.array([0.5, -1.0, 2.0, 0.0, 1.0])
    shifted = y_pred + np.array([0, 0, 100.0, 100.0, 100.0])
    assert np.allclose(candidate_softmax_loss(y_true, y_pred, None, group)[0], candidate_softmax_loss(y_true, shifted, None, group)[0])


def test_the_learners_are_blended_by_geometric_mean_and_a_ruled_out_candidate_stays_out():
    from litlens.attribution.ranker import blend

    pairs = [{0: 0.8, 1: 0.2, 2: 0.0}, {}]
    choice = [{0: 0.2, 1: 0.8, 2: 0.0}, {}]
    out = blend([pairs, choice])
    assert out[1] == {}
    assert abs(out[0][0] - 0.5) < 1e-12 and abs(out[0][1] - 0.5) < 1e-12 and out[0][2] == 0.0
    sharper = blend([[{0: 0.9, 1: 0.1}], [{0: 0.6, 1: 0.4}]])[0]
    assert 0.6 < sharper[0] < 0.9 and abs(sum(sharper.values()) - 1) < 1e-12
