/* analysis_impl.h - struct analysis, the engine's own (analysis.c,
 * pages.c, page_hold.c): outside src/engine/ an analysis is read through
 * analysis.h's functions. */
#ifndef PGRTT_ANALYSIS_IMPL_H
#define PGRTT_ANALYSIS_IMPL_H

#include "analysis.h"
#include "attrib/attrib_pipe.h"
#include "attrib/page_twins.h"
#include "attrib/route_learn.h"
#include "net/netdecode.h"
#include "net/tcp_reasm.h"
#include "page_hold.h"
#include "tls/tls_stream.h"

struct analysis {
	struct analysis_opts opts;
	struct conn **buckets;
	struct conn *lru_head, *lru_tail; /* open connections by last activity */
	uint32_t nbuckets, nopen;
	uint64_t ooo_bytes;             /* held out of order, over all open connections */
	uint8_t port_proto[65536];      /* enum proto_id of each server port */
	uint64_t next_id;
	struct conn_summary *listed;
	uint32_t nlisted, cap_listed;
	struct analysis_totals tot;
	void *shared[PROTO_N];          /* each protocol's, for the whole analysis (proto.h) */
	struct proto_host host;         /* what the protocols ask of the analysis (proto.h) */
	uint64_t clock_ns; /* a live capture's time when no packet says it (analysis_settle) */
	struct attrib attrib;           /* pages and routes, with HTTP ports */
	struct attrib_pipe pipe;        /* the protocols' way to it (maybe a thread) */
	struct route_learn learn;       /* routes' parameters, learnt from the requests */
	struct page_hold hold;          /* the first pages, while they are learnt */
	struct page_twins *twins;       /* a proxy's copies of the app's pages (page_twins.h) */
	bool attributing;
	struct tls_keytab tls_keys;     /* the key logs' secrets (--tls-keylog) */
	uint64_t next_settle;           /* packet count of the next watermark pass */
	bool finished;
};

#endif
