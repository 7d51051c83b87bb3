/* opts.c - one option layer for every command (see opts.h). */
#include "opts.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "attrib/route_learn.h"

#define MAX_FILES 256
#define MAX_OPTS 64

/* ids of the shared options, above any command's own */
enum {
	O_READ = 1000, O_FILTER, O_NO_PROGRESS, O_PORT, O_HTTP_PORT, O_ROUTE, O_GRACE,
	O_ROUTE_VALUES,
	O_PAGE_TIMEOUT, O_MAX_BUFFER, O_TLS_KEYLOG, O_DB, O_APP, O_LABEL, O_STORE_RTS, O_OUTPUT, O_FORMAT,
	O_HELP, /* command options have smaller ids */
	O_PAGE_BUDGET, /* + a page figure's number (OPTG_BUDGETS) */
	O_PROTO_PORT = O_PAGE_BUDGET + PAGE_FIGS_MAX, /* + a protocol's id (OPTG_PROTO_PORTS) */
};

struct shared {
	unsigned group;
	const char *name;
	int short_name;
	bool arg;
	int id;
};

static const struct shared shared[] = {
	{OPTG_FILES | OPTG_READ, "read", 'r', true, O_READ},
	{OPTG_INPUT, "filter", 'f', true, O_FILTER},
	{OPTG_INPUT, "no-progress", 0, false, O_NO_PROGRESS},
	{OPTG_INPUT, "no-status", 0, false, O_NO_PROGRESS}, /* capture's first spelling */
	{OPTG_PORTS, "port", 'p', true, O_PORT},
	{OPTG_PAGES, "http-port", 0, true, O_HTTP_PORT},
	{OPTG_PAGES, "route", 0, true, O_ROUTE},
	{OPTG_PAGES, "route-values", 0, true, O_ROUTE_VALUES},
	{OPTG_PAGES, "grace", 0, true, O_GRACE},
	{OPTG_PAGES, "page-timeout", 0, true, O_PAGE_TIMEOUT},
	{OPTG_LIMITS, "max-buffer", 0, true, O_MAX_BUFFER},
	{OPTG_TLS, "tls-keylog", 0, true, O_TLS_KEYLOG},
	{OPTG_STORE | OPTG_DB_READ, "db", 0, true, O_DB},
	{OPTG_STORE | OPTG_DB_PICK, "app", 0, true, O_APP},
	{OPTG_STORE | OPTG_DB_PICK, "label", 0, true, O_LABEL},
	{OPTG_STORE, "store-round-trips", 0, false, O_STORE_RTS},
	{OPTG_OUTPUT, "output", 'o', true, O_OUTPUT},
	{OPTG_FORMAT, "format", 'F', true, O_FORMAT},
};

bool opt_number(const char *flag, const char *arg, double min, double max, const char *what,
		double *out)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v >= min && v <= max)) {
		usage_error("bad %s \"%s\": %s", flag, arg, what);
		return false;
	}
	*out = v;
	return true;
}

/* "text or json", "md, html, json or csv" */
static void format_list(char *buf, size_t cap, const char *const *f)
{
	size_t o = 0;
	int n = 0;
	while (f[n])
		n++;
	buf[0] = '\0';
	for (int i = 0; i < n && o < cap; i++)
		o += (size_t)snprintf(buf + o, cap - o, "%s%s", i == 0 ? "" : i == n - 1 ? " or " : ", ",
				      f[i]);
}

static int add_port(uint16_t *ports, int *n, const char *arg, const char *what)
{
	if (*n == ANALYSIS_MAX_PORTS) {
		usage_error("at most %d %sports", ANALYSIS_MAX_PORTS, what);
		return -1;
	}
	if (!parse_port(arg, &ports[*n])) {
		usage_error("bad %sport \"%s\": expected 1-65535", what, arg);
		return -1;
	}
	(*n)++;
	return 0;
}

static int add_file(struct read_opts *ro, char *path)
{
	if (ro->nfiles == MAX_FILES) {
		usage_error("too many files");
		return -1;
	}
	ro->files[ro->nfiles++] = path;
	return 0;
}

static int shared_opt(struct cmd_opts *o, int id, char *arg, const char *const *formats)
{
	struct read_opts *ro = &o->ro;
	double v;
	char err[160];
	switch (id) {
	case O_READ:
		return add_file(ro, arg);
	case O_FILTER:
		ro->filter = arg;
		return 0;
	case O_NO_PROGRESS:
		ro->progress = false;
		return 0;
	case O_PORT:
		return add_port(ro->ports, &ro->nports, arg, "");
	case O_HTTP_PORT:
		return add_port(ro->http_ports, &ro->nhttp_ports, arg, "HTTP ");
	case O_ROUTE:
		if (!route_add_pattern(ro->routes, arg, err, sizeof err)) {
			usage_error("%s", err);
			return -1;
		}
		return 0;
	case O_ROUTE_VALUES: /* a whole number, 2 to 64, or 0 */
		if (!opt_number("--route-values", arg, 0, ROUTE_LEARN_MAX,
				"values, 2 to 64, or 0 to learn no parameter", &v))
			return -1;
		if (v == 1 || v != (double)(uint32_t)v) {
			usage_error("bad --route-values \"%s\": values, 2 to 64, or 0 to learn no "
				    "parameter", arg);
			return -1;
		}
		ro->route_values = v == 0 ? ROUTE_VALUES_OFF : (uint32_t)v;
		return 0;
	case O_GRACE:
		if (!opt_number("--grace", arg, 0, 60000, "milliseconds, 0 to 60000", &v))
			return -1;
		ro->grace_ns = (uint64_t)(v * 1e6);
		return 0;
	case O_PAGE_TIMEOUT:
		if (!opt_number("--page-timeout", arg, 0.001, 86400, "seconds, up to 86400", &v))
			return -1;
		ro->hold_ns = (uint64_t)(v * 1e9);
		return 0;
	case O_MAX_BUFFER:
		if (!opt_number("--max-buffer", arg, 1, 1048576, "MiB, 1 to 1048576", &v))
			return -1;
		ro->max_buffer = (uint64_t)(v * 1048576);
		return 0;
	case O_TLS_KEYLOG:
		if (ro->ntls_keylogs == (int)(sizeof ro->tls_keylogs / sizeof ro->tls_keylogs[0])) {
			usage_error("at most %d --tls-keylog files", ro->ntls_keylogs);
			return -1;
		}
		ro->tls_keylogs[ro->ntls_keylogs++] = arg;
		return 0;
	case O_DB:
		o->db.db = arg;
		return 0;
	case O_APP:
		o->db.app = arg;
		return 0;
	case O_LABEL: {
		const char *eq = strchr(arg, '=');
		if (!eq || eq == arg || o->db.nlabels == 64) {
			usage_error("bad --label \"%s\": expected KEY=VALUE (at most 64)", arg);
			return -1;
		}
		o->db.labels[o->db.nlabels++] = arg;
		return 0;
	}
	case O_STORE_RTS:
		o->db.round_trips = true;
		return 0;
	case O_OUTPUT:
		o->output = arg;
		return 0;
	case O_FORMAT:
		for (int i = 0; formats && formats[i]; i++) {
			if (strcmp(arg, formats[i]) == 0) {
				o->format = formats[i];
				return 0;
			}
		}
		format_list(err, sizeof err, formats);
		usage_error("bad format \"%s\": expected %s", arg, err);
		return -1;
	default:
		return -1;
	}
}

static bool taken(const struct opt_extra *extra, const char *name)
{
	for (int i = 0; extra && extra[i].name; i++)
		if (strcmp(extra[i].name, name) == 0)
			return true;
	return false;
}

/* A name the shared table has (HTTP's --http-port is OPTG_PAGES'). */
static bool known(const char *name)
{
	for (size_t i = 0; i < sizeof shared / sizeof shared[0]; i++)
		if (strcmp(shared[i].name, name) == 0)
			return true;
	return false;
}

/* A protocol with a port option of its own (not one of the shared table's:
 * HTTP's --http-port), from *p on; NULL past the last. */
static const struct proto_ops *port_protocol(int *p)
{
	for (; *p < PROTO_N; ++*p) {
		const struct proto_ops *ops = analysis_protocol(*p);
		if (ops && ops->port_option && !known(ops->port_option + 2))
			return ops;
	}
	return NULL;
}

void opts_help_ports(FILE *out)
{
	const struct proto_ops *ops;
	for (int p = 0; (ops = port_protocol(&p)); p++) {
		char flag[64];
		snprintf(flag, sizeof flag, "%s PORT", ops->port_option);
		fprintf(out, "      %-18s", flag);
		const char *w = ops->port_help ? ops->port_help : "its server port";
		int col = 24;
		for (;;) { /* words to column 79, then on lines of their own at 25 */
			size_t n = strcspn(w, " ");
			if (col + 1 + (int)n > 79) {
				fputs("\n                        ", out);
				col = 24;
			}
			fprintf(out, " %.*s", (int)n, w);
			col += 1 + (int)n;
			if (!w[n])
				break;
			w += n + 1;
		}
		fputs(col + 13 > 79 ? "\n                         (repeatable)\n" : " (repeatable)\n", out);
	}
}

void opts_usage_ports(char *buf, size_t cap)
{
	const struct proto_ops *ops;
	size_t o = 0;
	buf[0] = '\0';
	for (int p = 0; (ops = port_protocol(&p)) && o < cap; p++)
		o += (size_t)snprintf(buf + o, cap - o, " [%s PORT]", ops->port_option);
}

/* The options the protocols' registry makes: a protocol's port option, a
 * page figure's budget. */
static int registry_opt(struct cmd_opts *o, int id, const char *arg)
{
	if (id >= O_PROTO_PORT) {
		struct proto_ports *pp = &o->ro.proto_ports[id - O_PROTO_PORT];
		char what[64];
		snprintf(what, sizeof what, "%s ", analysis_protocol(id - O_PROTO_PORT)->title);
		return add_port(pp->port, &pp->n, arg, what);
	}
	char flag[80];
	snprintf(flag, sizeof flag, "--%s", analysis_page_figure(id - O_PAGE_BUDGET, NULL)->option);
	return opt_number(flag, arg, 0, 1e15, "a number >= 0", &o->page_budget[id - O_PAGE_BUDGET])
		       ? 0
		       : -1;
}


/* The getopt_long table of a command: its own options (which may take a
 * shared name over: audit's --route), the shared groups, the options the
 * registry makes, --help. */
struct table {
	struct option lo[MAX_OPTS + 1];
	char shorts[3 * MAX_OPTS + 2];
	int short_id[256]; /* what a short option stands for */
};

static void add_option(struct table *t, int *nl, size_t *ns, const char *name, int short_name,
		       bool arg, int id)
{
	if (*nl >= MAX_OPTS - 1)
		return;
	t->lo[(*nl)++] = (struct option){name, arg ? required_argument : no_argument, NULL, id};
	if (short_name) {
		t->short_id[short_name] = id;
		t->shorts[(*ns)++] = (char)short_name;
		if (arg)
			t->shorts[(*ns)++] = ':';
	}
}

static void build_table(struct table *t, unsigned groups, const struct opt_extra *extra)
{
	memset(t, 0, sizeof(*t));
	t->shorts[0] = ':';
	int nl = 0;
	size_t ns = 1;
	for (int i = 0; extra && extra[i].name; i++)
		add_option(t, &nl, &ns, extra[i].name, extra[i].short_name, extra[i].arg, extra[i].id);
	for (size_t i = 0; i < sizeof shared / sizeof shared[0]; i++)
		if ((shared[i].group & groups) && !taken(extra, shared[i].name))
			add_option(t, &nl, &ns, shared[i].name, shared[i].short_name, shared[i].arg,
				   shared[i].id);
	const struct proto_ops *ops;
	for (int p = 0; (groups & OPTG_PROTO_PORTS) && (ops = port_protocol(&p)); p++)
		add_option(t, &nl, &ns, ops->port_option + 2, 0, true, O_PROTO_PORT + p);
	const struct page_figure *f;
	for (int i = 0; (groups & OPTG_BUDGETS) && (f = analysis_page_figure(i, NULL)); i++)
		if (f->option)
			add_option(t, &nl, &ns, f->option, 0, true, O_PAGE_BUDGET + i);
	t->lo[nl++] = (struct option){"help", no_argument, NULL, O_HELP};
	t->shorts[ns++] = 'h';
	t->shorts[ns] = '\0';
	t->lo[nl] = (struct option){NULL, 0, NULL, 0};
}

int opts_parse(int argc, char **argv, unsigned groups, const char *const *formats,
	       const struct opt_extra *extra, opt_extra_fn *fn, void *ctx, struct cmd_opts *o)
{
	static char *files[MAX_FILES];
	static char *rest[MAX_FILES];
	static struct route_set routes;
	memset(o, 0, sizeof(*o));
	o->ro.files = files;
	o->ro.routes = &routes;
	o->ro.grace_ns = ATTRIB_GRACE_NS;
	o->ro.progress = isatty(2);
	o->format = formats ? formats[0] : NULL;
	o->rest = rest;
	for (int i = 0; i < PAGE_FIGS_MAX; i++)
		o->page_budget[i] = -1;

	struct table t;
	build_table(&t, groups, extra);

	opterr = 0;
	optind = 1;
	int c;
	while ((c = getopt_long(argc, argv, t.shorts, t.lo, NULL)) != -1) {
		if (c == 'h' || c == O_HELP)
			return 1;
		if (c == ':') {
			usage_error("option %s needs a value", argv[optind - 1]);
			return -1;
		}
		if (c == '?') {
			usage_error("unknown option %s", argv[optind - 1]);
			return -1;
		}
		int id = c > 0 && c < 256 && t.short_id[c] ? t.short_id[c] : c;
		if (id == O_READ && !(groups & OPTG_FILES)) { /* -r FILE as FILE */
			if (o->nrest == MAX_FILES) {
				usage_error("too many files");
				return -1;
			}
			rest[o->nrest++] = optarg;
			continue;
		}
		int rc = id < O_READ	      ? fn(ctx, id, optarg)
			 : id >= O_PAGE_BUDGET ? registry_opt(o, id, optarg)
					       : shared_opt(o, id, optarg, formats);
		if (rc != 0)
			return -1;
	}
	for (int i = optind; i < argc; i++) {
		if (groups & OPTG_FILES) {
			if (add_file(&o->ro, argv[i]) != 0)
				return -1;
		} else if (o->nrest < MAX_FILES) {
			rest[o->nrest++] = argv[i];
		} else {
			usage_error("too many files");
			return -1;
		}
	}
	if ((groups & OPTG_FILES) && o->ro.nfiles == 0) {
		usage_error("no capture file given");
		return -1;
	}
	if ((groups & OPTG_STORE) && !o->db.db &&
	    (o->db.app || o->db.nlabels || o->db.round_trips)) {
		usage_error("--app, --label and --store-round-trips need --db");
		return -1;
	}
	return 0;
}

void read_opts_to_analysis(const struct read_opts *ro, struct analysis_opts *ao)
{
	_Static_assert(sizeof ao->ports == sizeof ro->ports, "the same port lists");
	memcpy(ao->ports, ro->ports, sizeof ao->ports);
	ao->nports = ro->nports;
	memcpy(ao->http_ports, ro->http_ports, sizeof ao->http_ports);
	ao->nhttp_ports = ro->nhttp_ports;
	_Static_assert(sizeof ao->proto_ports == sizeof ro->proto_ports, "the same port lists");
	memcpy(ao->proto_ports, ro->proto_ports, sizeof ao->proto_ports);
	ao->routes = ro->routes;
	ao->route_values = ro->route_values;
	ao->grace_ns = ro->grace_ns;
	ao->hold_ns = ro->hold_ns;
	ao->max_buffer = ro->max_buffer;
}
