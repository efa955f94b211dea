"""Demo: private principal directions of real 1000 Genomes ancestry-SNP genotypes.

Run with ``python -m dppca.demo`` (``make demo``). Prints each top direction's leading SNPs and
the privacy spent.
"""

from __future__ import annotations

import math

from dppca.datasets import load_1kg_aisnps, snp_alleles
from dppca.stats.directions import dp_loading
from dppca.stats.sensitivity import kendall_sensitivity

EPSILON = 1.0
DELTA = 1e-6
N_DIRECTIONS = 3
N_LEADING = 5


def main(random_state: int | None = None) -> None:
    genotypes, labels = load_1kg_aisnps("kidd")
    alleles = snp_alleles("kidd")
    n, p = genotypes.shape
    result = dp_loading(genotypes, EPSILON, DELTA, random_state=random_state)
    # The R package's sigma, 4 sqrt(2 ln(1.25/delta)) / (n epsilon), for comparison (public: n).
    paper_sigma = kendall_sensitivity(1.0, n, "paper") * math.sqrt(2 * math.log(1.25 / DELTA))
    paper_sigma /= EPSILON
    print(
        f"1000 Genomes, Kidd ancestry SNPs: {n} people x {p} SNPs (0/1/2 allele counts), "
        f"{labels['superpopulation'].nunique()} superpopulations."
    )
    print(
        f"g-DPPCA (spherical signs), epsilon={EPSILON:g}, delta={DELTA:g}: noise sigma "
        f"{result.sigma:.3g} (the paper's calibration would use {paper_sigma:.3g})."
    )
    loadings = result.loadings
    for j in range(N_DIRECTIONS):
        column = loadings.iloc[:, j]
        leading = column.abs().sort_values(ascending=False).index[:N_LEADING]
        print(f"\nPC{j + 1} (noisy Kendall eigenvalue {result.eigenvalues[j]:.4f}): leading SNPs")
        print(f"  {'SNP':<12}{'chr':>4}{'allele':>8}{'loading':>10}")
        for snp in leading:
            row = alleles.loc[snp]
            print(
                f"  {snp:<12}{row['chromosome']:>4}{row['counted_allele']:>8}{column[snp]:>10.3f}"
            )
    print("\nPrivacy spent:")
    print(result.privacy.to_frame().to_string(index=False))
    total = result.privacy.total
    print(f"Total: epsilon={total.epsilon:g}, delta={total.delta:g}")


if __name__ == "__main__":
    main()
