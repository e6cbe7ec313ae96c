/* System settings that `idlescope ab` varies: a sysctl, the cpuidle
 * governor, stateN.disable on every CPU, a PM QoS CPU latency request
 * held on /dev/cpu_dma_latency, or a haltpoll governor parameter
 * (guest_halt_poll_ns and its grow/shrink companions). Each remembers its original value and puts
 * it back (a request is dropped). */
#ifndef IDLESCOPE_SETTINGS_H
#define IDLESCOPE_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

#define IS_MAX_VALUES 8

enum setting_kind { SET_SYSCTL, SET_GOVERNOR, SET_STATE_DISABLE, SET_PM_QOS, SET_HALTPOLL };

struct setting {
	char key[64];
	enum setting_kind kind;
	int state;          /* SET_STATE_DISABLE */
	int qos_fd;         /* SET_PM_QOS: 1 + the fd holding the request, 0 none */
	int nr_values;
	char values[IS_MAX_VALUES][64];
	int nr_saved;       /* files whose original value is held */
	char (*paths)[256]; /* [nr_saved] */
	char (*saved)[64];  /* [nr_saved] */
};

/* Parses "KEY=V1,V2" and checks the key exists and the values make sense
 * here. Returns 0, or -1 with a one-line reason (a usage error). */
int setting_parse(const char *spec, struct setting *s, char *err, size_t errlen);
/* Reads the original values; call once before the first apply. */
int setting_save(struct setting *s, char *err, size_t errlen);
/* Writes value number `value`; a PM QoS request replaces the one held. */
int setting_apply(struct setting *s, int value, char *err, size_t errlen);
/* Writes the originals back; returns 0 when every file holds it again. */
int setting_restore(struct setting *s);
void setting_free(struct setting *s);

#endif
