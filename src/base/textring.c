/* textring.c - recent statement texts (textring.h).  An entry is a 2-byte
 * length and the bytes, never split by the ring's end (the tail is
 * skipped instead); a handle is the entry's position since the start,
 * plus 1, so it stays valid exactly while the ring has not come round to
 * it again. */
#include "textring.h"

#include <stdlib.h>
#include <string.h>

int textring_init(struct textring *t, size_t cap)
{
	t->buf = malloc(cap);
	t->cap = cap;
	t->head = 0;
	return t->buf ? 0 : -1;
}

void textring_free(struct textring *t)
{
	free(t->buf);
	t->buf = NULL;
}

uint64_t textring_put(struct textring *t, const char *s, size_t n)
{
	if (!t->buf)
		return 0;
	n = n < TEXTRING_TEXT_MAX ? n : TEXTRING_TEXT_MAX;
	size_t at = (size_t)(t->head % t->cap);
	if (at + 2 + n > t->cap) { /* the end of the ring: start over at 0 */
		t->head += t->cap - at;
		at = 0;
	}
	t->buf[at] = (char)(n >> 8);
	t->buf[at + 1] = (char)(n & 0xff);
	memcpy(t->buf + at + 2, s, n);
	uint64_t h = t->head + 1;
	t->head += 2 + n;
	return h;
}

const char *textring_get(const struct textring *t, uint64_t h, size_t *n)
{
	if (!t->buf || h == 0 || h - 1 >= t->head || t->head - (h - 1) > t->cap)
		return NULL;
	size_t at = (size_t)((h - 1) % t->cap);
	*n = (size_t)((uint8_t)t->buf[at] << 8 | (uint8_t)t->buf[at + 1]);
	return t->buf + at + 2;
}
