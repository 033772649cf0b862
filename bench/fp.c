/* Floating-point kernel, in double: a gravitational n-body simulation (all pairs, with sqrt and
 * division) and a dense matrix multiply. Built with -ffp-contract=off so that no target fuses a
 * multiply and an add, which keeps every result bit-identical and the checksum comparable. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define BODIES 24
#define STEPS 3600
#define DIM 96
#define PRODUCTS 16

struct body {
  double x[3], v[3], m;
};

static struct body bodies[BODIES];
static double ma[DIM][DIM], mb[DIM][DIM], mc[DIM][DIM];
static uint64_t rng = 0xa4093822299f31d0u;

static uint64_t next_random(void) {
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return rng * 0x2545f4914f6cdd1dull;
}

/* Uniform in [-1, 1), exactly representable. */
static double unit(void) { return (double)(int64_t)(next_random() >> 11) / (double)(1ull << 52) - 1.0; }

static uint64_t bits(double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  return u;
}

/* Semi-implicit Euler: velocities from all pairwise forces, then positions. */
static void step(double dt) {
  for (int i = 0; i < BODIES; i++) {
    for (int j = i + 1; j < BODIES; j++) {
      double d[3], r2 = 1e-3; /* softening keeps close encounters finite */
      for (int k = 0; k < 3; k++) {
        d[k] = bodies[j].x[k] - bodies[i].x[k];
        r2 += d[k] * d[k];
      }
      double inv = dt / (r2 * sqrt(r2));
      for (int k = 0; k < 3; k++) {
        bodies[i].v[k] += d[k] * bodies[j].m * inv;
        bodies[j].v[k] -= d[k] * bodies[i].m * inv;
      }
    }
  }
  for (int i = 0; i < BODIES; i++)
    for (int k = 0; k < 3; k++) bodies[i].x[k] += dt * bodies[i].v[k];
}

static double energy(void) {
  double e = 0;
  for (int i = 0; i < BODIES; i++) {
    const struct body *b = &bodies[i];
    e += 0.5 * b->m * (b->v[0] * b->v[0] + b->v[1] * b->v[1] + b->v[2] * b->v[2]);
    for (int j = i + 1; j < BODIES; j++) {
      double r2 = 1e-3;
      for (int k = 0; k < 3; k++) r2 += (bodies[j].x[k] - b->x[k]) * (bodies[j].x[k] - b->x[k]);
      e -= b->m * bodies[j].m / sqrt(r2);
    }
  }
  return e;
}

static void multiply(void) {
  for (int i = 0; i < DIM; i++)
    for (int j = 0; j < DIM; j++) mc[i][j] = 0;
  for (int i = 0; i < DIM; i++)
    for (int k = 0; k < DIM; k++) {
      double a = ma[i][k];
      for (int j = 0; j < DIM; j++) mc[i][j] += a * mb[k][j];
    }
}

int main(void) {
  for (int i = 0; i < BODIES; i++) {
    for (int k = 0; k < 3; k++) {
      bodies[i].x[k] = 4 * unit();
      bodies[i].v[k] = 0.1 * unit();
    }
    bodies[i].m = 1.5 + unit();
  }
  for (int s = 0; s < STEPS; s++) step(0.001);
  uint64_t sum = bits(energy());

  for (int i = 0; i < DIM; i++)
    for (int j = 0; j < DIM; j++) {
      ma[i][j] = unit();
      mb[i][j] = unit();
    }
  for (int p = 0; p < PRODUCTS; p++) {
    multiply();
    /* Feed the product back, scaled to stay bounded, so every round depends on the last. */
    for (int i = 0; i < DIM; i++)
      for (int j = 0; j < DIM; j++) ma[i][j] = mc[i][j] / DIM;
  }
  for (int i = 0; i < DIM; i++)
    for (int j = 0; j < DIM; j++) sum = (sum ^ bits(mc[i][j])) * 0x100000001b3ull;
  printf("checksum %016llx\n", (unsigned long long)sum);
  return 0;
}
