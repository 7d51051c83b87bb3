/* pcap_loop.c FILE - the floor under any capture reader: libpcap's read loop
 * over FILE and nothing else (each packet's length summed so the loop is not
 * optimised away).  perf/offline.sh and perf/pages.sh time pgrtt as a
 * multiple of this.  The file is read through a 64 KiB buffer, as pgrtt
 * reads one (src/sources/source_file.c): libpcap's own stream reads 4 KiB at a
 * time, and the floor would be slower than what stands on it. */
#define _DEFAULT_SOURCE /* u_char and friends, which pcap.h uses, under -std=c11 */
#include <pcap/pcap.h>
#include <stdio.h>

static void count(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	unsigned long long *sum = (unsigned long long *)user;
	sum[0]++;
	sum[1] += h->caplen + bytes[0];
}

int main(int argc, char **argv)
{
	char err[PCAP_ERRBUF_SIZE];
	unsigned long long sum[2] = {0, 0};
	pcap_t *p;

	if (argc != 2) {
		fprintf(stderr, "usage: pcap_loop FILE\n");
		return 64;
	}
	static char buf[64 << 10];
	FILE *f = fopen(argv[1], "rb");
	if (!f) {
		perror("pcap_loop");
		return 1;
	}
	setvbuf(f, buf, _IOFBF, sizeof buf);
	if (!(p = pcap_fopen_offline(f, err))) {
		fprintf(stderr, "pcap_loop: %s\n", err);
		return 1;
	}
	if (pcap_loop(p, -1, count, (u_char *)sum) == -1) {
		fprintf(stderr, "pcap_loop: %s\n", pcap_geterr(p));
		return 1;
	}
	printf("%llu packets, %llu bytes\n", sum[0], sum[1]);
	pcap_close(p);
	return 0;
}
