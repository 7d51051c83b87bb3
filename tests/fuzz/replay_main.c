/* replay_main.c - run a fuzz target without libFuzzer: each file as is, then
 * a fixed number of deterministic mutations of it (byte flips, random
 * bytes, cut length words, truncations), so ctest exercises bad input in
 * every build, sanitizers included.
 *
 * Usage: replay_TARGET [-m MUTATIONS] FILE... */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void mutate(uint8_t *b, size_t *n, size_t skip)
{
	if (*n <= skip)
		return;
	size_t span = *n - skip;
	int edits = 1 + (int)(next() % 8);
	for (int e = 0; e < edits; e++) {
		size_t at = skip + next() % span;
		switch (next() % 5) {
		case 0:
			b[at] ^= (uint8_t)(1u << (next() % 8));
			break;
		case 1:
			b[at] = (uint8_t)next();
			break;
		case 2: /* a length word of 0, 3, 0x7fffffff or 0xffffffff */
			if (at + 4 <= *n) {
				static const uint32_t lens[] = {0, 3, 4, 0x7fffffffu, 0xffffffffu};
				uint32_t v = lens[next() % 5];
				b[at] = (uint8_t)(v >> 24);
				b[at + 1] = (uint8_t)(v >> 16);
				b[at + 2] = (uint8_t)(v >> 8);
				b[at + 3] = (uint8_t)v;
			}
			break;
		case 3:
			*n = at; /* truncate */
			return;
		default:
			b[at] = 0;
			break;
		}
	}
}

int main(int argc, char **argv)
{
	int mutations = 200, i = 1;
	if (argc > 2 && strcmp(argv[1], "-m") == 0) {
		mutations = atoi(argv[2]);
		i = 3;
	}
	size_t runs = 0;
	for (; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		if (!f) {
			perror(argv[i]);
			return 2;
		}
		static uint8_t buf[1 << 20], work[1 << 20];
		size_t n = fread(buf, 1, sizeof buf, f);
		fclose(f);
		LLVMFuzzerTestOneInput(buf, n);
		runs++;
		for (int m = 0; m < mutations; m++) {
			size_t wn = n;
			memcpy(work, buf, n);
			/* keep the pcap file header (24 bytes) intact half of the time */
			mutate(work, &wn, (next() & 1) ? 24 : 0);
			LLVMFuzzerTestOneInput(work, wn);
			runs++;
		}
	}
	printf("%zu inputs, no crash\n", runs);
	return 0;
}
