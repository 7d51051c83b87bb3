/* test_analysis.c - packets built here, through decoding, the connection
 * table and its bound: the least recently active connection is evicted, and
 * nothing it counted is lost. */
#include <string.h>

#include "engine/analysis_impl.h"
#include "tinytest.h"

/* An Ethernet + IPv4 + TCP frame from 10.0.0.<host>:<sport> to 10.0.0.1:5432
 * (or back when to_server is false) carrying payload. */
static size_t frame(uint8_t *f, int host, uint16_t cport, bool to_server, uint32_t seq,
		    uint8_t flags, const void *payload, size_t n)
{
	memset(f, 0, 54);
	f[12] = 0x08; /* IPv4 */
	uint8_t *ip = f + 14;
	ip[0] = 0x45;
	size_t total = 20 + 20 + n;
	ip[2] = (uint8_t)(total >> 8);
	ip[3] = (uint8_t)total;
	ip[8] = 64;
	ip[9] = 6;
	uint8_t cli[4] = {10, 0, 0, (uint8_t)host}, srv[4] = {10, 0, 0, 1};
	memcpy(ip + 12, to_server ? cli : srv, 4);
	memcpy(ip + 16, to_server ? srv : cli, 4);
	uint8_t *tcp = ip + 20;
	uint16_t sp = to_server ? cport : 5432, dp = to_server ? 5432 : cport;
	tcp[0] = (uint8_t)(sp >> 8);
	tcp[1] = (uint8_t)sp;
	tcp[2] = (uint8_t)(dp >> 8);
	tcp[3] = (uint8_t)dp;
	tcp[4] = (uint8_t)(seq >> 24);
	tcp[5] = (uint8_t)(seq >> 16);
	tcp[6] = (uint8_t)(seq >> 8);
	tcp[7] = (uint8_t)seq;
	tcp[12] = 5 << 4;
	tcp[13] = flags;
	memcpy(tcp + 20, payload, n);
	return 54 + n;
}

static void test_eviction_keeps_counts(void)
{
	static struct analysis a;
	struct analysis_opts o = {.ports = {5432}, .nports = 1, .max_open = 2};
	CHECK(analysis_init(&a, &o) == 0);
	uint8_t f[256];
	static const uint8_t q[] = "Q\0\0\0\x0eSELECT 42\0";
	static const uint8_t z[] = "Z\0\0\0\x05I";
	uint64_t ts = 1000;
	/* five connections picked up mid-stream, each one query and its answer,
	 * none ever closed */
	for (int i = 0; i < 5; i++) {
		size_t n = frame(f, 2 + i, (uint16_t)(40000 + i), true, 100, 0x18, q, sizeof q - 1);
		analysis_packet(&a, 1, f, (uint32_t)n, ts++);
		n = frame(f, 2 + i, (uint16_t)(40000 + i), false, 900, 0x18, z, sizeof z - 1);
		analysis_packet(&a, 1, f, (uint32_t)n, ts++);
		CHECK(a.nopen <= 2);
	}
	analysis_finish(&a);
	CHECK_EQ_U(analysis_pgsql(&a)->tot.connections, 5);
	CHECK_EQ_U(a.tot.evicted, 3);
	CHECK_EQ_U(analysis_pgsql(&a)->tot.st.rfq, 5);
	CHECK_EQ_U(analysis_pgsql(&a)->tot.st.round_trips, 5);
	CHECK_EQ_U(analysis_pgsql(&a)->tot.st.by_class[RT_QUERY], 5);
	CHECK_EQ_U(a.nlisted, 5);
	CHECK(a.listed[0].evicted && !a.listed[4].evicted);
	CHECK(strcmp(a.listed[0].client, "10.0.0.2:40000") == 0);
	analysis_free(&a);
}

static void test_truncated_headers(void)
{
	static struct analysis a;
	struct analysis_opts o = {0};
	CHECK(analysis_init(&a, &o) == 0);
	uint8_t f[256];
	size_t n = frame(f, 2, 40000, true, 1, 0x18, "Q", 1);
	for (uint32_t cut = 0; cut < n; cut++) /* every snaplen shorter than the headers */
		analysis_packet(&a, 1, f, cut < 54 ? cut : (uint32_t)n, 1);
	analysis_finish(&a);
	CHECK_EQ_U(a.tot.truncated_hdr, 54);
	analysis_free(&a);
}

int main(void)
{
	RUN(test_eviction_keeps_counts);
	RUN(test_truncated_headers);
	return TT_EXIT();
}
