/* tcp_reasm.c - per-direction TCP stream reassembly (see tcp_reasm.h). */
#include "tcp_reasm.h"

#include <stdlib.h>
#include <string.h>

#include "netdecode.h"

struct reasm_seg {
	struct reasm_seg *next;
	uint32_t seq;
	uint32_t caplen;  /* bytes held */
	uint32_t wirelen; /* bytes the segment covers in sequence space */
	uint64_t ts;
	uint8_t data[];
};

/* a - b in sequence space, for |a - b| < 2^31 */
static int32_t seq_diff(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b);
}

void reasm_init(struct reasm_dir *d)
{
	memset(d, 0, sizeof(*d));
}

static void deliver(struct reasm_dir *d, const struct reasm_out *o, const uint8_t *p,
		    uint32_t caplen, uint32_t wirelen, uint64_t ts)
{
	if (caplen)
		o->data(o->ctx, o->side, p, caplen, ts);
	if (wirelen > caplen) {
		d->truncated_segs++;
		d->gaps++;
		d->gap_bytes += wirelen - caplen;
		o->gap(o->ctx, o->side, wirelen - caplen, ts);
	}
	d->bytes += wirelen;
	d->next += wirelen;
	if (d->fin_seen && d->next == d->fin_seq)
		d->closed = true;
}

/* Deliver a segment starting at or before d->next, trimming what was seen. */
static void deliver_trimmed(struct reasm_dir *d, const struct reasm_out *o, uint32_t seq,
			    const uint8_t *p, uint32_t caplen, uint32_t wirelen, uint64_t ts)
{
	int32_t rel = seq_diff(seq, d->next);
	uint32_t skip = rel < 0 ? d->next - seq : 0;
	if (skip >= wirelen) {
		d->retrans_bytes += wirelen;
		return;
	}
	if (skip)
		d->retrans_bytes += skip;
	uint32_t cskip = skip < caplen ? skip : caplen;
	deliver(d, o, p + cskip, caplen - cskip, wirelen - skip, ts);
}

static void drain(struct reasm_dir *d, const struct reasm_out *o)
{
	while (d->ooo && seq_diff(d->ooo->seq, d->next) <= 0) {
		struct reasm_seg *s = d->ooo;
		d->ooo = s->next;
		d->ooo_bytes -= s->caplen;
		d->ooo_segs--;
		deliver_trimmed(d, o, s->seq, s->data, s->caplen, s->wirelen, s->ts);
		free(s);
	}
}

/* Bytes up to end will never be seen: report them as one gap. */
static void gap_to(struct reasm_dir *d, const struct reasm_out *o, uint32_t end, uint64_t ts)
{
	int32_t hole = seq_diff(end, d->next);
	if (hole <= 0)
		return;
	d->gaps++;
	d->gap_bytes += (uint32_t)hole;
	o->gap(o->ctx, o->side, (uint32_t)hole, ts);
	d->next = end;
}

/* Give up on the hole before the first queued segment. */
static void skip_hole(struct reasm_dir *d, const struct reasm_out *o, uint64_t ts)
{
	if (!d->ooo)
		return;
	gap_to(d, o, d->ooo->seq, ts);
	drain(d, o);
}

static bool queue(struct reasm_dir *d, uint32_t seq, const uint8_t *p, uint32_t caplen,
		  uint32_t wirelen, uint64_t ts)
{
	struct reasm_seg **pp = &d->ooo;
	while (*pp && seq_diff((*pp)->seq, seq) < 0)
		pp = &(*pp)->next;
	if (*pp && (*pp)->seq == seq && (*pp)->wirelen >= wirelen) {
		d->retrans_bytes += wirelen; /* same out-of-order segment again */
		return true;
	}
	struct reasm_seg *s = malloc(sizeof(*s) + caplen);
	if (!s)
		return false;
	s->seq = seq;
	s->caplen = caplen;
	s->wirelen = wirelen;
	s->ts = ts;
	memcpy(s->data, p, caplen);
	s->next = *pp;
	*pp = s;
	d->ooo_bytes += caplen;
	d->ooo_segs++;
	d->ooo_total++;
	return true;
}

bool reasm_push(struct reasm_dir *d, const struct reasm_out *o, uint32_t seq, uint8_t flags,
		const uint8_t *payload, uint32_t caplen, uint32_t wirelen, uint64_t ts)
{
	bool ok = true;
	if (flags & TCP_SYN) {
		if (!d->have_next || d->bytes == 0) {
			d->have_next = true;
			d->next = seq + 1;
		}
		seq += 1; /* the SYN takes one sequence number */
	}
	if (!d->have_next) {
		d->have_next = true; /* picked up mid-stream */
		d->next = seq;
	}
	if (flags & TCP_FIN) {
		d->fin_seen = true;
		d->fin_seq = seq + wirelen;
	}
	if (wirelen > 0) {
		if (seq_diff(seq, d->next) > 0 &&
		    (d->ooo_bytes + caplen > REASM_OOO_MAX_BYTES || d->ooo_segs >= REASM_OOO_MAX_SEGS))
			skip_hole(d, o, ts); /* queue full: give up on the oldest hole */
		if (seq_diff(seq, d->next) <= 0) {
			deliver_trimmed(d, o, seq, payload, caplen, wirelen, ts);
			drain(d, o);
		} else if (!queue(d, seq, payload, caplen, wirelen, ts)) {
			ok = false; /* out of memory: this segment is lost too */
			gap_to(d, o, seq + wirelen, ts);
			drain(d, o);
		}
	}
	if (d->fin_seen && d->next == d->fin_seq && !d->ooo)
		d->closed = true;
	return ok;
}

void reasm_ack(struct reasm_dir *d, const struct reasm_out *o, uint32_t ack, uint64_t ts)
{
	if (!d->have_next || !d->ooo)
		return;
	/* the receiver has everything below ack, so a hole in front of queued
	 * data at or below ack was lost by the capture, not the network */
	if (seq_diff(ack, d->ooo->seq) > 0 && seq_diff(ack, d->next) > 0)
		skip_hole(d, o, ts);
}

void reasm_give_up(struct reasm_dir *d, const struct reasm_out *o, uint64_t ts)
{
	skip_hole(d, o, ts);
}

void reasm_flush(struct reasm_dir *d, const struct reasm_out *o, uint64_t ts)
{
	while (d->ooo)
		skip_hole(d, o, ts);
}

void reasm_free(struct reasm_dir *d)
{
	struct reasm_seg *s = d->ooo;
	while (s) {
		struct reasm_seg *n = s->next;
		free(s);
		s = n;
	}
	d->ooo = NULL;
	d->ooo_bytes = d->ooo_segs = 0;
}
