/* `idlescope serve`: keep the BPF programs attached and serve their
 * cumulative counters as Prometheus metrics over HTTP (libmicrohttpd). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <microhttpd.h>

#include "cmd/cli.h"
#include "cmd/commands.h"
#include "cmd/live_prom.h"
#include "sys/cpuidle_sysfs.h"
#include "session/idle_loader.h"
#include "util/clock.h"
#include "session/live.h"
#include "session/live_run.h"
#include "session/parts.h"
#include "web/listen.h"
#include "web/web_guard.h"
#include "web/web_libs.h"
#include "web/web_mhd.h"
#include "web/web_request.h"
#include "model/model.h"
#include "render/prom.h"
#include "sys/topology.h"

struct serve {
	struct common_opts o;
	const char *listen_arg;
	const char *web_config; /* --web-config FILE */
	struct web_mhd web;     /* its TLS options and request gate */
	struct web_guard guard; /* connection cap and request deadline */
	struct listen_addr addr;
	bool wake;
	bool cpu_hist, cpu_detail; /* --per-cpu-histograms, --per-cpu-detail */
	bool group_hist;           /* --group-histograms */
	const char *topology; /* --topology, NULL = sysfs */
	unsigned int without; /* --without: enum session_part bits */
	struct session_cli session_cli; /* session_argp's view of wake, topology and without */
	struct topology topo;
	struct live live; /* tables, groups, BPF session (session/live.h) */
	struct live_prom prom; /* the snapshots (cmd/live_prom.h) */
	struct cpulist sel;
	struct MHD_Daemon *mhd;
	/* the maps, live.info[] and prom are shared with the HTTP thread */
	pthread_mutex_t lock;
	char *cached; /* --interval: the last snapshot's text */
	size_t cached_len;
	int fd;
	char bound[300];
};

static const char doc[] =
	"Keep the BPF programs attached and serve the counters as Prometheus metrics at "
	"http://HOST:PORT/metrics (https:// with --web-config's TLS).\v"
	"Counters are cumulative from the start. Without -i every scrape reads the BPF maps; "
	"with -i SECONDS a snapshot is taken every SECONDS and scrapes get the last one. "
	"Runs until SIGINT/SIGTERM (or -d SECONDS), then detaches and exits 0. At most 256 "
	"connections are open (a new one cuts the one waiting longest for its request); a "
	"request must be read and answered within 10 s. By default the "
	"series per CPU are the state counters (entries, residency, above, below) and busy "
	"seconds; the histograms and wakeups are per state and cause over the selected CPUs. "
	"The metric families are listed in docs/metrics.md.";

enum { OPT_LISTEN = 0x300, OPT_CPU_HIST, OPT_CPU_DETAIL, OPT_GROUP_HIST, OPT_WEB_CONFIG };

static const struct argp_option serve_options[] = {
	{ "listen", OPT_LISTEN, "HOST:PORT", 0,
	  "Listen on HOST:PORT (default " LISTEN_DEFAULT "; [::1]:PORT for IPv6, port 0 picks a "
	  "free one)", 0 },
	{ "web-config", OPT_WEB_CONFIG, "FILE", 0,
	  "TLS and basic auth from a Prometheus exporter-toolkit web configuration file "
	  "(tls_server_config, basic_auth_users with bcrypt hashes), as node_exporter's "
	  "--web.config.file; TLS needs a build with GnuTLS (the Debian package)", 0 },
	{ "per-cpu-histograms", OPT_CPU_HIST, NULL, 0,
	  "Idle duration and timer lateness histograms per CPU and state (16 series per CPU and "
	  "state each), not per state over all CPUs", 0 },
	{ "per-cpu-detail", OPT_CPU_DETAIL, NULL, 0,
	  "Wakeup causes per CPU (20 series per CPU), not per cause over all CPUs, and each CPU's "
	  "state parameters (3 per CPU and state)", 0 },
	{ "group-histograms", OPT_GROUP_HIST, NULL, 0,
	  "Each topology group's all-idle duration histogram (16 series per group)", 0 },
	{ 0 }
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct serve *r = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &r->o;
		r->session_cli = (struct session_cli){ &r->wake, &r->topology, &r->without };
		state->child_inputs[1] = &r->session_cli;
		break;
	case OPT_LISTEN:
		r->listen_arg = arg;
		break;
	case OPT_WEB_CONFIG:
		r->web_config = arg;
		break;
	case OPT_CPU_HIST:
		r->cpu_hist = true;
		break;
	case OPT_CPU_DETAIL:
		r->cpu_detail = true;
		break;
	case OPT_GROUP_HIST:
		r->group_hist = true;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "serve takes no COMMAND ('%s')", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child children[] = { { &common_argp, 0, NULL, 0 },
					       { &session_argp, 0, NULL, 0 }, { 0 } };
static const struct argp serve_argp = { serve_options, parse_opt, NULL, doc, children, NULL, NULL };

/* One snapshot as exposition text (malloc'ed) in *text. Call with the lock. */
static int snapshot(struct serve *r, char **text, size_t *len)
{
	FILE *f;
	int err = -ENOMEM;

	*text = NULL;
	if ((f = open_memstream(text, len))) {
		err = live_prom_snapshot(&r->prom, f);
		if (fclose(f) && !err)
			err = -ENOMEM;
	}
	if (err) {
		free(*text);
		*text = NULL;
	}
	return err;
}

static const char index_html[] =
	"<!DOCTYPE html>\n<html><head><title>idlescope</title></head><body>\n"
	"<h1>idlescope</h1>\n<p>CPU idle-state residency, prediction error and wakeup causes "
	"from eBPF.</p>\n<p><a href=\"/metrics\">Metrics</a></p>\n</body></html>\n";

static enum MHD_Result reply(struct serve *r, struct MHD_Connection *conn, unsigned int code,
			     const char *type, void *body, size_t len, enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *resp = web_lib.MHD_create_response_from_buffer(len, body, mode);
	enum MHD_Result ret;

	if (!resp)
		return MHD_NO;
	web_lib.MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	web_mhd_headers(&r->web, resp);
	ret = web_lib.MHD_queue_response(conn, code, resp);
	web_lib.MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url,
			      const char *method, const char *version, const char *upload_data,
			      size_t *upload_data_size, void **con_cls)
{
	struct serve *r = cls;
	enum MHD_Result ret;
	const char *why;
	unsigned int code;
	char *text = NULL;
	size_t len = 0;
	int err = 0;

	(void)upload_data;
	(void)upload_data_size;
	web_guard_answering(conn);
	if ((code = web_request_check(conn, url, version, *con_cls, &why)))
		return web_mhd_refuse(&r->web, conn, code, why, 0);
	if (!web_mhd_admit(&r->web, conn, &ret))
		return ret;
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply(r, conn, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain",
			     (void *)"only GET and HEAD\n", 18, MHD_RESPMEM_PERSISTENT);
	if (!strcmp(url, "/"))
		return reply(r, conn, MHD_HTTP_OK, "text/html; charset=utf-8", (void *)index_html,
			     sizeof(index_html) - 1, MHD_RESPMEM_PERSISTENT);
	if (strcmp(url, "/metrics"))
		return reply(r, conn, MHD_HTTP_NOT_FOUND, "text/plain", (void *)"not found\n", 10,
			     MHD_RESPMEM_PERSISTENT);
	pthread_mutex_lock(&r->lock);
	if (r->o.interval_ns) {
		if (r->cached && (text = malloc(r->cached_len + 1))) {
			memcpy(text, r->cached, r->cached_len + 1);
			len = r->cached_len;
		} else {
			err = -ENOMEM;
		}
	} else {
		err = snapshot(r, &text, &len);
	}
	pthread_mutex_unlock(&r->lock);
	if (err) {
		char msg[128];
		int n = snprintf(msg, sizeof(msg), "cannot read the BPF maps: %s\n", strerror(-err));

		return reply(r, conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain", msg, (size_t)n,
			     MHD_RESPMEM_MUST_COPY);
	}
	return reply(r, conn, MHD_HTTP_OK, PROM_CONTENT_TYPE, text, len, MHD_RESPMEM_MUST_FREE);
}

/* -i: a fresh snapshot for the scrapes to come */
static bool on_interval(void *ctx, uint64_t now)
{
	struct serve *r = ctx;
	char *text;
	size_t len;

	(void)now;
	pthread_mutex_lock(&r->lock);
	if (!snapshot(r, &text, &len)) {
		free(r->cached);
		r->cached = text;
		r->cached_len = len;
	}
	pthread_mutex_unlock(&r->lock);
	return false;
}

/* live_run's refresh tick writes the maps live.info[] feeds: under the lock */
static void lock(void *ctx, bool take)
{
	struct serve *r = ctx;

	if (take)
		pthread_mutex_lock(&r->lock);
	else
		pthread_mutex_unlock(&r->lock);
}

static void http_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	fputs("idlescope: http: ", stderr);
	vfprintf(stderr, fmt, ap);
}

static int setup(void *ctx, int argc, char **argv, struct live_plan *plan)
{
	struct serve *r = ctx;
	char err[512];
	FILE *out;
	int ret;

	cli_takes(CLI_DURATION | CLI_INTERVAL | CLI_CPUS | CLI_VERBOSE,
		  "Serve a snapshot taken every SECONDS (default: read the maps at each scrape)");
	argp_parse(&serve_argp, argc, argv, ARGP_IN_ORDER, NULL, r);
	idle_set_verbose(r->o.verbose);
	if (listen_parse(r->listen_arg ? r->listen_arg : LISTEN_DEFAULT, &r->addr, err, sizeof(err))) {
		diag_error("%s", err);
		return EXIT_USAGE;
	}
	/* libmicrohttpd and GnuTLS, opened by serve alone: one line when missing */
	if (web_libs_open(err, sizeof(err))) {
		diag_error("%s", err);
		return EXIT_RUNTIME;
	}
	/* the web configuration before anything loads: a bad file, or TLS
	 * this build lacks, is refused rather than served in plain text */
	if ((ret = web_mhd_load(&r->web, r->web_config, err, sizeof(err)))) {
		diag_error("%s", err);
		return ret;
	}
	if ((ret = cli_prepare(&r->o, &r->topo, &r->sel, &out)))
		return ret;
	*plan = (struct live_plan){ .live = &r->live, .topo = &r->topo,
				    .opts = { .topology = r->topology, .wake = r->wake,
					      .without = r->without, .verbose = r->o.verbose },
				    .duration_ns = r->o.duration_ns, .interval_ns = r->o.interval_ns };
	return EXIT_OK;
}

/* bind first: a busy port fails before anything is loaded */
static int prepared(void *ctx)
{
	struct serve *r = ctx;
	char err[512];

	if ((r->fd = listen_open(&r->addr, r->bound, sizeof(r->bound), err, sizeof(err))) < 0) {
		diag_error("%s", err);
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

static int loaded(void *ctx)
{
	struct serve *r = ctx;

	if (live_prom_init(&r->prom, &r->live, &r->sel, 0,
			   &(struct prom_scrape){ .wake = r->live.sess.wake,
						  .no_timers = (r->without & PART_TIMERS) != 0,
						  .cpu_hist = r->cpu_hist, .cpu_detail = r->cpu_detail,
						  .group_hist = r->group_hist })) {
		diag_error("out of memory");
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

/* the counters run from before the attach: every period they count began
 * after their start (a CPU idle since before the attach counts as idle from
 * the start, up to its first exit) */
static int started(void *ctx, uint64_t start)
{
	struct serve *r = ctx;

	r->prom.start = start;
	return EXIT_OK;
}

/* attached, the window open: the HTTP server starts */
static int opened(void *ctx, uint64_t start)
{
	struct serve *r = ctx;
	int err_no;

	if (r->o.interval_ns)
		on_interval(r, start);
	/* the ending signals are blocked (live_run): the reaper and HTTP
	 * threads inherit the mask, and the signals reach the window */
	if ((err_no = web_guard_start(&r->guard))) {
		diag_error("cannot start the HTTP server: %s", strerror(-err_no));
		return EXIT_RUNTIME;
	}
	/* the logger first: MHD logs the options after it */
	r->mhd = web_lib.MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL |
					  web_mhd_flags(&r->web) | (r->o.verbose ? MHD_USE_ERROR_LOG : 0),
				  0, web_guard_accept, &r->guard, handle, r, MHD_OPTION_EXTERNAL_LOGGER,
				  http_log, NULL, MHD_OPTION_LISTEN_SOCKET, r->fd,
				  MHD_OPTION_URI_LOG_CALLBACK, web_request_uri_log, NULL,
				  MHD_OPTION_UNESCAPE_CALLBACK, web_request_unescape, NULL,
				  MHD_OPTION_ARRAY, r->guard.options, MHD_OPTION_ARRAY, r->web.options,
				  MHD_OPTION_END);
	if (!r->mhd) {
		diag_error("cannot start the HTTP server on %s", r->bound);
		return EXIT_RUNTIME;
	}
	r->fd = -1; /* MHD closes it */
	printf("idlescope serve: %s://%s/metrics\n", r->web.cfg.tls ? "https" : "http", r->bound);
	fflush(stdout);
	return EXIT_OK;
}

/* before the session closes: no request reads the maps any more */
static void cleanup(void *ctx)
{
	struct serve *r = ctx;

	if (r->mhd)
		web_lib.MHD_stop_daemon(r->mhd);
	web_guard_stop(&r->guard);
	if (r->fd >= 0)
		close(r->fd);
}

static const struct live_ops serve_ops = {
	.start_before_attach = true, .setup = setup, .prepared = prepared, .loaded = loaded,
	.started = started, .opened = opened, .on_interval = on_interval, .lock = lock,
	.cleanup = cleanup,
};

int cmd_serve(int argc, char **argv)
{
	struct serve r = { .o = { .format = FMT_TABLE }, .wake = true, .fd = -1,
			   .lock = PTHREAD_MUTEX_INITIALIZER };
	int ret = live_run(&serve_ops, &r, argc, argv);

	free(r.cached);
	live_prom_free(&r.prom);
	topology_free(&r.topo);
	web_mhd_free(&r.web);
	return ret;
}
