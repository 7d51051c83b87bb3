/* fuzz_sql.c - the statement lexers (sqlclass.h, sqlnorm.h) on arbitrary
 * text.  Byte 0's low bit says whether the text is whole, the rest picks
 * the output buffer's size.  Checks what callers rely on: the normalised
 * text fits its buffer, ends in a NUL, and normalising it again changes
 * nothing (its constants are already parameters). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sqlclass.h"
#include "sqlnorm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	bool whole = data[0] & 1;
	size_t cap = 16 + (data[0] >> 1) * 2;
	const char *text = (const char *)data + 1;
	size_t n = size - 1;
	(void)sql_classify(text, n, whole);
	(void)sql_is_select_param(text, n);
	(void)sql_is_pooler_set(text, n);
	(void)sql_fingerprint(text, n);
	char out[300], again[300];
	memset(out, 0x55, sizeof out);
	size_t len = sql_normalize(text, n, whole, out, cap);
	if (len >= cap || out[len] != '\0' || strlen(out) != len || out[cap] != 0x55)
		abort();
	bool cut = len >= 3 && memcmp(out + len - 3, "\xe2\x80\xa6", 3) == 0;
	if (!cut && whole) {
		size_t len2 = sql_normalize(out, len, true, again, sizeof again);
		if (len2 != len || memcmp(out, again, len) != 0)
			abort();
	}
	return 0;
}
