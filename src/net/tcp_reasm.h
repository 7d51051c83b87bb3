/* tcp_reasm.h - per-direction TCP stream reassembly for a passive observer.
 *
 * Delivers each byte of a direction's stream once and in order: 32-bit
 * sequence arithmetic with wraparound, retransmissions and overlaps trimmed,
 * out-of-order segments held in a bounded queue.  A hole that will never
 * fill - the peer acknowledged past it, the queue is full, the capture ended,
 * or the snaplen cut the packet - is delivered as a gap of known size.
 */
#ifndef PGRTT_TCP_REASM_H
#define PGRTT_TCP_REASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REASM_OOO_MAX_BYTES (1u << 20) /* per direction */
#define REASM_OOO_MAX_SEGS 512

struct reasm_seg;

struct reasm_out {
	void (*data)(void *ctx, int side, const uint8_t *p, size_t n, uint64_t ts);
	void (*gap)(void *ctx, int side, uint64_t n, uint64_t ts);
	void *ctx;
	int side;
};

struct reasm_dir {
	bool have_next;
	bool fin_seen;
	bool closed; /* every byte up to the FIN delivered */
	uint32_t next; /* next expected sequence number */
	uint32_t fin_seq;
	struct reasm_seg *ooo; /* sorted by seq */
	uint32_t ooo_bytes, ooo_segs;
	/* counters */
	uint64_t bytes, gaps, gap_bytes, retrans_bytes, ooo_total, truncated_segs;
};

void reasm_init(struct reasm_dir *d);

/* A segment of this direction.  payload[0..caplen) was captured of wirelen
 * bytes on the wire.  Returns false only when memory ran out (the data is
 * then delivered as a gap). */
bool reasm_push(struct reasm_dir *d, const struct reasm_out *o, uint32_t seq, uint8_t flags,
		const uint8_t *payload, uint32_t caplen, uint32_t wirelen, uint64_t ts);

/* The other direction acknowledged up to ack: queued data at or below it
 * will not be preceded by anything still missing. */
void reasm_ack(struct reasm_dir *d, const struct reasm_out *o, uint32_t ack, uint64_t ts);

/* Give up on the hole in front of the queue: it becomes a gap and what
 * follows it is delivered (a budget over all connections ran out). */
void reasm_give_up(struct reasm_dir *d, const struct reasm_out *o, uint64_t ts);

/* End of stream (RST or end of capture): deliver what is queued, with gaps. */
void reasm_flush(struct reasm_dir *d, const struct reasm_out *o, uint64_t ts);

void reasm_free(struct reasm_dir *d);

#endif
