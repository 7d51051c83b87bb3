/* netdecode.h - link layer, IPv4/IPv6 and TCP headers to a segment view. */
#ifndef PGRTT_NETDECODE_H
#define PGRTT_NETDECODE_H

#include <stdbool.h>
#include <stdint.h>

#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_RST 0x04
#define TCP_ACK 0x10

struct seg {
	uint8_t af; /* 4 or 6 */
	uint8_t src[16], dst[16];
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t flags;
	const uint8_t *payload;
	uint32_t caplen;  /* payload bytes captured */
	uint32_t wirelen; /* payload bytes on the wire (from the IP length) */
};

enum net_result {
	NET_OK = 0,
	NET_NOT_IP = -1,    /* ARP, other ethertypes, non-IP loopback families */
	NET_NOT_TCP = -2,   /* UDP, ICMP, ... */
	NET_FRAGMENT = -3,  /* IP fragments are not reassembled */
	NET_TRUNCATED = -4, /* headers cut by the snaplen */
	NET_BAD = -5,       /* impossible header values */
};

/* True if pgrtt can decode this libpcap DLT_* link type. */
bool net_linktype_supported(int dlt);

/* Decode pkt[0..caplen) of the given DLT_* link type into *s. */
enum net_result net_decode(int dlt, const uint8_t *pkt, uint32_t caplen, struct seg *s);

#endif
