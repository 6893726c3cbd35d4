// Faithfulness of an attribution and the ablation surrogate (method.md §14.2), torch-free: the model enters only
// through a function that gives log P(target) for sets of hidden prompt positions (maskedTargetLogProbs).
// - deletion curve D(k) = f(n_1 … n_k), insertion curve I(k) = f(every node but n_1 … n_k), k = 0 … m, over the
//   nodes in attribution order (largest first); AUC = (1/m) Σ_k (g(k−1) + g(k)) / 2; a random order's AUCs are the
//   mean over R seeded uniform orders;
// - the surrogate: a Lasso fit of f on random keep/hide masks (each node kept with probability 1/2), its
//   coefficients the attribution, its R² on held-out masks.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace ascviz {

// log P(target) for each set of hidden positions (the union of the hidden nodes' token positions; {} = clean).
using HiddenLogProbs = std::function<std::vector<double>(const std::vector<std::vector<std::size_t>>& hidden)>;

// AUC of a curve g(0 … m) on x = k/m by trapezoids: (1/m) Σ_{k=1}^{m} (g(k−1) + g(k)) / 2. A curve of one point
// (m = 0) has AUC g(0).
double curveAuc(const std::vector<double>& g);

// The order of nodes by attribution, largest first; equal values keep the lower index first.
std::vector<std::size_t> attributionOrder(const std::vector<double>& attribution);

struct Faithfulness {
    std::vector<double> deletion, insertion; // D(0 … m), I(0 … m) in the attribution's order
    double deletionAuc = 0, insertionAuc = 0;
    double randomDeletionAuc = 0, randomInsertionAuc = 0; // means over `randomOrders` seeded orders
    std::size_t evaluations = 0;                          // distinct hidden sets passed to f
    int randomOrders = 0;
};

// nodes[j]: node j's token positions; attribution[j] its value. Every distinct hidden set (of the attribution's
// order and of the random orders) is passed to f once, in one call.
Faithfulness faithfulness(const std::vector<std::vector<std::size_t>>& nodes, const std::vector<double>& attribution,
                          const HiddenLogProbs& f, int randomOrders = 10, uint64_t seed = 20260126);

// Lasso by cyclic coordinate descent: minimises (1/(2n)) Σ_i (y_i − β_0 − Σ_j β_j x_ij)² + λ Σ_j |β_j| (the
// intercept unpenalised). Rows of x are observations. Stops when no coefficient moves by more than `tol` in a sweep
// or after `maxSweeps`.
struct LassoFit {
    double intercept = 0;
    std::vector<double> coef;
    int sweeps = 0;
};
LassoFit lasso(const std::vector<std::vector<double>>& x, const std::vector<double>& y, double lambda,
               int maxSweeps = 2000, double tol = 1e-10);
// The smallest λ at which every coefficient is 0: max_j |(1/n) Σ_i (x_ij − x̄_j)(y_i − ȳ)|.
double lassoLambdaMax(const std::vector<std::vector<double>>& x, const std::vector<double>& y);
// R² = 1 − Σ(y − ŷ)² / Σ(y − ȳ)² of `fit` on (x, y); ȳ is the mean of these y. 0 when y is constant.
double rSquared(const LassoFit& fit, const std::vector<std::vector<double>>& x, const std::vector<double>& y);

struct Surrogate {
    std::vector<double> attribution; // β_j per node
    double intercept = 0;
    double lambda = 0;
    double heldOutR2 = 0;
    std::size_t masks = 0, trainMasks = 0;
};
// `masks` random masks (each node kept with probability 1/2, seeded), y = f(hidden nodes' positions); the first
// ⌈3/4⌉ of the masks train the Lasso, the rest give the held-out R². λ = c · λ_max with c chosen from
// {0.3, 0.1, 0.03, 0.01, 0.003} by 3-fold cross-validation on the training masks (the held-out masks never
// choose it). `masks` >= 4.
Surrogate surrogateAttribution(const std::vector<std::vector<std::size_t>>& nodes, const HiddenLogProbs& f,
                               std::size_t masks = 63, uint64_t seed = 20260126);

} // namespace ascviz
