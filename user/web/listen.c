/* The exporter's listening address: numeric hosts only (a static binary
 * has no NSS for name lookups), bound before the BPF programs load so a
 * busy port fails fast. */
#include "web/listen.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int listen_parse(const char *arg, struct listen_addr *a, char *err, size_t errlen)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)&a->sa;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&a->sa;
	const char *colon, *host = arg, *port;
	char h[64], *end;
	size_t hlen;
	unsigned long p;
	bool v6 = arg[0] == '[';

	memset(a, 0, sizeof(*a));
	if (v6) {
		const char *close = strchr(arg, ']');

		if (!close || close[1] != ':') {
			snprintf(err, errlen, "bad --listen '%s' (expected [IPV6]:PORT)", arg);
			return -1;
		}
		host = arg + 1;
		hlen = (size_t)(close - host);
		port = close + 2;
	} else {
		colon = strrchr(arg, ':');
		if (!colon || strchr(arg, ':') != colon) {
			snprintf(err, errlen, "bad --listen '%s' (expected HOST:PORT, e.g. %s)", arg,
				 LISTEN_DEFAULT);
			return -1;
		}
		hlen = (size_t)(colon - arg);
		port = colon + 1;
	}
	if (!hlen) {
		snprintf(err, errlen, "bad --listen '%s': no host (0.0.0.0:PORT listens on every "
			 "interface)", arg);
		return -1;
	}
	errno = 0;
	p = strtoul(port, &end, 10);
	if (!*port || *end || errno || p > 65535 || port[0] < '0' || port[0] > '9') {
		snprintf(err, errlen, "bad --listen '%s': port '%s' is not a number 0-65535", arg,
			 port);
		return -1;
	}
	snprintf(h, sizeof(h), "%.*s", (int)(hlen < sizeof(h) ? hlen : sizeof(h) - 1), host);
	if (!v6 && !strcmp(h, "localhost"))
		snprintf(h, sizeof(h), "127.0.0.1");
	if (hlen < sizeof(h) && !v6 && inet_pton(AF_INET, h, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons((uint16_t)p);
		a->len = sizeof(*in4);
	} else if (hlen < sizeof(h) && v6 && inet_pton(AF_INET6, h, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)p);
		a->len = sizeof(*in6);
	} else {
		snprintf(err, errlen, "bad --listen '%s': '%.*s' is not an IP address (or localhost)",
			 arg, (int)hlen, host);
		return -1;
	}
	a->port = (uint16_t)p;
	return 0;
}

void listen_format(const struct sockaddr_storage *sa, char *buf, size_t len)
{
	char h[INET6_ADDRSTRLEN] = "?";

	if (sa->ss_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;

		inet_ntop(AF_INET6, &in6->sin6_addr, h, sizeof(h));
		snprintf(buf, len, "[%s]:%u", h, ntohs(in6->sin6_port));
	} else {
		const struct sockaddr_in *in4 = (const struct sockaddr_in *)sa;

		inet_ntop(AF_INET, &in4->sin_addr, h, sizeof(h));
		snprintf(buf, len, "%s:%u", h, ntohs(in4->sin_port));
	}
}

int listen_open(const struct listen_addr *a, char *bound, size_t boundlen, char *err,
		size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char want[80];
	int fd, one = 1, e;

	listen_format(&a->sa, want, sizeof(want));
	fd = socket(a->sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto fail;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)&a->sa, a->len) || listen(fd, LISTEN_BACKLOG))
		goto fail;
	if (getsockname(fd, (struct sockaddr *)&ss, &sl))
		snprintf(bound, boundlen, "%s", want);
	else
		listen_format(&ss, bound, boundlen);
	return fd;
fail:
	e = errno;
	snprintf(err, errlen, "cannot listen on %s: %s", want, strerror(e));
	if (fd >= 0)
		close(fd);
	errno = e;
	return -1;
}
