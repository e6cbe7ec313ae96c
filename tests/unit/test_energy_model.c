/* Unit tests for the energy model readers (user/advise/energy_model.c): idlestat's
 * own example files, idlescope's optional transition-energy column, each
 * kind of malformed file with its message, and a fake debugfs tree. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "advise/energy_model.h"

/* The TC2 file shipped with idlestat (two clusters, tabs and padding). */
static const char tc2[] =
	"# Lines starting with # or which are blank are ignored\n"
	"clusters 2\n"
	"\n"
	"#\n"
	"clusterA: 3 cap states 2 C states\n"
	"\n"
	"P-states:\n"
	"# speed, cluster power, core power\n"
	"1200\t15200\t6997\n"
	"1100\t11426\t5177\n"
	"1000\t 8446\t3846\n"
	"\n"
	"C-states:\n"
	"WFI \t    \t   70 \t0\n"
	"cluster-sleep-b    25   0\n"
	"\n"
	"clusterB: 1 cap states 2 C states\n"
	"\n"
	"P-states:\n"
	" 350\t 2967\t 187\n"
	"\n"
	"C-states:\n"
	"WFI \t    \t  25 \t0\n"
	"cluster-sleep-l   10\t0\n";

static void test_idlestat_tc2(void **state)
{
	struct energy_model em;
	char err[256] = "";

	(void)state;
	if (energy_model_parse(tc2, sizeof(tc2) - 1, &em, err, sizeof(err)))
		print_error("%s\n", err);
	assert_string_equal(err, "");
	assert_int_equal(em.nr_clusters, 2);
	assert_int_equal(em.clusters[0].got_pstates, 3);
	assert_true(em.clusters[0].pstates[2].speed == 1000);
	assert_true(em.clusters[0].pstates[2].cluster_power == 8446);
	assert_true(em.clusters[0].pstates[2].core_power == 3846);
	assert_string_equal(em.clusters[0].cstates[1].name, "cluster-sleep-b");
	assert_true(em.clusters[0].cstates[0].cluster_power == 70);
	assert_false(em.clusters[0].cstates[0].have_tr);
	assert_true(em.clusters[1].cstates[1].cluster_power == 10);
	assert_true(em.clusters[1].pstates[0].core_power == 187);
	assert_false(em.clusters[0].have_wakeup);
	/* names: case, ' ', '-' and '_' are alike */
	assert_non_null(energy_model_cstate(&em, 0, "Cluster Sleep_B"));
	assert_null(energy_model_cstate(&em, 0, "cluster-sleep-l"));
	assert_null(energy_model_cstate(&em, 2, "WFI"));
	energy_model_free(&em);
}

static void test_transition_column_and_wakeup(void **state)
{
	static const char f[] = "clusters 1\r\n"
				"clusterA: 1 cap states 2 C states\r\n"
				"P-states:\r\n"
				"1000 0 500\r\n"
				"C-states:\r\n"
				"  MV-CPU-IDLE 0 20.5 8000\r\n"
				"WFI 0 100\r\n"
				"wakeup 210 6\r\n";
	struct energy_model em;
	char err[256] = "";
	const struct em_cstate *c;

	(void)state;
	assert_int_equal(energy_model_parse(f, sizeof(f) - 1, &em, err, sizeof(err)), 0);
	c = energy_model_cstate(&em, 0, "MV CPU IDLE");
	assert_non_null(c);
	assert_true(c->have_tr && c->tr_energy == 8000 && c->core_power == 20.5);
	assert_false(energy_model_cstate(&em, 0, "wfi")->have_tr);
	assert_true(em.clusters[0].have_wakeup && em.clusters[0].wakeup_cluster == 210 &&
		    em.clusters[0].wakeup_core == 6);
	energy_model_free(&em);
}

static void expect_error(const char *text, const char *msg)
{
	struct energy_model em;
	char err[256] = "";

	assert_int_equal(energy_model_parse(text, strlen(text), &em, err, sizeof(err)), -1);
	if (!strstr(err, msg)) {
		print_error("error '%s' lacks '%s'\n", err, msg);
		fail();
	}
	assert_int_equal(em.nr_clusters, 0);
}

#define HEAD "clusters 1\nclusterA: 1 cap states 1 C states\n"

static void test_malformed(void **state)
{
	char nul[] = HEAD "P-states:\n1 2 3\nC-states:\nW\0I 1 2\n";
	struct energy_model em;
	char err[256], longline[700];

	(void)state;
	expect_error("", "end of file: no 'clusters N' line");
	expect_error("# only a comment\n", "no 'clusters N' line");
	expect_error("clusters two\n", "line 1: cluster count 'two' is not a number");
	expect_error("clusters 0\n", "cluster count 0 out of range");
	expect_error("clusters 27\n", "out of range (1..26)");
	expect_error("clusters 1\nclusters 1\n", "line 2: 'clusters' given twice");
	expect_error("clusterA: 1 cap states 1 C states\n", "before the 'clusters N' line");
	expect_error("clusters 1\nclusterB: 1 cap states 1 C states\n",
		     "line 2: clusterB out of range (the file declares 1 clusters)");
	expect_error("clusters 1\nclusterA: 1 cap states\n", "expected 'clusterX: N cap states M C states'");
	expect_error("clusters 1\nclustera: 1 cap states 1 C states\n", "is not clusterA..clusterZ");
	expect_error(HEAD "clusterA: 1 cap states 1 C states\n", "line 3: clusterA declared twice");
	expect_error("clusters 1\nP-states:\n", "line 2: P-states: before any 'clusterX:' line");
	expect_error("clusters 1\nwakeup 1 2\n", "'wakeup' before any 'clusterX:' line");
	expect_error(HEAD "1 2 3\n", "line 3: unexpected '1' (not in a P-states: or C-states: section)");
	expect_error(HEAD "P-states:\n1 2\n", "line 4: expected a P-state");
	expect_error(HEAD "P-states:\n1 2 3 4\n", "line 4: expected a P-state");
	expect_error(HEAD "P-states:\n1 -2 3\n", "line 4: cluster power '-2' is not a number >= 0");
	expect_error(HEAD "P-states:\n1 2 nan\n", "core power 'nan' is not a number");
	expect_error(HEAD "P-states:\n1 2 0x10\n", "core power '0x10' is not a number");
	expect_error(HEAD "P-states:\n1 2 3\n4 5 6\n", "line 5: more P-states than the 1 declared");
	expect_error(HEAD "P-states:\n1 2 3\nC-states:\nWFI 1\n", "line 6: expected a C-state");
	expect_error(HEAD "P-states:\n1 2 3\nC-states:\nWFI 1 2 3 4\n", "line 6: expected a C-state");
	expect_error(HEAD "P-states:\n1 2 3\nC-states:\nWFI 1 2 x\n",
		     "entry+exit energy 'x' is not a number");
	expect_error("clusters 1\nclusterA: 1 cap states 2 C states\nP-states:\n1 2 3\nC-states:\n"
		     "WFI 1 2\nWFI 3 4\n", "line 7: C-state 'WFI' twice in cluster");
	expect_error(HEAD "P-states:\n1 2 3\nC-states:\nWFI 1 2\nX 1 2\n", "more C-states than the 1");
	expect_error(HEAD "P-states:\n1 2 3\n", "end of file: clusterA has 0 C-states, 1 declared");
	expect_error(HEAD "C-states:\nWFI 1 2\n", "clusterA has 0 P-states, 1 declared");
	expect_error("clusters 2\nclusterA: 1 cap states 1 C states\nP-states:\n1 2 3\nC-states:\nW 1 2\n",
		     "clusterB is declared but never described");
	expect_error(HEAD "P-states:\n1 2 3\nC-states:\nW 1 2\nwakeup 1\n", "line 7: expected 'wakeup");
	expect_error(HEAD "P-states:\n1 2 3\nC-states:\nW 1 2\nwakeup 1 2\nwakeup 1 2\n",
		     "line 8: 'wakeup' given twice");
	expect_error("clusters 1\nclusterA: 1.5 cap states 1 C states\n", "must be a whole number");
	expect_error("clusters 1\nclusterA: 100000 cap states 1 C states\n", "must be a whole number up to");
	expect_error(HEAD "P-states: extra\n", "unexpected text after 'P-states:'");

	assert_int_equal(energy_model_parse(nul, sizeof(nul) - 1, &em, err, sizeof(err)), -1);
	assert_string_equal(err, "line 6: NUL byte (not a text file)");
	memset(longline, 'x', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = '\0';
	expect_error(longline, "line 1: longer than 511 characters");
	/* a tiny error buffer is not overrun */
	assert_int_equal(energy_model_parse("clusters x", 10, &em, err, 8), -1);
	assert_int_equal(strlen(err), 7);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_kernel_em(void **state)
{
	char root[] = "/tmp/idlescope-em-XXXXXX", p[512];
	struct kernel_em k;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(p, sizeof(p), "%s/cpu4", root);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/cpu4/cpus", root);
	put(p, "4-7\n");
	snprintf(p, sizeof(p), "%s/cpu4/ps:2000000", root);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/cpu4/ps:2000000/frequency", root);
	put(p, "2000000\n");
	snprintf(p, sizeof(p), "%s/cpu4/ps:2000000/power", root);
	put(p, "1500000\n");
	snprintf(p, sizeof(p), "%s/cpu4/cs:500000", root);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/cpu4/cs:500000/frequency", root);
	put(p, "500000\n");
	snprintf(p, sizeof(p), "%s/cpu4/cs:500000/power", root);
	put(p, "100000\n");
	snprintf(p, sizeof(p), "%s/gpu", root); /* no performance states: left out */
	mkdir(p, 0700);
	assert_int_equal(kernel_em_read(root, &k), 1);
	assert_int_equal(k.nr_domains, 1);
	assert_string_equal(k.domains[0].name, "cpu4");
	assert_string_equal(k.domains[0].cpus, "4-7");
	assert_int_equal(k.domains[0].nr_pstates, 2);
	assert_int_equal(k.domains[0].pstates[0].khz, 500000);
	assert_int_equal(k.domains[0].pstates[1].power, 1500000);
	snprintf(p, sizeof(p), "rm -rf '%s'", root);
	assert_int_equal(system(p), 0);
	assert_int_equal(kernel_em_read(root, &k), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idlestat_tc2),
		cmocka_unit_test(test_transition_column_and_wakeup),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_kernel_em),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
