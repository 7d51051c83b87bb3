/* netdecode.c - link layer, IPv4/IPv6 and TCP header decoding.
 *
 * Link types: Ethernet (802.1Q/802.1ad tags), Linux cooked v1 and v2
 * (tcpdump -i any), BSD loopback (NULL, host byte order; LOOP, network
 * order), raw IP.  IPv6 extension headers are skipped; fragments are
 * counted, not reassembled.  Every read goes through rd.h.
 */
#include "netdecode.h"

#include <pcap/dlt.h>
#include <string.h>

#include "rd.h"

#define ETHERTYPE_IP 0x0800
#define ETHERTYPE_IPV6 0x86dd
#define ETHERTYPE_VLAN 0x8100
#define ETHERTYPE_QINQ 0x88a8
#define ETHERTYPE_QINQ_OLD 0x9100

#define IPPROTO_TCP_ 6
#define IP6_HOPOPTS 0
#define IP6_ROUTING 43
#define IP6_FRAGMENT 44
#define IP6_AH 51
#define IP6_DSTOPTS 60

bool net_linktype_supported(int dlt)
{
	switch (dlt) {
	case DLT_EN10MB:
	case DLT_LINUX_SLL:
	case DLT_LINUX_SLL2:
	case DLT_NULL:
	case DLT_LOOP:
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6:
		return true;
	default:
		return false;
	}
}

static enum net_result tcp(struct rd *r, uint32_t l4len, struct seg *s)
{
	s->sport = rd_be16(r);
	s->dport = rd_be16(r);
	s->seq = rd_be32(r);
	s->ack = rd_be32(r);
	uint8_t off = rd_u8(r);
	s->flags = rd_u8(r);
	if (r->bad)
		return NET_TRUNCATED;
	uint32_t hlen = (uint32_t)(off >> 4) * 4;
	if (hlen < 20 || hlen > l4len)
		return NET_BAD;
	rd_skip(r, hlen - 14); /* window, checksum, urgent pointer, options */
	if (r->bad)
		return NET_TRUNCATED;
	s->wirelen = l4len - hlen;
	size_t have = rd_left(r);
	s->caplen = have < s->wirelen ? (uint32_t)have : s->wirelen;
	s->payload = r->p;
	return NET_OK;
}

static enum net_result ipv4(struct rd *r, struct seg *s)
{
	uint8_t vihl = rd_u8(r);
	rd_skip(r, 1);
	uint16_t total = rd_be16(r);
	rd_skip(r, 2);
	uint16_t frag = rd_be16(r);
	rd_skip(r, 1);
	uint8_t proto = rd_u8(r);
	rd_skip(r, 2);
	const uint8_t *src = rd_bytes(r, 4);
	const uint8_t *dst = rd_bytes(r, 4);
	if (r->bad)
		return NET_TRUNCATED;
	uint32_t ihl = (uint32_t)(vihl & 0x0f) * 4;
	if (vihl >> 4 != 4 || ihl < 20 || total < ihl)
		return NET_BAD;
	rd_skip(r, ihl - 20);
	if (r->bad)
		return NET_TRUNCATED;
	if ((frag & 0x3fff) != 0) /* MF set or offset non-zero */
		return NET_FRAGMENT;
	if (proto != IPPROTO_TCP_)
		return NET_NOT_TCP;
	s->af = 4;
	memset(s->src, 0, sizeof s->src);
	memset(s->dst, 0, sizeof s->dst);
	memcpy(s->src, src, 4);
	memcpy(s->dst, dst, 4);
	/* Ethernet padding after the IP datagram is not payload */
	rd_limit(r, (size_t)(total - ihl));
	return tcp(r, total - ihl, s);
}

static enum net_result ipv6(struct rd *r, struct seg *s)
{
	uint32_t vtf = rd_be32(r);
	uint16_t plen = rd_be16(r);
	uint8_t next = rd_u8(r);
	rd_skip(r, 1);
	const uint8_t *src = rd_bytes(r, 16);
	const uint8_t *dst = rd_bytes(r, 16);
	if (r->bad)
		return NET_TRUNCATED;
	if (vtf >> 28 != 6)
		return NET_BAD;
	uint32_t left = plen; /* jumbograms (plen 0) are not supported */
	for (int hops = 0; hops < 16; hops++) {
		if (next == IPPROTO_TCP_)
			break;
		uint32_t hlen;
		uint8_t nh = rd_u8(r);
		uint8_t x = rd_u8(r);
		if (r->bad)
			return NET_TRUNCATED;
		switch (next) {
		case IP6_HOPOPTS:
		case IP6_ROUTING:
		case IP6_DSTOPTS:
			hlen = ((uint32_t)x + 1) * 8;
			break;
		case IP6_AH:
			hlen = ((uint32_t)x + 2) * 4;
			break;
		case IP6_FRAGMENT: {
			uint16_t off = rd_be16(r);
			if (r->bad)
				return NET_TRUNCATED;
			if ((off & 0xfff9) != 0) /* offset or M flag: a real fragment */
				return NET_FRAGMENT;
			rd_skip(r, 4); /* identification */
			if (r->bad)
				return NET_TRUNCATED;
			if (left < 8)
				return NET_BAD;
			left -= 8;
			next = nh;
			continue;
		}
		default:
			return NET_NOT_TCP;
		}
		if (hlen > left)
			return NET_BAD;
		rd_skip(r, hlen - 2);
		if (r->bad)
			return NET_TRUNCATED;
		left -= hlen;
		next = nh;
	}
	if (next != IPPROTO_TCP_)
		return NET_NOT_TCP;
	s->af = 6;
	memcpy(s->src, src, 16);
	memcpy(s->dst, dst, 16);
	rd_limit(r, left);
	return tcp(r, left, s);
}

static enum net_result by_ethertype(struct rd *r, uint16_t et, struct seg *s)
{
	for (int tags = 0; tags < 4 && (et == ETHERTYPE_VLAN || et == ETHERTYPE_QINQ ||
					 et == ETHERTYPE_QINQ_OLD);
	     tags++) {
		rd_skip(r, 2); /* TCI */
		et = rd_be16(r);
	}
	if (r->bad)
		return NET_TRUNCATED;
	if (et == ETHERTYPE_IP)
		return ipv4(r, s);
	if (et == ETHERTYPE_IPV6)
		return ipv6(r, s);
	return NET_NOT_IP;
}

static enum net_result by_version(struct rd *r, struct seg *s)
{
	if (rd_left(r) < 1)
		return NET_TRUNCATED;
	uint8_t v = r->p[0] >> 4;
	if (v == 4)
		return ipv4(r, s);
	if (v == 6)
		return ipv6(r, s);
	return NET_NOT_IP;
}

enum net_result net_decode(int dlt, const uint8_t *pkt, uint32_t caplen, struct seg *s)
{
	struct rd r = rd_init(pkt, caplen);
	switch (dlt) {
	case DLT_EN10MB: {
		rd_skip(&r, 12);
		uint16_t et = rd_be16(&r);
		if (r.bad)
			return NET_TRUNCATED;
		return by_ethertype(&r, et, s);
	}
	case DLT_LINUX_SLL: { /* 16 bytes, protocol last */
		rd_skip(&r, 14);
		uint16_t et = rd_be16(&r);
		if (r.bad)
			return NET_TRUNCATED;
		return by_ethertype(&r, et, s);
	}
	case DLT_LINUX_SLL2: { /* 20 bytes, protocol first */
		uint16_t et = rd_be16(&r);
		rd_skip(&r, 18);
		if (r.bad)
			return NET_TRUNCATED;
		return by_ethertype(&r, et, s);
	}
	case DLT_NULL:
	case DLT_LOOP: {
		/* address family: host byte order for NULL (either, in practice),
		 * network order for LOOP; 2 = INET, 24/28/30 = INET6 on the BSDs */
		uint32_t be = rd_be32(&r);
		if (r.bad)
			return NET_TRUNCATED;
		uint32_t le = __builtin_bswap32(be);
		uint32_t fam = dlt == DLT_LOOP ? be : (be < 256 ? be : le);
		if (fam == 2)
			return ipv4(&r, s);
		if (fam == 24 || fam == 28 || fam == 30 || fam == 10)
			return ipv6(&r, s);
		return NET_NOT_IP;
	}
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6:
		return by_version(&r, s);
	default:
		return NET_NOT_IP;
	}
}
