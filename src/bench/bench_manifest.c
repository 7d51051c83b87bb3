/* bench_manifest.c - apps' manifests for pgrtt bench: parsed strictly (an
 * unknown key is a typo, said with its name), every string bounded, the
 * harness's own environment contract protected. */
#define _GNU_SOURCE
#include "bench_manifest.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* what the harness sets for every app (docs/bench.md): a manifest may not */
static const char *const contract[] = {"PORT", "DATABASE_URL", "REDIS_URL", "QUERIES", NULL};

static int fail(char *err, size_t cap, const char *where, const char *what)
{
	snprintf(err, cap, "%s%s%s", where, where[0] ? ": " : "", what);
	return -1;
}

static bool name_ok(const char *s)
{
	if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9')))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-' || *s == '.' ||
		      *s == '_'))
			return false;
	return true;
}

static bool env_key_ok(const char *s)
{
	if (!((*s >= 'A' && *s <= 'Z') || *s == '_'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

/* a string member into a fixed buffer; absent is "" unless required */
static int get_str(const cJSON *o, const char *key, char *dst, size_t cap, bool required,
		   const char *where, char *err, size_t ecap)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
	char msg[160];
	if (!x) {
		if (!required)
			return 0;
		snprintf(msg, sizeof msg, "\"%s\" is missing", key);
		return fail(err, ecap, where, msg);
	}
	if (!cJSON_IsString(x)) {
		snprintf(msg, sizeof msg, "\"%s\" must be a string", key);
		return fail(err, ecap, where, msg);
	}
	if (strlen(x->valuestring) >= cap) {
		snprintf(msg, sizeof msg, "\"%s\" is longer than %zu bytes", key, cap - 1);
		return fail(err, ecap, where, msg);
	}
	strcpy(dst, x->valuestring);
	return 0;
}

static int check_keys(const cJSON *o, const char *const *allowed, const char *where, char *err,
		      size_t cap)
{
	const cJSON *m;
	cJSON_ArrayForEach(m, o)
	{
		bool ok = strcmp(m->string, "comment") == 0;
		for (int i = 0; allowed[i] && !ok; i++)
			ok = strcmp(m->string, allowed[i]) == 0;
		if (!ok) {
			char msg[160];
			snprintf(msg, sizeof msg, "unknown key \"%.60s\"", m->string);
			return fail(err, cap, where, msg);
		}
	}
	return 0;
}

/* "env": {"KEY": "value"} appended to a->env */
static int get_env(const cJSON *o, struct bench_app *a, const char *where, char *err, size_t cap)
{
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(o, "env"), *m;
	if (!e)
		return 0;
	if (!cJSON_IsObject(e))
		return fail(err, cap, where, "\"env\" must be an object of strings");
	cJSON_ArrayForEach(m, e)
	{
		char msg[200];
		if (!cJSON_IsString(m) || !env_key_ok(m->string)) {
			snprintf(msg, sizeof msg, "env \"%.60s\": a NAME (A-Z, 0-9, _) and a string",
				 m->string);
			return fail(err, cap, where, msg);
		}
		for (int i = 0; contract[i]; i++)
			if (strcmp(m->string, contract[i]) == 0) {
				snprintf(msg, sizeof msg, "env \"%s\" is set by the harness", m->string);
				return fail(err, cap, where, msg);
			}
		if (a->nenv == BENCH_MAX_ENV)
			return fail(err, cap, where, "more than 16 env entries");
		int n = snprintf(a->env[a->nenv], sizeof a->env[0], "%s=%s", m->string,
				 m->valuestring);
		if (n < 0 || (size_t)n >= sizeof a->env[0]) {
			snprintf(msg, sizeof msg, "env \"%.60s\" is too long", m->string);
			return fail(err, cap, where, msg);
		}
		a->nenv++;
	}
	return 0;
}

/* "run": the app's argv. */
static int get_run(const cJSON *o, struct bench_app *base, const char *where, char *err,
		   size_t cap)
{
	const cJSON *run = cJSON_GetObjectItemCaseSensitive(o, "run"), *x;
	if (!cJSON_IsArray(run) || cJSON_GetArraySize(run) < 1)
		return fail(err, cap, where, "\"run\" must be a non-empty array of strings (argv)");
	cJSON_ArrayForEach(x, run)
	{
		if (!cJSON_IsString(x) || !x->valuestring[0])
			return fail(err, cap, where, "\"run\" must be a non-empty array of strings (argv)");
		if (base->nrun == BENCH_MAX_ARGS - 1)
			return fail(err, cap, where, "\"run\" has more than 15 arguments");
		if (strlen(x->valuestring) >= sizeof base->run[0])
			return fail(err, cap, where, "a \"run\" argument is too long");
		strcpy(base->run[base->nrun++], x->valuestring);
	}
	return 0;
}

/* "requires": what must be installed for the app to run. */
static int get_requires(const cJSON *o, struct bench_app *base, const char *where, char *err,
			size_t cap)
{
	const cJSON *x;
	const cJSON *req = cJSON_GetObjectItemCaseSensitive(o, "requires");
	if (req && !cJSON_IsArray(req))
		return fail(err, cap, where, "\"requires\" must be an array");
	cJSON_ArrayForEach(x, req)
	{
		static const char *const rkeys[] = {"command", "path", "apt", NULL};
		if (base->nreq == BENCH_MAX_REQ)
			return fail(err, cap, where, "more than 8 \"requires\" entries");
		struct bench_req *r = &base->req[base->nreq++];
		if (!cJSON_IsObject(x) || check_keys(x, rkeys, where, err, cap) != 0 ||
		    get_str(x, "command", r->command, sizeof r->command, false, where, err, cap) != 0 ||
		    get_str(x, "path", r->path, sizeof r->path, false, where, err, cap) != 0 ||
		    get_str(x, "apt", r->apt, sizeof r->apt, false, where, err, cap) != 0)
			return err[0] ? -1 : fail(err, cap, where, "a \"requires\" entry is an object");
		if (!r->command[0] == !r->path[0])
			return fail(err, cap, where, "a \"requires\" entry has a command or a path");
	}
	return 0;
}

/* "variants": each an app of its own - the same build, its own name,
 * words and environment. */
static int add_variants(const cJSON *vars, const struct bench_app *base, struct bench_apps *out,
			const char *where, char *err, size_t cap)
{
	const cJSON *x;
	cJSON_ArrayForEach(x, vars)
	{
		static const char *const vkeys[] = {"name", "stack", "pattern", "env", NULL};
		if (out->n == BENCH_MAX_APPS)
			return fail(err, cap, where, "more than 64 apps");
		struct bench_app *v = &out->app[out->n];
		*v = *base;
		if (!cJSON_IsObject(x))
			return fail(err, cap, where, "a variant must be an object");
		if (get_str(x, "name", v->name, sizeof v->name, true, where, err, cap) != 0)
			return -1;
		char vwhere[120];
		snprintf(vwhere, sizeof vwhere, "app \"%s\" variant \"%s\"", base->name, v->name);
		if (!name_ok(v->name))
			return fail(err, cap, vwhere, "a name is a-z, 0-9, '-', '.', '_'");
		if (check_keys(x, vkeys, vwhere, err, cap) != 0 ||
		    get_str(x, "stack", v->stack, sizeof v->stack, false, vwhere, err, cap) != 0 ||
		    get_str(x, "pattern", v->pattern, sizeof v->pattern, false, vwhere, err, cap) != 0 ||
		    get_env(x, v, vwhere, err, cap) != 0)
			return -1;
		if (!v->stack[0])
			snprintf(v->stack, sizeof v->stack, "%s", base->stack);
		out->n++;
	}
	return 0;
}

static int parse_one(const cJSON *o, const char *dir, struct bench_apps *out, char *err,
		     size_t cap)
{
	static const char *const keys[] = {"name", "stack", "pattern", "dir", "build", "run",
					   "env", "requires", "start_timeout", "variants", NULL};
	if (!cJSON_IsObject(o))
		return fail(err, cap, "", "an app must be a JSON object");
	struct bench_app base;
	memset(&base, 0, sizeof base);
	char where[80] = "app";
	if (get_str(o, "name", base.name, sizeof base.name, true, where, err, cap) != 0)
		return -1;
	snprintf(where, sizeof where, "app \"%s\"", base.name);
	if (!name_ok(base.name))
		return fail(err, cap, where, "a name is a-z, 0-9, '-', '.', '_' (starting a-z or 0-9)");
	if (check_keys(o, keys, where, err, cap) != 0 ||
	    get_str(o, "stack", base.stack, sizeof base.stack, true, where, err, cap) != 0 ||
	    get_str(o, "pattern", base.pattern, sizeof base.pattern, false, where, err, cap) != 0 ||
	    get_str(o, "build", base.build, sizeof base.build, false, where, err, cap) != 0)
		return -1;
	char rel[512] = "";
	if (get_str(o, "dir", rel, sizeof rel, false, where, err, cap) != 0)
		return -1;
	int n = rel[0] == '/' ? snprintf(base.dir, sizeof base.dir, "%s", rel)
	      : rel[0]      ? snprintf(base.dir, sizeof base.dir, "%s/%s", dir, rel)
			    : snprintf(base.dir, sizeof base.dir, "%s", dir);
	if (n < 0 || (size_t)n >= sizeof base.dir)
		return fail(err, cap, where, "the app's directory path is too long");
	snprintf(base.build_id, sizeof base.build_id, "%s", base.name);
	if (get_run(o, &base, where, err, cap) != 0)
		return -1;
	if (get_env(o, &base, where, err, cap) != 0)
		return -1;
	if (get_requires(o, &base, where, err, cap) != 0)
		return -1;
	base.start_timeout = 60;
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(o, "start_timeout");
	if (st) {
		if (!cJSON_IsNumber(st) || st->valuedouble < 1 || st->valuedouble > 600)
			return fail(err, cap, where, "\"start_timeout\" is seconds, 1 to 600");
		base.start_timeout = st->valuedouble;
	}
	const cJSON *vars = cJSON_GetObjectItemCaseSensitive(o, "variants");
	if (vars && (!cJSON_IsArray(vars) || cJSON_GetArraySize(vars) < 1))
		return fail(err, cap, where, "\"variants\" must be a non-empty array");
	if (!vars) {
		if (out->n == BENCH_MAX_APPS)
			return fail(err, cap, where, "more than 64 apps");
		out->app[out->n++] = base;
		return 0;
	}
	return add_variants(vars, &base, out, where, err, cap);
}

int bench_manifest_parse(const char *json, size_t len, const char *dir, struct bench_apps *out,
			 char *err, size_t cap)
{
	err[0] = '\0';
	cJSON *root = cJSON_ParseWithLength(json, len);
	if (!root)
		return fail(err, cap, "", "not valid JSON");
	int n0 = out->n, rc = 0;
	const cJSON *list = root, *x;
	if (cJSON_IsObject(root) && cJSON_GetObjectItemCaseSensitive(root, "apps")) {
		static const char *const keys[] = {"apps", NULL};
		list = cJSON_GetObjectItemCaseSensitive(root, "apps");
		if (check_keys(root, keys, "config", err, cap) != 0 || !cJSON_IsArray(list))
			rc = err[0] ? -1 : fail(err, cap, "config", "\"apps\" must be an array");
	}
	if (rc == 0 && cJSON_IsArray(list)) {
		cJSON_ArrayForEach(x, list) if (rc == 0) rc = parse_one(x, dir, out, err, cap);
	} else if (rc == 0) {
		rc = parse_one(list, dir, out, err, cap);
	}
	/* names are how --apps, the store's labels and results.json find an app */
	for (int i = n0; rc == 0 && i < out->n; i++)
		for (int k = 0; k < i; k++)
			if (strcmp(out->app[i].name, out->app[k].name) == 0) {
				char msg[120];
				snprintf(msg, sizeof msg, "app \"%s\" is defined twice", out->app[i].name);
				rc = fail(err, cap, "", msg);
				break;
			}
	if (rc != 0)
		out->n = n0;
	cJSON_Delete(root);
	return rc;
}

int bench_manifest_load_file(const char *path, struct bench_apps *out, char *err, size_t cap)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, cap, "%s: cannot open", path);
		return -1;
	}
	static char buf[1 << 18];
	size_t n = fread(buf, 1, sizeof buf, f);
	bool big = n == sizeof buf;
	fclose(f);
	if (big) {
		snprintf(err, cap, "%s: larger than 256 KiB", path);
		return -1;
	}
	char dir[512];
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		snprintf(dir, sizeof dir, ".");
	char real[PATH_MAX];
	if (realpath(dir, real) && strlen(real) < sizeof dir)
		memcpy(dir, real, strlen(real) + 1);
	char e[400];
	if (bench_manifest_parse(buf, n, dir, out, e, sizeof e) != 0) {
		snprintf(err, cap, "%s: %s", path, e);
		return -1;
	}
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int bench_manifest_load_dir(const char *bench_dir, struct bench_apps *out, char *err, size_t cap)
{
	char apps[600];
	snprintf(apps, sizeof apps, "%s/apps", bench_dir);
	DIR *d = opendir(apps);
	if (!d) {
		snprintf(err, cap, "%s: cannot open (PGRTT_BENCH_DIR names the bench/ folder)", apps);
		return -1;
	}
	char *names[BENCH_MAX_APPS];
	int n = 0;
	for (struct dirent *e; (e = readdir(d)) && n < BENCH_MAX_APPS;)
		if (e->d_name[0] != '.')
			names[n++] = strdup(e->d_name);
	closedir(d);
	qsort(names, (size_t)n, sizeof names[0], by_name);
	int rc = 0;
	for (int i = 0; i < n; i++) {
		char path[900];
		snprintf(path, sizeof path, "%s/%s/manifest.json", apps, names[i]);
		if (rc == 0 && access(path, R_OK) == 0)
			rc = bench_manifest_load_file(path, out, err, cap);
		free(names[i]);
	}
	return rc;
}

static bool on_path(const char *cmd)
{
	if (strchr(cmd, '/'))
		return access(cmd, X_OK) == 0;
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/bin:/bin";
	for (const char *p = path; *p;) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char full[700];
		snprintf(full, sizeof full, "%.*s/%s", (int)n, p, cmd);
		if (n && access(full, X_OK) == 0)
			return true;
		p += n + (end ? 1 : 0);
	}
	return false;
}

bool bench_app_runnable(const struct bench_app *a, char *why, size_t cap)
{
	char missing[300] = "", apt[400] = "";
	size_t m = 0, k = 0;
	for (int i = 0; i < a->nreq; i++) {
		const struct bench_req *r = &a->req[i];
		bool have = r->command[0] ? on_path(r->command) : access(r->path, F_OK) == 0;
		if (have)
			continue;
		m += (size_t)snprintf(missing + m, m < sizeof missing ? sizeof missing - m : 0, "%s%s",
				      m ? ", " : "", r->command[0] ? r->command : r->path);
		if (r->apt[0] && !strstr(apt, r->apt))
			k += (size_t)snprintf(apt + k, k < sizeof apt ? sizeof apt - k : 0, " %s", r->apt);
	}
	if (!m)
		return true;
	if (k)
		snprintf(why, cap, "%s missing: apt-get install -y%s", missing, apt);
	else
		snprintf(why, cap, "%s missing", missing);
	return false;
}

int bench_expand(const char *s, const char *app, const char *build, const char *bench, char *out,
		 size_t cap)
{
	static const char *const names[] = {"APP", "BUILD", "BENCH"};
	const char *vals[] = {app, build, bench};
	size_t o = 0;
	while (*s) {
		const char *val = NULL;
		size_t skip = 0;
		for (int i = 0; i < 3 && !val && s[0] == '$'; i++) {
			size_t n = strlen(names[i]);
			if (strncmp(s + 1, names[i], n) == 0 &&
			    !(s[1 + n] == '_' || (s[1 + n] >= 'A' && s[1 + n] <= 'Z') ||
			      (s[1 + n] >= '0' && s[1 + n] <= '9')))
				val = vals[i], skip = 1 + n;
			else if (s[1] == '{' && strncmp(s + 2, names[i], n) == 0 && s[2 + n] == '}')
				val = vals[i], skip = 3 + n;
		}
		if (val) {
			size_t n = strlen(val);
			if (o + n >= cap)
				return -1;
			memcpy(out + o, val, n);
			o += n;
			s += skip;
		} else {
			if (o + 1 >= cap)
				return -1;
			out[o++] = *s++;
		}
	}
	out[o] = '\0';
	return 0;
}
