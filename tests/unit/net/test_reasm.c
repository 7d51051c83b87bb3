/* test_reasm.c - TCP reassembly: order, duplicates, overlaps, wraparound,
 * gaps from acknowledgements, truncation, queue limits. */
#include <string.h>

#include "net/netdecode.h"
#include "net/tcp_reasm.h"
#include "tinytest.h"

struct sink {
	char data[4096];
	size_t n;
	uint64_t gap;
	int gaps;
};

static void on_data(void *ctx, int side, const uint8_t *p, size_t n, uint64_t ts)
{
	(void)side;
	(void)ts;
	struct sink *s = ctx;
	memcpy(s->data + s->n, p, n);
	s->n += n;
}

static void on_gap(void *ctx, int side, uint64_t n, uint64_t ts)
{
	(void)side;
	(void)ts;
	struct sink *s = ctx;
	s->gap += n;
	s->gaps++;
	memset(s->data + s->n, '_', n);
	s->n += n;
}

#define PUSH(seq, str) reasm_push(&d, &o, (seq), TCP_ACK, (const uint8_t *)(str), sizeof(str) - 1, sizeof(str) - 1, 0)

static void test_order_and_duplicates(void)
{
	struct sink s = {0};
	struct reasm_out o = {on_data, on_gap, &s, 0};
	struct reasm_dir d;
	reasm_init(&d);
	uint32_t isn = 0xfffffff0u; /* wraps inside the stream */
	reasm_push(&d, &o, isn, TCP_SYN, NULL, 0, 0, 0);
	uint32_t b = isn + 1;
	PUSH(b, "hello ");
	PUSH(b + 12, "world!");      /* out of order */
	PUSH(b + 6, "there ");       /* fills the hole */
	PUSH(b, "hello ");           /* retransmission */
	PUSH(b + 9, "re world!XYZ"); /* overlaps the end, adds XYZ */
	s.data[s.n] = 0;
	CHECK(strcmp(s.data, "hello there world!XYZ") == 0);
	CHECK_EQ_U(s.gaps, 0);
	CHECK_EQ_U(d.retrans_bytes, 6 + 9);
	CHECK_EQ_U(d.next, b + 21);
	reasm_free(&d);
}

static void test_gap_by_ack(void)
{
	struct sink s = {0};
	struct reasm_out o = {on_data, on_gap, &s, 0};
	struct reasm_dir d;
	reasm_init(&d);
	PUSH(1000, "aaaa");
	PUSH(1008, "cccc"); /* 1004..1007 never captured */
	CHECK_EQ_U(s.n, 4);
	reasm_ack(&d, &o, 1006, 0); /* below the queued data: wait */
	CHECK_EQ_U(s.n, 4);
	reasm_ack(&d, &o, 1012, 0); /* the receiver has it all: a capture gap */
	s.data[s.n] = 0;
	CHECK(strcmp(s.data, "aaaa____cccc") == 0);
	CHECK_EQ_U(s.gap, 4);
	CHECK_EQ_U(d.gaps, 1);
	reasm_free(&d);
}

static void test_truncated_and_flush(void)
{
	struct sink s = {0};
	struct reasm_out o = {on_data, on_gap, &s, 0};
	struct reasm_dir d;
	reasm_init(&d);
	/* snaplen kept 3 of 8 payload bytes */
	reasm_push(&d, &o, 50, TCP_ACK, (const uint8_t *)"abc", 3, 8, 0);
	PUSH(58, "zz");
	PUSH(70, "late");
	reasm_flush(&d, &o, 0);
	s.data[s.n] = 0;
	CHECK(strcmp(s.data, "abc_____zz__________late") == 0);
	CHECK_EQ_U(d.truncated_segs, 1);
	CHECK_EQ_U(d.gaps, 2);
	reasm_free(&d);
}

static void test_queue_limit(void)
{
	static struct sink s;
	memset(&s, 0, sizeof s);
	struct reasm_out o = {on_data, on_gap, &s, 0};
	struct reasm_dir d;
	reasm_init(&d);
	PUSH(0, "x");
	/* a hole at 1, then far more queued segments than allowed */
	for (uint32_t i = 0; i < REASM_OOO_MAX_SEGS + 10; i++) {
		uint8_t c = 'y';
		reasm_push(&d, &o, 2 + 2 * i, TCP_ACK, &c, 1, 1, 0);
		CHECK(d.ooo_segs <= REASM_OOO_MAX_SEGS);
	}
	CHECK(d.gaps > 0);
	reasm_flush(&d, &o, 0);
	CHECK_EQ_U(d.ooo_segs, 0);
	reasm_free(&d);
}

int main(void)
{
	RUN(test_order_and_duplicates);
	RUN(test_gap_by_ack);
	RUN(test_truncated_and_flush);
	RUN(test_queue_limit);
	return TT_EXIT();
}
