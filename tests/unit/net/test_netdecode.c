/* test_netdecode.c - link layers, IPv4/IPv6 (extension headers), TCP: each
 * header taken apart, and every way a header can be cut or impossible. */
#include <pcap/dlt.h>
#include <string.h>

#include "net/netdecode.h"
#include "tinytest.h"

/* IPv4 + TCP from 10.0.0.2:40000 to 10.0.0.1:5432, seq 7, ack 9, PSH|ACK,
 * with n payload bytes 'x'; returns the length. */
static size_t ip4_tcp(uint8_t *p, size_t n)
{
	memset(p, 0, 40 + n);
	p[0] = 0x45;
	p[2] = (uint8_t)((40 + n) >> 8);
	p[3] = (uint8_t)(40 + n);
	p[8] = 64;
	p[9] = 6;
	p[12] = 10, p[15] = 2, p[16] = 10, p[19] = 1;
	uint8_t *t = p + 20;
	t[0] = 40000 >> 8, t[1] = 40000 & 0xff, t[2] = 5432 >> 8, t[3] = 5432 & 0xff;
	t[7] = 7;
	t[11] = 9;
	t[12] = 5 << 4;
	t[13] = 0x18;
	memset(t + 20, 'x', n);
	return 40 + n;
}

static void check_seg(const struct seg *s, uint32_t n)
{
	CHECK_EQ_U(s->af, 4);
	CHECK_EQ_U(s->sport, 40000);
	CHECK_EQ_U(s->dport, 5432);
	CHECK_EQ_U(s->seq, 7);
	CHECK_EQ_U(s->ack, 9);
	CHECK_EQ_U(s->flags, 0x18);
	CHECK_EQ_U(s->caplen, n);
	CHECK_EQ_U(s->wirelen, n);
	CHECK(n == 0 || s->payload[0] == 'x');
}

static void link_layers(void)
{
	uint8_t f[256];
	struct seg s;
	/* Ethernet, then with an 802.1Q tag */
	memset(f, 0, 18);
	f[12] = 0x08;
	size_t n = 14 + ip4_tcp(f + 14, 5);
	CHECK_EQ_U(net_decode(DLT_EN10MB, f, (uint32_t)n, &s), NET_OK);
	check_seg(&s, 5);
	memset(f, 0, 18);
	f[12] = 0x81, f[16] = 0x08;
	n = 18 + ip4_tcp(f + 18, 5);
	CHECK_EQ_U(net_decode(DLT_EN10MB, f, (uint32_t)n, &s), NET_OK);
	check_seg(&s, 5);
	/* Linux cooked v1 (protocol last) and v2 (first) */
	memset(f, 0, 20);
	f[14] = 0x08;
	n = 16 + ip4_tcp(f + 16, 3);
	CHECK_EQ_U(net_decode(DLT_LINUX_SLL, f, (uint32_t)n, &s), NET_OK);
	check_seg(&s, 3);
	memset(f, 0, 20);
	f[0] = 0x08;
	n = 20 + ip4_tcp(f + 20, 3);
	CHECK_EQ_U(net_decode(DLT_LINUX_SLL2, f, (uint32_t)n, &s), NET_OK);
	check_seg(&s, 3);
	/* BSD loopback: the family in host order (NULL) or network order (LOOP) */
	memset(f, 0, 4);
	f[0] = 2; /* AF_INET, little-endian */
	n = 4 + ip4_tcp(f + 4, 1);
	CHECK_EQ_U(net_decode(DLT_NULL, f, (uint32_t)n, &s), NET_OK);
	memset(f, 0, 4);
	f[3] = 2;
	n = 4 + ip4_tcp(f + 4, 1);
	CHECK_EQ_U(net_decode(DLT_LOOP, f, (uint32_t)n, &s), NET_OK);
	/* raw IP */
	n = ip4_tcp(f, 0);
	CHECK_EQ_U(net_decode(DLT_RAW, f, (uint32_t)n, &s), NET_OK);
	check_seg(&s, 0);
	CHECK(!net_linktype_supported(DLT_USER0));
}

static void ipv6(void)
{
	uint8_t f[256] = {0};
	struct seg s;
	/* IPv6 with a Destination Options header before TCP */
	f[0] = 0x60;
	f[4] = 0, f[5] = 8 + 20 + 2; /* payload length */
	f[6] = 60;                  /* next: destination options */
	f[7] = 64;
	f[23] = 1, f[39] = 1; /* ::1 to ::1 */
	uint8_t *opt = f + 40;
	opt[0] = 6; /* next: TCP */
	opt[1] = 0; /* 8 bytes */
	uint8_t *t = f + 48;
	t[0] = 0x9c, t[1] = 0x40, t[2] = 0x15, t[3] = 0x38;
	t[12] = 5 << 4;
	t[13] = 0x18;
	t[20] = 'h', t[21] = 'i';
	CHECK_EQ_U(net_decode(DLT_RAW, f, 70, &s), NET_OK);
	CHECK_EQ_U(s.af, 6);
	CHECK_EQ_U(s.dport, 5432);
	CHECK_EQ_U(s.caplen, 2);
	CHECK(s.payload[0] == 'h');
}

static void damage(void)
{
	uint8_t f[256];
	struct seg s;
	size_t n = ip4_tcp(f, 10);
	/* every cut inside the headers is "truncated", never a read past the end */
	for (uint32_t cut = 0; cut < 40; cut++) {
		enum net_result r = net_decode(DLT_RAW, f, cut, &s);
		CHECK(r == NET_TRUNCATED || r == NET_BAD);
	}
	/* a payload cut by the snaplen: captured less than on the wire */
	CHECK_EQ_U(net_decode(DLT_RAW, f, 45, &s), NET_OK);
	CHECK_EQ_U(s.caplen, 5);
	CHECK_EQ_U(s.wirelen, 10);
	/* impossible header values */
	n = ip4_tcp(f, 0);
	f[0] = 0x44; /* IHL 16 bytes */
	CHECK_EQ_U(net_decode(DLT_RAW, f, (uint32_t)n, &s), NET_BAD);
	n = ip4_tcp(f, 0);
	f[32] = 2 << 4; /* TCP data offset 8 bytes */
	CHECK_EQ_U(net_decode(DLT_RAW, f, (uint32_t)n, &s), NET_BAD);
	/* UDP, a fragment, not IP */
	n = ip4_tcp(f, 0);
	f[9] = 17;
	CHECK_EQ_U(net_decode(DLT_RAW, f, (uint32_t)n, &s), NET_NOT_TCP);
	n = ip4_tcp(f, 0);
	f[6] = 0x20; /* more fragments */
	CHECK_EQ_U(net_decode(DLT_RAW, f, (uint32_t)n, &s), NET_FRAGMENT);
	memset(f, 0, 60);
	f[12] = 0x08, f[13] = 0x06; /* ARP */
	CHECK_EQ_U(net_decode(DLT_EN10MB, f, 60, &s), NET_NOT_IP);
}

int main(void)
{
	RUN(link_layers);
	RUN(ipv6);
	RUN(damage);
	return TT_EXIT();
}
