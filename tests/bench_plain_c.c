/*
 * Plain C rendition of the v3.13 cpu_load history update on lp64
 * (unsigned long is 64 bits), used by bench_main.cpp as the speed yardstick
 * for the templated reference in ref/cpuload.h.
 *
 * Written from the arithmetic described in seed 000, not from kernel text:
 *  - history slot k (1..4) is an exponential average with weight 1/2^k for
 *    the newest sample;
 *  - ticks missed while tickless count as zero samples, applied by a
 *    per-power-of-two factor table in 1/128 units (one multiply and shift
 *    per set bit of the missed-tick count), with a cut-off count past which
 *    the slot is simply zero and an exact halving shift for slot 1;
 *  - a rising sample is rounded up by adding 2^k - 1 before the shift.
 *
 * The file is valid C and C++; CMake compiles it as C++, hence the
 * extern "C" guard, so the symbol has the same name either way.
 */

#ifdef __cplusplus
extern "C" {
#endif

void plain_update_cpu_load(unsigned long *cpu_load /*[5]*/, unsigned long this_load,
                           unsigned long pending_updates);

#ifdef __cplusplus
}
#endif

#define PLAIN_SLOTS 5
#define PLAIN_FRAC_BITS 7 /* factors are n/128 */

/* Number of missed ticks from which a slot counts as fully decayed. */
static const unsigned char plain_cutoff[PLAIN_SLOTS] = {0, 8, 32, 64, 128};

/* plain_factor[k][b]: 128 * ((2^k - 1)/2^k)^(2^b), as tabulated in seed 000. */
static const unsigned char plain_factor[PLAIN_SLOTS][PLAIN_FRAC_BITS + 1] = {
    {0, 0, 0, 0, 0, 0, 0, 0},
    {64, 32, 8, 0, 0, 0, 0, 0},
    {96, 72, 40, 12, 1, 0, 0, 0},
    {112, 98, 75, 43, 15, 1, 0, 0},
    {120, 112, 98, 76, 45, 16, 2, 0},
};

/* Scale value down by slot k's decay for `ticks` sample-free ticks. */
static unsigned long plain_decay(unsigned long value, unsigned long ticks, int k)
{
    const unsigned char *row;
    int bit;

    if (ticks == 0)
        return value;
    if (ticks >= plain_cutoff[k])
        return 0;
    if (k == 1)
        return value >> ticks; /* halves once per tick */

    row = plain_factor[k];
    for (bit = 0; ticks != 0; bit++, ticks >>= 1) {
        if (ticks & 1UL)
            value = (value * row[bit]) >> PLAIN_FRAC_BITS;
    }
    return value;
}

void plain_update_cpu_load(unsigned long *cpu_load, unsigned long this_load,
                           unsigned long pending_updates)
{
    int k;

    cpu_load[0] = this_load; /* slot 0 is the raw sample */

    for (k = 1; k < PLAIN_SLOTS; k++) {
        unsigned long weight = (1UL << k) - 1UL; /* 2^k - 1 */
        unsigned long prev = plain_decay(cpu_load[k], pending_updates - 1UL, k);
        unsigned long sample = this_load;

        if (sample > prev)
            sample += weight; /* round a rising average up */
        cpu_load[k] = (prev * weight + sample) >> k;
    }
}
