/* The least a program can do to time OpenBLAS GEMM: the baseline ironbench's gemm is
 * compared with (bench/gemm_vs_openblas.py). Row-major C = A*B, inputs uniform in [-1, 1),
 * one untimed call, then REPS timed calls; prints the median and minimum seconds.
 * Usage: openblas_gemm_direct d|s M N K REPS */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int compare(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  if (argc != 6 || (argv[1][0] != 'd' && argv[1][0] != 's')) {
    fprintf(stderr, "usage: %s d|s M N K REPS\n", argv[0]);
    return 2;
  }
  const int dp = argv[1][0] == 'd';
  const long m = atol(argv[2]), n = atol(argv[3]), k = atol(argv[4]), reps = atol(argv[5]);
  const size_t size = dp ? sizeof(double) : sizeof(float);
  void* a = malloc((size_t)(m * k) * size);
  void* b = malloc((size_t)(k * n) * size);
  void* c = malloc((size_t)(m * n) * size);
  double* times = malloc((size_t)reps * sizeof(double));
  if (!a || !b || !c || !times || reps < 1) return 1;
  srand(1);
  for (long i = 0; i < m * k; ++i) {
    const double v = 2.0 * rand() / RAND_MAX - 1.0;
    if (dp) ((double*)a)[i] = v; else ((float*)a)[i] = (float)v;
  }
  for (long i = 0; i < k * n; ++i) {
    const double v = 2.0 * rand() / RAND_MAX - 1.0;
    if (dp) ((double*)b)[i] = v; else ((float*)b)[i] = (float)v;
  }
  for (long r = -1; r < reps; ++r) {
    const double start = now();
    if (dp) {
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, a, k, b, n, 0.0, c, n);
    } else {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n);
    }
    if (r >= 0) times[r] = now() - start;
  }
  qsort(times, (size_t)reps, sizeof(double), compare);
  const double median = reps % 2 ? times[reps / 2] : 0.5 * (times[reps / 2 - 1] + times[reps / 2]);
  printf("median_s %.9f min_s %.9f\n", median, times[0]);
  free(a); free(b); free(c); free(times);
  return 0;
}
