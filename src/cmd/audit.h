/* audit.h - pgrtt audit's rules: the policy, what a run measured, the
 * checks made of them (audit_rules.c), for cmd_audit.c. */
#ifndef PGRTT_AUDIT_H
#define PGRTT_AUDIT_H

#include <stdbool.h>
#include <stdint.h>

#include "cli/cli.h"
#include "findings/evidence.h"
#include "store/store.h"

#define AUDIT_INPUT EXIT_ERROR /* input unusable: capture, run, policy, baseline */
#define MAX_BUDGETS 64

struct adata {
	struct route_figures *r; /* routes with pages: figures per page */
	int n;
	double pages;
	uint64_t acq, rel, idle, returned_in_tx;
	bool http;                 /* HTTP ports were given: pages could be seen */
	uint64_t pages_mixed_only; /* pages of routes that had only mixed pages */
	int64_t run_id;            /* audited from the store: its run (0: capture files) */
	struct run_figures judged; /* ... its app, labels, time and host, to name it */
	struct evidence ev;
};

struct policy {
	double max_rt, max_rfq, max_pings, max_conns, min_pages, max_increase;
	/* page figures' budgets (figure.h's option), numbered as
	 * analysis_page_figure; -1: none */
	double max_page[PAGE_FIGS_MAX];
	bool forbid_ping, forbid_acq, forbid_rel, forbid_returned;
	bool allow[EV_NCODES]; /* findings that do not fail the gate */
	int nbudgets;
	char budget_route[MAX_BUDGETS][ROUTE_MAX];
	double budget[MAX_BUDGETS];
	const char *baseline;
	const char *baseline_from; /* a stored run, by app and labels */
	bool writes_baseline; /* --write-baseline names the baseline file itself */
};

struct check {
	char cls[ROUTE_MAX], name[64], msg[EV_MSG_MAX + 32]; /* a finding's, and "(allowed)" */
	bool ok;
};

struct checks {
	struct check *c;
	int n, cap;
};

void audit_per_page(struct checks *cs, const struct adata *d, const struct policy *p);
void audit_forbids(struct checks *cs, const struct adata *d, const struct policy *p);
bool audit_evidence_checks(struct checks *cs, const struct adata *d, const struct policy *p);
int audit_parse_allow(const char *list, struct policy *p, const char *where);
int audit_baseline_from(struct checks *cs, const struct adata *d, const struct policy *p,
			const char *dbpath, int64_t audited);
int audit_baseline(struct checks *cs, const struct adata *d, const struct policy *p);
int audit_load_policy(const char *path, struct policy *p);

#endif
