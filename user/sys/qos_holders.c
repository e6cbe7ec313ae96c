/* PM QoS request holders and the haltpoll parameters (qos_holders.h). */
#include "sys/qos_holders.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/sysfs.h"

#define QOS_DEVICE "/dev/cpu_dma_latency"

/* Descriptors of pid linked to the device; -1 when they cannot be listed. */
static int device_fds(const char *proc_root, const char *pid)
{
	char dir[512], link[800], target[64];
	struct dirent *d;
	int n = 0;
	DIR *fds;

	snprintf(dir, sizeof(dir), "%s/%s/fd", proc_root, pid);
	if (!(fds = opendir(dir)))
		return -1;
	while ((d = readdir(fds))) {
		ssize_t len;

		if (d->d_name[0] == '.')
			continue;
		snprintf(link, sizeof(link), "%s/%s", dir, d->d_name);
		len = readlink(link, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		n += !strcmp(target, QOS_DEVICE);
	}
	closedir(fds);
	return n;
}

static int by_pid(const void *a, const void *b)
{
	return ((const struct qos_holder *)a)->pid - ((const struct qos_holder *)b)->pid;
}

int qos_holders_scan(const char *proc_root, struct qos_holders *out)
{
	DIR *proc = opendir(proc_root);
	struct dirent *d;
	int cap = 0;

	memset(out, 0, sizeof(*out));
	if (!proc)
		return -1;
	while ((d = readdir(proc))) {
		char path[512];
		struct qos_holder *h;
		FILE *f;
		int fds;

		if (d->d_name[0] < '1' || d->d_name[0] > '9' ||
		    strspn(d->d_name, "0123456789") != strlen(d->d_name))
			continue;
		fds = device_fds(proc_root, d->d_name);
		if (fds < 0) {
			/* gone since the listing, or not ours to read */
			snprintf(path, sizeof(path), "%s/%s", proc_root, d->d_name);
			out->unreadable += access(path, F_OK) == 0;
			continue;
		}
		if (!fds)
			continue;
		if (out->nr == cap) {
			struct qos_holder *n = realloc(out->h, sizeof(*n) * (size_t)(cap ? 2 * cap : 8));

			if (!n) {
				closedir(proc);
				qos_holders_free(out);
				return -1;
			}
			out->h = n;
			cap = cap ? 2 * cap : 8;
		}
		h = &out->h[out->nr++];
		memset(h, 0, sizeof(*h));
		h->pid = atoi(d->d_name);
		h->fds = fds;
		snprintf(path, sizeof(path), "%s/%s/comm", proc_root, d->d_name);
		if ((f = fopen(path, "re"))) {
			if (fgets(h->comm, sizeof(h->comm), f))
				h->comm[strcspn(h->comm, "\n")] = '\0';
			fclose(f);
		}
	}
	closedir(proc);
	if (out->nr > 1)
		qsort(out->h, (size_t)out->nr, sizeof(*out->h), by_pid);
	return 0;
}

void qos_holders_free(struct qos_holders *q)
{
	free(q->h);
	memset(q, 0, sizeof(*q));
}

void haltpoll_params_read(struct haltpoll_params *p)
{
	const char *dir = "module/haltpoll/parameters";
	char yn[8] = "";

	memset(p, 0, sizeof(*p));
	p->present = !sysfs_read_u64(&p->poll_ns, "%s/guest_halt_poll_ns", dir);
	if (!p->present)
		return;
	sysfs_read_u64(&p->grow, "%s/guest_halt_poll_grow", dir);
	sysfs_read_u64(&p->grow_start, "%s/guest_halt_poll_grow_start", dir);
	sysfs_read_u64(&p->shrink, "%s/guest_halt_poll_shrink", dir);
	sysfs_read_str(yn, sizeof(yn), "%s/guest_halt_poll_allow_shrink", dir);
	p->allow_shrink = yn[0] == 'Y' || yn[0] == '1';
}
