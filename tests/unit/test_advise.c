/* Unit tests for the advisor's arithmetic (user/advise/advise.c) on the Armada XP
 * cpuidle table before and after its thresholds patch, with answers worked
 * out by hand in the comments. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "advise/advise.h"
#include "hist.h"

#define US 1000ULL

/* Exact values: a bucket [v, v+1) holds one value.
 *   WFI        (entered 17 times): 10 x 50us, 5 x 500us, 2 x 5000us
 *   power-down (13):                4 x 50us, 6 x 500us, 3 x 5000us
 *   deep idle  (14):                2 x 500us, 8 x 5000us, 4 x 50000us */
static const struct hist_bin wfi[] = { { 50 * US, 50 * US + 1, 10 },
				      { 500 * US, 500 * US + 1, 5 },
				      { 5000 * US, 5000 * US + 1, 2 } };
static const struct hist_bin pd[] = { { 50 * US, 50 * US + 1, 4 },
				     { 500 * US, 500 * US + 1, 6 },
				     { 5000 * US, 5000 * US + 1, 3 } };
static const struct hist_bin deep[] = { { 500 * US, 500 * US + 1, 2 },
				       { 5000 * US, 5000 * US + 1, 8 },
				       { 50000 * US, 50000 * US + 1, 4 } };

/* Energy model: WFI 100 units, no transition cost; power-down 20 units and
 * 8000 unit-us to enter and leave; deep idle 5 units and 23000 unit-us. */
static void armada(struct adv_state st[3], bool patched)
{
	st[0] = (struct adv_state){ .enabled = true, .exit_ns = 1 * US, .target_ns = 1 * US,
				    .dist = { 3, wfi }, .have_power = true, .have_tr = true,
				    .power = 100, .tr_energy = 0 };
	st[1] = (struct adv_state){ .enabled = true, .exit_ns = (patched ? 100 : 10) * US,
				    .target_ns = (patched ? 1000 : 100) * US, .dist = { 3, pd },
				    .have_power = true, .have_tr = true, .power = 20,
				    .tr_energy = 8000 };
	st[2] = (struct adv_state){ .enabled = true, .exit_ns = (patched ? 1000 : 100) * US,
				    .target_ns = (patched ? 10000 : 1000) * US, .dist = { 3, deep },
				    .have_power = true, .have_tr = true, .power = 5,
				    .tr_energy = 23000 };
}

static void assert_near(double a, double b)
{
	assert_true(fabs(a - b) <= 1e-9 * (1 + fabs(b)));
}

static void test_count_interpolates(void **state)
{
	/* one bucket [1000, 2000) of 10 periods: 1500 splits it in half */
	const struct hist_bin b[] = { { 1000, 2000, 10 }, { 4000, 5000, 2 } };
	const struct adv_dist d = { 2, b };

	(void)state;
	assert_near(adv_count_lt(&d, 1000), 0);
	assert_near(adv_count_lt(&d, 1500), 5);
	assert_near(adv_count_lt(&d, 2000), 10);
	assert_near(adv_count_lt(&d, 4250), 10.5);
	assert_near(adv_count_lt(&d, 99999), 12);
	assert_near(adv_total(&d), 12);
}

static void test_armada_before(void **state)
{
	/* Thresholds before the patch: WFI 1/1us, power-down exit 10us target
	 * 100us, deep idle exit 100us target 1000us.
	 *   WFI below: r - 1us >= 100us -> 500us (5) + 5000us (2) = 7
	 *   PD above: r < 100us -> 50us (4); below: r - 10us >= 1000us ->
	 *     5000us (3)
	 *   deep above: r < 1000us -> 500us (2); nothing deeper: no below
	 * Proposal for PD, misses(T) = PD above(T) + WFI below(T):
	 *   T <= 49us: 0 + 17; (49us, 50us]: 0 + 7; (50us, 499us]: 4 + 7;
	 *   (499us, 500us]: 4 + 2 = 6; (500us, 4999us]: 10 + 2; ...
	 *   minimum 6 on T in [499us + 1ns, 500us]; closest to 100us: 499001ns.
	 *   At the current 100us: 4 + 7 = 11.
	 * Proposal for deep, misses(T) = deep above(T) + PD below(T), PD below
	 *   counting r >= max(100us (not above), T + 10us):
	 *   T <= 490us: 0 + 9; (490us, 500us]: 0 + 3; (500us, 4990us]: 2 + 3;
	 *   (4990us, 5000us]: 2 + 0 = 2; above: 10 and more.
	 *   minimum 2 on [4990us + 1ns, 5000us]; closest to 1000us: 4990001ns.
	 *   At the current 1000us: 2 + 3 = 5.
	 * Break-even: PD vs WFI (8000 - 0) / (100 - 20) = 100us; deep vs PD
	 *   (23000 - 8000) / (20 - 5) = 1000us: the pre-patch targets.
	 * Energy (unit-us; E_k(r) = tr(k) + P(k) r, r in us):
	 *   measured: WFI 100 x (500 + 2500 + 10000) = 1300000; PD 13 x 8000 +
	 *   20 x (200 + 3000 + 15000) = 468000; deep 14 x 23000 + 5 x (1000 +
	 *   40000 + 200000) = 1527000; total 3295000 = 3.295 unit-s.
	 *   perfect prediction at 1/100/1000us: 50us -> WFI, 500us -> PD, 5000us
	 *   and 50000us -> deep; 14 x 5000 + 13 x 18000 + 13 x 48000 + 4 x
	 *   273000 = 70000 + 234000 + 624000 + 1092000 = 2020000 = 2.02 unit-s.
	 *   The proposed (499.001us, 4990.001us) and break-even thresholds pick
	 *   the same states: 2.02 unit-s each. */
	struct adv_state st[3];
	struct adv_result r[3];
	struct adv_energy e;

	(void)state;
	armada(st, false);
	advise_table(st, 3, NULL, r, &e);
	assert_int_equal(r[0].prev, -1);
	assert_false(r[0].have_proposal);
	assert_near(r[0].above, 0);
	assert_near(r[0].below, 7);
	assert_near(r[1].above, 4);
	assert_near(r[1].below, 3);
	assert_near(r[2].above, 2);
	assert_near(r[2].below, 0);

	assert_true(r[1].have_proposal);
	assert_int_equal(r[1].proposed_ns, 499001);
	assert_near(r[1].misses_proposed, 6);
	assert_near(r[1].misses_current, 11);
	assert_true(r[2].have_proposal);
	assert_int_equal(r[2].proposed_ns, 4990001);
	assert_near(r[2].misses_proposed, 2);
	assert_near(r[2].misses_current, 5);

	assert_int_equal(r[1].be, ADV_BE_AT);
	assert_near(r[1].break_even_ns, 100000);
	assert_int_equal(r[2].be, ADV_BE_AT);
	assert_near(r[2].break_even_ns, 1000000);

	assert_true(e.valid);
	assert_true(e.have_break_even);
	assert_near(e.measured, 3.295);
	assert_near(e.current, 2.02);
	assert_near(e.proposed, 2.02);
	assert_near(e.break_even, 2.02);
}

static void test_armada_after(void **state)
{
	/* After the patch: power-down exit 100us target 1000us, deep idle exit
	 * 1000us target 10000us.
	 *   WFI below: r - 1us >= 1000us -> 5000us (2) = 2
	 *   PD above: r < 1000us -> 50us (4) + 500us (6) = 10; below: r - 100us
	 *     >= 10000us: none
	 *   deep above: r < 10000us -> 500us (2) + 5000us (8) = 10
	 * Proposal for PD: same misses(T) as before (WFI's exit is still 1us):
	 *   minimum 6 on [499001ns, 500us]; closest to 1000us: 500000ns. At the
	 *   current 1000us: 10 + 2 = 12.
	 * Proposal for deep, PD below counting r >= max(1000us, T + 100us):
	 *   T <= 500us: 0 + 3; (500us, 4900us]: 2 + 3; (4900us, 5000us]: 2 + 0;
	 *   (5000us, 50000us]: 10. Minimum 2, closest to 10000us: 5000000ns.
	 *   At the current 10000us: 10 + 0 = 10.
	 * Energy: the measured periods do not change (3.295 unit-s); perfect
	 *   prediction at 1/1000/10000us: 50us and 500us -> WFI, 5000us -> PD,
	 *   50000us -> deep: 14 x 5000 + 13 x 50000 + 13 x 108000 + 4 x 273000
	 *   = 70000 + 650000 + 1404000 + 1092000 = 3216000 = 3.216 unit-s; the
	 *   proposed thresholds (500us, 5000us) pick as before: 2.02 unit-s. */
	struct adv_state st[3];
	struct adv_result r[3];
	struct adv_energy e;
	double above[3], below[3];
	const uint64_t before[3] = { 1 * US, 100 * US, 1000 * US };

	(void)state;
	armada(st, true);
	advise_table(st, 3, NULL, r, &e);
	assert_near(r[0].below, 2);
	assert_near(r[1].above, 10);
	assert_near(r[1].below, 0);
	assert_near(r[2].above, 10);
	assert_near(r[2].below, 0);
	assert_int_equal(r[1].proposed_ns, 500000);
	assert_near(r[1].misses_proposed, 6);
	assert_near(r[1].misses_current, 12);
	assert_int_equal(r[2].proposed_ns, 5000000);
	assert_near(r[2].misses_proposed, 2);
	assert_near(r[2].misses_current, 10);
	assert_near(e.measured, 3.295);
	assert_near(e.current, 3.216);
	assert_near(e.proposed, 2.02);
	assert_near(e.break_even, 2.02);
	assert_near(adv_energy_ideal(st, 3, before), 2.02);

	/* the patched exit latencies with the old targets: PD below counts
	 * r - 100us >= 1000us -> 5000us (3); PD above r < 100us -> 4 */
	adv_classify(st, 3, before, above, below);
	assert_near(above[1], 4);
	assert_near(below[1], 3);
	assert_near(below[0], 7);
}

static void test_disabled_state_skipped(void **state)
{
	/* power-down disabled: WFI's below compares with deep idle's target
	 * 1000us: r - 1us >= 1000us -> 5000us (2); deep's proposal now trades
	 * against WFI: misses(T) = deep above(T) + WFI below(T), WFI below
	 * counting r >= T + 1us: T <= 49us: 17; (49us, 499us]: 7; (499us,
	 * 500us]: 2 + 0 ... at T in (499us, 500us]: deep above 0 + WFI 2 = 2;
	 * (500us, 4999us]: 2 + 2 = 4; (4999us, 5000us]: 2 + 0 = 2. Two minima of
	 * 2: [499001ns, 500us] and [4999001ns, 5000us]; closest to 1000us:
	 * 500000ns. */
	struct adv_state st[3];
	struct adv_result r[3];
	struct adv_energy e;

	(void)state;
	armada(st, false);
	st[1].enabled = false;
	st[1].dist.n = 0;
	advise_table(st, 3, NULL, r, &e);
	assert_near(r[0].below, 2);
	assert_false(r[1].have_proposal);
	assert_int_equal(r[2].prev, 0);
	assert_int_equal(r[2].proposed_ns, 500000);
	assert_near(r[2].misses_proposed, 2);
	/* break-even deep vs WFI: 23000 / 95 us */
	assert_near(r[2].break_even_ns, 23000.0 / 95 * 1000);
}

static void test_ties_keep_current_and_lower_bound(void **state)
{
	/* no periods at all: every T gives 0 misses, the current value stays */
	struct adv_state st[3];
	struct adv_result r[3];
	struct adv_energy e;
	uint64_t best;
	double fb, fc;
	const uint64_t lower[3] = { 0, 600 * US, 0 };

	(void)state;
	armada(st, false);
	for (int k = 0; k < 3; k++)
		st[k].dist.n = 0;
	advise_table(st, 3, NULL, r, &e);
	assert_int_equal(r[1].proposed_ns, 100 * US);
	assert_int_equal(r[2].proposed_ns, 1000 * US);
	assert_near(e.measured, 0);

	/* a lower bound of 600us for PD: misses(T) on [600us, inf) is 10 + 2
	 * up to 4999us, then 10 + 0 = 10 on (4999us, 5000us], then 13: the
	 * minimum is 10 at 4999001ns */
	armada(st, false);
	assert_true(adv_propose(st, 3, 1, lower[1], &best, &fb, &fc));
	assert_int_equal(best, 4999001);
	assert_near(fb, 10);
	assert_near(fc, 11);
}

static void test_energy_missing_power(void **state)
{
	struct adv_state st[3];
	struct adv_result r[3];
	struct adv_energy e;

	(void)state;
	armada(st, false);
	st[0].have_power = false;
	advise_table(st, 3, NULL, r, &e);
	assert_false(e.valid);
	assert_int_equal(e.missing_state, 0);
	assert_int_equal(r[1].be, ADV_BE_UNKNOWN);
	/* no transition energies: break-even unknown, energy still counted */
	armada(st, false);
	for (int k = 0; k < 3; k++)
		st[k].have_tr = false;
	advise_table(st, 3, NULL, r, &e);
	assert_true(e.valid);
	assert_false(e.have_break_even);
	/* 100 x 13000 + 20 x 18200 + 5 x 241000 = 1300000 + 364000 + 1205000 */
	assert_near(e.measured, 2.869);
	/* deeper state drawing more power: never pays off */
	armada(st, false);
	st[2].power = 30;
	advise_table(st, 3, NULL, r, &e);
	assert_int_equal(r[2].be, ADV_BE_NEVER);
}

static void test_quarter_octave_buckets(void **state)
{
	/* Histogram buckets as the BPF side fills them: state 0 (exit 0, the
	 * shallowest) holds 8 periods in the bucket of 140us, [131072, 163840);
	 * state 1 (target 100us) 8 in the bucket of 90us, [81920, 98304).
	 * misses(T) = lt1(T) + ge0(T + 0): 0 + 8 = 8 for T <= 81920; rising to
	 * 8 + 8 = 16 at 98304 and flat up to 131072 (the current 100us gives
	 * 16); falling to 8 + 0 = 8 at 163840 and after. Two minimisers of 8;
	 * 81920 is 18080 from 100000, 163840 is 63840 away: 81920. Inside a
	 * bucket the counts are interpolated, so the answer is only as fine as
	 * the buckets. */
	struct hist_bin b0 = { is_hist_lower(is_hist_bucket(140000)), is_hist_upper(is_hist_bucket(140000)), 8 };
	struct hist_bin b1 = { is_hist_lower(is_hist_bucket(90000)), is_hist_upper(is_hist_bucket(90000)), 8 };
	struct adv_state st[2] = {
		{ .enabled = true, .exit_ns = 0, .target_ns = 0, .dist = { 1, &b0 } },
		{ .enabled = true, .exit_ns = 10000, .target_ns = 100000, .dist = { 1, &b1 } },
	};
	uint64_t best;
	double fb, fc;

	(void)state;
	assert_int_equal(b0.lo, 131072);
	assert_int_equal(b0.hi, 163840);
	assert_int_equal(b1.lo, 81920);
	assert_int_equal(b1.hi, 98304);
	assert_true(adv_propose(st, 2, 1, 10000, &best, &fb, &fc));
	assert_int_equal(best, 81920);
	assert_near(fb, 8);
	assert_near(fc, 16);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_count_interpolates),
		cmocka_unit_test(test_armada_before),
		cmocka_unit_test(test_armada_after),
		cmocka_unit_test(test_disabled_state_skipped),
		cmocka_unit_test(test_ties_keep_current_and_lower_bound),
		cmocka_unit_test(test_energy_missing_power),
		cmocka_unit_test(test_quarter_octave_buckets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
