/* The one start-up, window and teardown of the live commands (live_run.h). */
#include "session/live_run.h"

#include "session/window.h"
#include "util/clock.h"
#include "util/diag.h"

struct live_run {
	const struct live_ops *ops;
	void *cmd;
	struct live *live;
	struct window win;
	uint64_t next_refresh; /* live_run_tick's */
};

static void run_interval(void *ctx, uint64_t now)
{
	struct live_run *r = ctx;

	if (r->ops->on_interval(r->cmd, now))
		r->win.done = true;
}

/* disable flags and PM QoS into the maps, hotplug polled (live_refresh) */
static void run_refresh(void *ctx, uint64_t now)
{
	struct live_run *r = ctx;

	if (r->ops->lock)
		r->ops->lock(r->cmd, true);
	live_refresh(r->live, now);
	if (r->ops->lock)
		r->ops->lock(r->cmd, false);
}

/* a PM QoS change: the limits pushed at once (live_qos_event) */
static void run_qos(void *ctx, uint64_t now)
{
	struct live_run *r = ctx;

	if (r->ops->lock)
		r->ops->lock(r->cmd, true);
	live_qos_event(r->live, now);
	if (r->ops->lock)
		r->ops->lock(r->cmd, false);
}

/* The next refresh after now: UINT64_MAX when nothing is polled. */
static uint64_t next_refresh_after(const struct live_run *r, uint64_t now)
{
	uint64_t ns = live_refresh_ns(r->live);

	return ns ? now + ns : UINT64_MAX;
}

uint64_t live_run_tick(struct live_run *r, uint64_t now)
{
	if (now >= r->next_refresh) {
		run_refresh(r, now);
		r->next_refresh = next_refresh_after(r, now);
	}
	return r->next_refresh;
}

int live_run_qos_fd(const struct live_run *r)
{
	return live_qos_fd(r->live);
}

void live_run_qos(struct live_run *r, uint64_t now)
{
	run_qos(r, now);
}

uint64_t live_run_slack_ns(const struct live_run *r)
{
	return live_refresh_slack_ns(r->live);
}

/* The window opens: exits before start are not counted from here. */
static int start(struct live_run *r, uint64_t *t)
{
	int ret;

	if (r->ops->before_start)
		r->ops->before_start(r->cmd);
	*t = idle_now_ns();
	if ((ret = live_start(r->live, *t)))
		return ret;
	return r->ops->started ? r->ops->started(r->cmd, *t) : 0;
}

static int run(struct live_run *r, const struct live_plan *p)
{
	const struct live_ops *ops = r->ops;
	struct window_ticks ticks = { ops->on_interval ? run_interval : NULL, run_refresh, r, -1,
				      run_qos, 0 };
	uint64_t t = 0, stop;
	int ret, sig;

	if ((ret = live_prepare(r->live, p->topo, &p->opts)))
		return ret;
	if (ops->prepared && (ret = ops->prepared(r->cmd)))
		return ret;
	if ((ret = live_load(r->live)))
		return ret;
	if (ops->loaded && (ret = ops->loaded(r->cmd)))
		return ret;
	if (ops->start_before_attach && (ret = start(r, &t)))
		return ret;
	if ((ret = live_attach(r->live)))
		return ret;
	r->win.duration_ns = p->duration_ns;
	r->win.interval_ns = p->interval_ns;
	r->win.refresh_ns = live_refresh_ns(r->live);
	ticks.wake_fd = live_qos_fd(r->live);
	ticks.refresh_slack_ns = live_refresh_slack_ns(r->live);
	if ((ret = window_prepare(&r->win, p->command)))
		return ret;
	if (!ops->start_before_attach && (ret = start(r, &t)))
		return ret;
	if (ops->opened && (ret = ops->opened(r->cmd, t)))
		return ret;
	if (ops->loop) {
		r->next_refresh = next_refresh_after(r, t);
		return ops->loop(r->cmd, r, t);
	}
	if ((ret = window_release(&r->win, p->command)))
		return ret;

	sig = window_wait(&r->win, t, &ticks);

	if (ops->before_stop)
		ops->before_stop(r->cmd);
	stop = idle_now_ns();
	idle_session_stop(&r->live->sess, stop);
	ret = ops->finish ? ops->finish(r->cmd, t, stop) : 0;
	if (ret < 0)
		return EXIT_RUNTIME;
	/* a failed assertion (3) or an unknown metric (2) outranks the
	 * command's own status */
	sig = window_finish(&r->win, sig);
	return ret ? ret : sig;
}

int live_run(const struct live_ops *ops, void *cmd, int argc, char **argv)
{
	struct live_run r = { .ops = ops, .cmd = cmd };
	struct live_plan plan = { 0 };
	int ret;

	window_block_signals(); /* a signal from here on: a normal end or one error line */
	ret = ops->setup(cmd, argc, argv, &plan);
	r.live = plan.live;
	if (!ret)
		ret = run(&r, &plan);
	if (ops->cleanup)
		ops->cleanup(cmd);
	window_cleanup(&r.win);
	if (r.live)
		live_close(r.live);
	return ret;
}
