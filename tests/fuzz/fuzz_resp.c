/* fuzz_resp.c - the RESP framer on arbitrary streams.
 *
 * Input format (tests/fuzz/corpus/resp/, made from captures of redis-server
 * by tests/fuzz/mkcorpus.py, as for fuzz_pgsql): one byte, bit 0 set when
 * the connection is seen from its start; then records of a header byte
 * (bit 0: the server's side; bit 1: a capture gap of LEN bytes instead of
 * data), a 2-byte big-endian LEN and, for data, LEN bytes of that side's
 * stream.  Each message must be whole: a known type, its name and arguments
 * terminated within their bounds, a size. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "resp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void on_msg(void *ctx, const struct resp_msg *m) {
  (void)ctx;
  if (memchr(m->name, '\0', sizeof m->name) == NULL ||
      memchr(m->arg[0], '\0', sizeof m->arg[0]) == NULL ||
      memchr(m->arg[1], '\0', sizeof m->arg[1]) == NULL)
    __builtin_trap();
  if (m->bytes == 0 || (m->type != RESP_INLINE && !resp_type_valid(m->type)))
    __builtin_trap();
  if (m->side == RESP_CLIENT && m->type != '*' && m->type != RESP_INLINE)
    __builtin_trap(); /* a client sends arrays or lines */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  struct resp_conn c;
  resp_conn_init(&c, data[0] & 1);
  size_t off = 1;
  uint64_t ts = 0;
  while (off + 3 <= size) {
    uint8_t hdr = data[off];
    size_t n = (size_t)data[off + 1] << 8 | data[off + 2];
    enum resp_side side = hdr & 1 ? RESP_SERVER : RESP_CLIENT;
    off += 3;
    if (hdr & 2) {
      resp_gap(&c, side, n);
      continue;
    }
    if (n > size - off)
      n = size - off;
    resp_feed(&c, side, data + off, n, ts++, on_msg, NULL);
    off += n;
  }
  return 0;
}
