/* `serve --listen HOST:PORT`: parsing (a usage error when malformed) and
 * the listening socket (a runtime error when the address is busy), kept
 * apart so a bad value is refused before any BPF program is loaded. */
#ifndef IDLESCOPE_LISTEN_H
#define IDLESCOPE_LISTEN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define LISTEN_DEFAULT "127.0.0.1:9464"
/* connections the kernel queues while serve is at its limit (the kernel
 * caps it at net.core.somaxconn): room for a scraper during a connect flood */
#define LISTEN_BACKLOG 512

struct listen_addr {
	struct sockaddr_storage sa;
	socklen_t len;
	uint16_t port; /* 0: the kernel picks a free port */
};

/* "127.0.0.1:9464", "0.0.0.0:9464", "[::1]:9464", "localhost:0": the host
 * is a numeric address or localhost (no name lookups: the binary is
 * static). Returns 0, or -1 with a one-line reason in err. */
int listen_parse(const char *arg, struct listen_addr *a, char *err, size_t errlen);
/* "HOST:PORT" ("[HOST]:PORT" for IPv6) of a socket address. */
void listen_format(const struct sockaddr_storage *sa, char *buf, size_t len);
/* Binds and listens. Returns the socket, or -1 with the reason in err and
 * errno kept (EADDRINUSE for a busy port). bound gets the address bound,
 * with the port the kernel picked for port 0. */
int listen_open(const struct listen_addr *a, char *bound, size_t boundlen, char *err,
		size_t errlen);

#endif
