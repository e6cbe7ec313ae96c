/* The bench's cross-CPU workload: `pingpong ROUNDS [CPU_A CPU_B]` runs the
 * ping-pong of `info --costs` (user/cmd/pingpong_load.c: two processes pinned
 * to two CPUs pass a byte back and forth, so each round trip idles and wakes
 * both CPUs) and prints its round trips per second. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/pingpong_load.h"

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 20000;
	int a = argc > 3 ? atoi(argv[2]) : 0, b = argc > 3 ? atoi(argv[3]) : 1;
	uint64_t ns;

	if (rounds <= 0 || pingpong_run(a, b, rounds, &ns)) {
		perror("pingpong");
		return 1;
	}
	printf("%.0f\n", (double)rounds * 1e9 / (double)(ns ? ns : 1));
	return 0;
}
