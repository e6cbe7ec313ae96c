/* The advisor's arithmetic (docs/advise.md): the kernel's above/below rule
 * replayed on residency histograms, the miss-minimising target residency,
 * break-even residencies and energy estimates from an energy model. */
#include "advise/advise.h"

#include <math.h>
#include <stddef.h>

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t max3(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t m = a > b ? a : b;

	return m > c ? m : c;
}

double adv_count_lt(const struct adv_dist *d, uint64_t x)
{
	double n = 0;

	for (int i = 0; i < d->n; i++) {
		const struct hist_bin *b = &d->bins[i];

		if (x >= b->hi)
			n += b->count;
		else if (x > b->lo)
			n += b->count * (double)(x - b->lo) / (double)(b->hi - b->lo);
	}
	return n;
}

double adv_total(const struct adv_dist *d)
{
	double n = 0;

	for (int i = 0; i < d->n; i++)
		n += d->bins[i].count;
	return n;
}

static double count_ge(const struct adv_dist *d, uint64_t x)
{
	return adv_total(d) - adv_count_lt(d, x);
}

static int prev_enabled(const struct adv_state *st, int k)
{
	for (int j = k - 1; j >= 0; j--)
		if (st[j].enabled)
			return j;
	return -1;
}

static int next_enabled(const struct adv_state *st, int n, int k)
{
	for (int j = k + 1; j < n; j++)
		if (st[j].enabled)
			return j;
	return -1;
}

/* Periods in p that the kernel calls too shallow when the next enabled
 * deeper state's threshold is t: not above, r > exit(p), r - exit(p) >= t. */
static double below_at(const struct adv_state *st, int p, uint64_t target_p, uint64_t t)
{
	uint64_t not_above = prev_enabled(st, p) >= 0 ? target_p : 0;

	return count_ge(&st[p].dist, max3(not_above, sat_add(st[p].exit_ns, 1), sat_add(t, st[p].exit_ns)));
}

void adv_classify(const struct adv_state *st, int n, const uint64_t *targets, double *above,
		  double *below)
{
	for (int k = 0; k < n; k++) {
		int next = next_enabled(st, n, k);

		above[k] = prev_enabled(st, k) >= 0 ? adv_count_lt(&st[k].dist, targets[k]) : 0;
		below[k] = next >= 0 ? below_at(st, k, targets[k], targets[next]) : 0;
	}
}

static double misses_at(const struct adv_state *st, int s, int p, uint64_t t)
{
	return adv_count_lt(&st[s].dist, t) + below_at(st, p, st[p].target_ns, t);
}

static uint64_t dist_u(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

bool adv_propose(const struct adv_state *st, int n, int s, uint64_t lower, uint64_t *best,
		 double *misses_best, double *misses_current)
{
	int p = s < n && st[s].enabled ? prev_enabled(st, s) : -1;
	uint64_t cur = st[s].target_ns, ep;
	double fb, tol;

	if (p < 0)
		return false;
	ep = st[p].exit_ns;
	if (lower < 1)
		lower = 1;
	/* misses(T) is piecewise linear in T between the bucket bounds of s and
	 * the bounds of p shifted by exit(p): its minimum is at one of them. */
	*best = cur >= lower ? cur : lower;
	fb = misses_at(st, s, p, *best);
	tol = 1e-9 * (1 + adv_total(&st[s].dist) + adv_total(&st[p].dist));
	for (int pass = 0; pass < 2; pass++) {
		const struct adv_dist *d = pass ? &st[p].dist : &st[s].dist;
		uint64_t shift = pass ? ep : 0;

		for (int i = 0; i <= d->n; i++) {
			uint64_t c[2];

			if (i == d->n) { /* the floors in below_at: not above, > exit */
				if (!pass)
					continue;
				c[0] = st[p].target_ns > shift ? st[p].target_ns - shift : 0;
				c[1] = 1;
			} else {
				c[0] = d->bins[i].lo > shift ? d->bins[i].lo - shift : 0;
				c[1] = d->bins[i].hi > shift ? d->bins[i].hi - shift : 0;
			}
			for (int j = 0; j < 2; j++) {
				uint64_t t = c[j] < lower ? lower : c[j];
				double f = misses_at(st, s, p, t);

				if (f < fb - tol ||
				    (f <= fb + tol && (dist_u(t, cur) < dist_u(*best, cur) ||
						       (dist_u(t, cur) == dist_u(*best, cur) && t < *best)))) {
					fb = f;
					*best = t;
				}
			}
		}
	}
	*misses_best = fb;
	*misses_current = misses_at(st, s, p, cur);
	return true;
}

/* The state a period of residency x goes to with perfect prediction. */
static int pick(const struct adv_state *st, int n, const uint64_t *targets, uint64_t x)
{
	int first = -1;

	for (int k = n - 1; k >= 0; k--) {
		if (!st[k].enabled)
			continue;
		first = k;
		if (targets[k] <= x)
			return k;
	}
	return first;
}

/* Energy of mass periods in state k whose residencies sum to sum_ns. */
static double period_energy(const struct adv_state *k, double mass, double sum_ns)
{
	return mass * (k->have_tr ? k->tr_energy : 0) * 1e-6 + k->power * sum_ns * 1e-9;
}

double adv_energy_ideal(const struct adv_state *st, int n, const uint64_t *targets)
{
	double e = 0;

	for (int s = 0; s < n; s++)
		for (int i = 0; i < st[s].dist.n; i++) {
			const struct hist_bin *b = &st[s].dist.bins[i];
			uint64_t a = b->lo;

			/* split the bucket at the thresholds inside it */
			while (a < b->hi) {
				uint64_t end = b->hi;
				double mass;
				int k;

				for (int j = 0; j < n; j++)
					if (st[j].enabled && targets[j] > a && targets[j] < end)
						end = targets[j];
				k = pick(st, n, targets, a);
				mass = b->count * (double)(end - a) / (double)(b->hi - b->lo);
				if (k < 0 || (mass > 0 && !st[k].have_power))
					return NAN;
				if (mass > 0)
					e += period_energy(&st[k], mass, mass * ((double)a + (double)end - 1) / 2);
				a = end;
			}
		}
	return e;
}

static double energy_measured(const struct adv_state *st, int n)
{
	double e = 0;

	for (int s = 0; s < n; s++)
		for (int i = 0; i < st[s].dist.n; i++) {
			const struct hist_bin *b = &st[s].dist.bins[i];

			e += period_energy(&st[s], b->count, b->count * ((double)b->lo + (double)b->hi - 1) / 2);
		}
	return e;
}

static void break_even(const struct adv_state *st, int s, int p, struct adv_result *r)
{
	double dp, de;

	r->be = ADV_BE_UNKNOWN;
	if (p < 0 || !st[s].have_power || !st[p].have_power || !st[s].have_tr || !st[p].have_tr)
		return;
	/* E_k(r) = tr(k) + P(k) r; s pays off from r = dE / dP */
	dp = st[p].power - st[s].power;
	de = st[s].tr_energy - st[p].tr_energy;
	if (dp > 0) {
		r->be = ADV_BE_AT;
		r->break_even_ns = de > 0 ? de / dp * 1000 : 0;
	} else if (de < 0 || (de == 0 && dp == 0)) {
		r->be = ADV_BE_AT; /* never costs more */
		r->break_even_ns = 0;
	} else {
		r->be = ADV_BE_NEVER;
	}
}

void advise_table(const struct adv_state *st, int n, const uint64_t *lower_ns,
		  struct adv_result *res, struct adv_energy *e)
{
	uint64_t cur[ADV_MAX_STATES] = { 0 }, prop[ADV_MAX_STATES] = { 0 }, be[ADV_MAX_STATES] = { 0 };
	double above[ADV_MAX_STATES] = { 0 }, below[ADV_MAX_STATES] = { 0 };

	if (n > ADV_MAX_STATES)
		n = ADV_MAX_STATES;
	for (int k = 0; k < n; k++)
		cur[k] = prop[k] = be[k] = st[k].target_ns;
	adv_classify(st, n, cur, above, below);
	e->have_break_even = true;
	for (int k = 0; k < n; k++) {
		struct adv_result *r = &res[k];

		*r = (struct adv_result){ .prev = st[k].enabled ? prev_enabled(st, k) : -1,
					  .above = above[k], .below = below[k] };
		r->have_proposal = adv_propose(st, n, k, lower_ns ? lower_ns[k] : 0, &r->proposed_ns,
					       &r->misses_proposed, &r->misses_current);
		if (r->have_proposal)
			prop[k] = r->proposed_ns;
		break_even(st, k, r->prev, r);
		if (r->prev >= 0) {
			if (r->be == ADV_BE_AT)
				be[k] = (uint64_t)ceil(r->break_even_ns);
			else if (r->be == ADV_BE_NEVER)
				be[k] = UINT64_MAX;
			else
				e->have_break_even = false;
		}
	}
	e->valid = true;
	e->missing_state = -1;
	for (int k = 0; k < n; k++)
		if (!st[k].have_power && (st[k].enabled || adv_total(&st[k].dist) > 0)) {
			e->valid = false;
			e->missing_state = k;
			break;
		}
	if (!e->valid) {
		e->have_break_even = false;
		return;
	}
	e->measured = energy_measured(st, n);
	e->current = adv_energy_ideal(st, n, cur);
	e->proposed = adv_energy_ideal(st, n, prop);
	e->break_even = e->have_break_even ? adv_energy_ideal(st, n, be) : 0;
}
